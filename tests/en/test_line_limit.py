"""--max-line-tokens: a sentence over 10,000 whitespace tokens or 1 MiB is refused before spaCy runs, naming its
file and line (and shard), exit 2, nothing written; 0 lifts the limit and a long line is annotated as errant does."""
from __future__ import annotations

import random
import re

import pytest
from conftest import SPACY_MODEL

from peet_fast.cli import main
from peet_fast.en.parse import MAX_LINE_BYTES, Parser
from peet_fast.io import InputError, LineTooLong, lines_located

WORDS = ("the", "cat", "sat", "on", "a", "mat", "and", "dog", "ran", "home")


def words(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n))


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    """mo/trg files whose line 3 (MO) is a 1 MB line of 253,600 tokens."""
    d = tmp_path_factory.mktemp("huge")
    line = words(253_600)
    mo = d / "mo.txt"
    trg = d / "trg.txt"
    mo.write_text(f"This are a cat .\nok .\n{line}\n", "utf-8")
    trg.write_text("This is a cat .\nok .\nthe cat .\n", "utf-8")
    return mo, trg


# a progress line (cli/_progress.py), which a run over the progress interval writes before the error on a busy machine
PROGRESS_LINE = re.compile(r"\S.*: [\d,]+(/[\d,]+)? \w+ \([\d,.]+/s, .*\)|\S.* \((in )?\d+:\d\d:\d\d( so far)?\)")


def error_line(err: str, command: str) -> str:
    """The one error line of a refused command's stderr: exactly one, whatever the order of the lines; every other
    line a progress line (nothing else: no traceback, no second message)."""
    lines = err.strip().splitlines()
    errors = [ln for ln in lines if ln.startswith(f"peet-fast {command}: error: ")]
    assert len(errors) == 1, err
    assert all(PROGRESS_LINE.fullmatch(ln) for ln in lines if ln != errors[0]), err
    return errors[0]


@pytest.fixture
def parsed_lengths(monkeypatch):
    """The token count of every text spaCy's pipeline is given (Language.pipe, the only way peet_fast calls spaCy):
    the huge line must never be among them (refused before a parse, which would run out of memory)."""
    from spacy.language import Language

    seen: list[int] = []
    pipe = Language.pipe

    def counted(self, texts, *args, **kwargs):
        def each():
            for t in texts:
                text = t[0] if isinstance(t, tuple) else t
                seen.append(len(text.split()) if isinstance(text, str) else len(text))
                yield t
        return pipe(self, each(), *args, **kwargs)

    monkeypatch.setattr(Language, "pipe", counted)
    return seen


def check_refused(capsys, parsed_lengths, argv, where, out=None):
    assert main([*argv, "--spacy-model", SPACY_MODEL]) == 2
    err = error_line(capsys.readouterr().err, argv[0])
    assert err.startswith(f"peet-fast {argv[0]}: error: {where}: too long to parse: 253,600 tokens, over the limit "
                          f"of 10,000"), err
    assert all(n <= 10_000 for n in parsed_lengths), max(parsed_lengths)      # refused, not parsed
    if out is not None:
        assert not out.exists()
    return err


def test_refused_naming_file_and_line(huge, tmp_path, capsys, parsed_lengths):
    mo, trg = huge
    err = check_refused(capsys, parsed_lengths, ["m2", "-orig", str(mo), "-cor", str(trg), "-out",
                                                 str(tmp_path / "o.m2")], f"{mo}:3", tmp_path / "o.m2")
    assert err.endswith("of 10,000 (--max-line-tokens N raises it, 0 lifts it)"), err     # the flag
    check_refused(capsys, parsed_lengths, ["featurize", "--mo", str(mo), "--trg", str(trg), "--out",
                                           str(tmp_path / "f.parquet")], f"{mo}:3", tmp_path / "f.parquet")
    check_refused(capsys, parsed_lengths, ["score", "--hyp", str(mo), "--ref", str(trg)], f"{mo}:3")
    check_refused(capsys, parsed_lengths, ["compare", "--src", str(trg), "--hyp", str(mo), "--ref", str(trg)],
                  f"{mo}:3")


def test_refused_in_a_sharded_job(huge, tmp_path, capsys, parsed_lengths):
    mo, trg = huge
    pairs = tmp_path / "p.tsv"
    pairs.write_text("mo\ttrg\n" + "".join(f"{m}\t{t}\n" for m, t in zip(mo.read_text("utf-8").splitlines(),
                                                                         trg.read_text("utf-8").splitlines())), "utf-8")
    err = check_refused(capsys, parsed_lengths, ["featurize", "--pairs", str(pairs), "--out", str(tmp_path / "job"),
                                                 "--shard-rows", "2"], f"{pairs}:4")
    assert err.endswith("(shard 1)")


def test_refused_with_ray_workers(huge, tmp_path, capsys):
    pytest.importorskip("ray")
    mo, trg = huge
    argv = ["featurize", "--mo", str(mo), "--trg", str(trg), "--out", str(tmp_path / "job"), "--shard-rows", "2",
            "--workers", "2", "--spacy-model", SPACY_MODEL]
    assert main(argv) == 2
    err = error_line(capsys.readouterr().err, "featurize")     # (among any progress lines of a run over 10 s)
    assert err == (f"peet-fast featurize: error: {mo}:3: too long to parse: 253,600 tokens, over the limit of 10,000 "
                   f"(--max-line-tokens N raises it, 0 lifts it) (shard 1)"), err


def test_byte_limit_and_lifting(tmp_path):
    parser = Parser.__new__(Parser)            # the check alone: no pipeline needed
    parser.max_line_tokens = 10_000
    one_token = "x" * (MAX_LINE_BYTES + 1)
    with pytest.raises(LineTooLong, match=r"1,048,577 bytes, over the limit of 1,048,576 \(`max_line_tokens=0` "
                                          r"lifts it\)$"):     # the library names its parameter, not the flag
        parser.check_length(one_token)
    parser.check_length("x" * MAX_LINE_BYTES)     # at the limit: accepted
    parser.check_length(words(10_000))
    with pytest.raises(LineTooLong, match=r"10,001 tokens, over the limit of 10,000 \(`max_line_tokens=N` raises "
                                          r"it, 0 lifts it\)$"):
        parser.check_length(words(10_001))
    parser.max_line_tokens = 0
    parser.check_length(one_token)
    parser.check_length(words(20_000))


def test_located_as_the_parser_normalises_whitespace():
    with pytest.raises(InputError) as info, lines_located([("a.txt", ["x", "  y   z "]), ("b.txt", ["y z"])], 5,
                                                          " (shard 2)"):
        raise LineTooLong("y z", "too long")
    assert str(info.value) == "b.txt:5: too long (shard 2)"
    with pytest.raises(InputError) as info, lines_located([("t.parquet", ["a", "b"])], None):
        raise LineTooLong("b", "too long")
    assert str(info.value) == "t.parquet: row 1: too long"


def edited(orig: str) -> str:
    """orig with three edits: a replacement at token 100, a deletion in the middle, an insertion near the end."""
    toks = orig.split()
    n = len(toks)
    toks[100] = "cats"
    del toks[n // 2]
    toks.insert(n - 500, "big")
    return " ".join(toks)


def test_lifted_limit_matches_errant(oracle_edits):
    """A line over a (lowered) limit is refused; with the limit lifted it is annotated exactly as errant does."""
    from peet_fast.en import Annotator

    orig = words(1_200, seed=3)
    cor = edited(orig)
    with pytest.raises(LineTooLong, match="1,200 tokens, over the limit of 1,000"):
        Annotator(spacy_model=SPACY_MODEL, max_line_tokens=1_000).annotate(orig, cor)
    ours = [tuple(e) for e in Annotator(spacy_model=SPACY_MODEL, max_line_tokens=0).annotate(orig, cor)]
    assert ours == oracle_edits(orig, cor)
    assert [(e[0], e[2]) for e in ours] == [(100, 100), (600, 600), (701, 700)]


@pytest.mark.slow
def test_lifted_limit_accepts_a_12000_token_line():
    """12,000 tokens (over the default limit): refused by default, annotated with --max-line-tokens 0 (errant
    itself takes far too long on such a pair to serve as the oracle here: its alignment is pure Python)."""
    from peet_fast.en import Annotator

    orig = words(12_000, seed=2)
    cor = edited(orig)
    with pytest.raises(LineTooLong, match="12,000 tokens"):
        Annotator(spacy_model=SPACY_MODEL).annotate(orig, cor)
    edits = Annotator(spacy_model=SPACY_MODEL, max_line_tokens=0).annotate(orig, cor)
    assert [(e.o_start, e.o_end, e.c_start, e.c_end, e.c_str) for e in edits] == [
        (100, 101, 100, 101, "cats"), (6000, 6001, 6000, 6000, ""), (11501, 11501, 11500, 11501, "big")]
