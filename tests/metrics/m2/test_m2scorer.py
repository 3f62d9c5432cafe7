"""`peet-fast m2scorer` and the m2 metric against the official NUS m2scorer 3.2.

Expected outputs are the official scorer's own stdout (tests/fixtures/m2scorer/*.out, made by RUNNING it: see
make.py there); the differential tests run the official script itself when PEET_FAST_M2SCORER names its
scripts/m2scorer.py and a Python 2 is found (PEET_FAST_PYTHON2, default `python2`), and skip otherwise."""
from __future__ import annotations

import gzip
import os
import random
import shutil
import subprocess
import sys

import numpy as np
import pytest

from peet_fast.cli import main
from tests.conftest import FIXTURES

HERE = FIXTURES / "m2scorer"
sys.path.insert(0, str(HERE))
from make import CONFIGS  # noqa: E402

sys.path.remove(str(HERE))


def expected(name: str) -> bytes:
    path = HERE / f"{name}.out"
    if path.exists():
        return path.read_bytes()
    return gzip.decompress((HERE / f"{name}.out.gz").read_bytes())


def run_cli(capsysbinary, *args: str) -> tuple[int, bytes, bytes]:
    status = main(["m2scorer", *args])
    out, err = capsysbinary.readouterr()
    return status, out, err


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_output_is_the_officials_byte_for_byte(capsysbinary, name):
    inputs, opts = CONFIGS[name]
    status, out, _ = run_cli(capsysbinary, *opts, str(HERE / f"{inputs}.txt"), str(HERE / f"{inputs}.m2"))
    assert status == 0
    assert out == expected(name)


def _report_rows(report: str) -> tuple[list[tuple[int, int, int]], list]:
    """Per sentence the chosen annotator's (correct, proposed, gold) and the annotator, from the official -v report
    (its cumulative counts per annotator block)."""
    rows, chosen = [], []
    total = (0, 0, 0)
    blocks: dict[str, tuple[int, int, int]] = {}
    ann = None
    for line in report.splitlines():
        if line.startswith(">> Annotator:"):
            ann = line.split(":")[1].strip()
            counts = []
        elif line.startswith("# "):
            counts.append(int(line.split(":")[1]))
            if len(counts) == 3:
                blocks[ann] = tuple(counts)
        elif line.startswith(">> Chosen Annotator"):
            c = line.rsplit(":", 1)[1].strip()
            cum = blocks[c]
            rows.append(tuple(a - b for a, b in zip(cum, total)))
            chosen.append(int(c))
            total = cum
            blocks = {}
    return rows, chosen


@pytest.mark.parametrize("inputs", ["cases", "multi", "gen"])
def test_metric_stats_are_the_officials_choice(inputs):
    from peet_fast.metrics.base import EvalSet, get_metric
    from peet_fast.metrics.m2 import py2_str

    report = expected(f"{inputs}.v").decode("utf-8")
    rows, chosen = _report_rows(report)
    hyp = (HERE / f"{inputs}.txt").read_text(encoding="utf-8").split("\n")[:-1]
    metric = get_metric("m2")
    data = EvalSet(sources=None, references=[], gold_path=str(HERE / f"{inputs}.m2"))
    stats = metric.sentence_stats(hyp, data)
    tp, fp, fn = stats[:, 0], stats[:, 1], stats[:, 2]
    assert list(zip(tp.tolist(), (tp + fp).tolist(), (tp + fn).tolist())) == rows
    f_line = [line for line in report.splitlines() if line.startswith("F_0.5 = ")][0]
    assert f_line == "F_0.5 = " + py2_str(metric.corpus_score(stats))
    idx = np.array([[0] * len(hyp), list(range(len(hyp)))])
    boot = metric.bootstrap(stats, idx)
    assert boot[1] == metric.corpus_score(stats)
    assert boot[0] == metric.corpus_score(stats[[0] * len(hyp)])


def test_api_m2score():
    import peet_fast

    hyp = (HERE / "multi.txt").read_text(encoding="utf-8").splitlines()
    text = (HERE / "multi.m2").read_text(encoding="utf-8")
    rows, chosen = _report_rows(expected("multi.v").decode("utf-8"))
    for gold in (str(HERE / "multi.m2"), text):
        res = peet_fast.m2score(hyp, gold)
        summary = expected("multi.v").decode("utf-8").splitlines()[-3:]
        assert [f"Precision   : {res.precision:.4f}", f"Recall      : {res.recall:.4f}",
                f"F_0.5       : {res.f:.4f}"] == summary
        assert res.annotators == chosen
        assert [tuple(r) for r in np.stack([res.stats[:, 0], res.stats[:, 0] + res.stats[:, 1],
                                            res.stats[:, 0] + res.stats[:, 2]], 1).tolist()] == rows


def test_bounded_search_agrees_with_the_official(monkeypatch):
    """The search used on lattices too large for the official's (more than MAX_VERTICES vertices), forced on every
    sentence of the generated set: the official's figures still."""
    import peet_fast.metrics.m2 as m2
    import peet_fast.metrics.m2.search as search

    monkeypatch.setattr(search, "MAX_VERTICES", 0)          # where the lattice reads it (not the re-export)
    assert not search._Sentence("a b", "a c", 2).lattice.exact
    hyp = (HERE / "gen.txt").read_text(encoding="utf-8").split("\n")[:-1]
    res = m2.score_corpus(hyp, m2.read_gold(str(HERE / "gen.m2")))
    rows, _ = _report_rows(expected("gen.v").decode("utf-8"))
    got = list(zip(res.stats[:, 0].tolist(), (res.stats[:, 0] + res.stats[:, 1]).tolist(),
                   (res.stats[:, 0] + res.stats[:, 2]).tolist()))
    assert got == rows


CLAUSE = "he said that the results were good and that we".split()


@pytest.mark.parametrize("gold_edit, expect", [
    # the hypothesis is the source followed by 39 more copies: the gold inserts them at the end -> 1 of 1 correct
    (f"A 10 10|||Rloc+|||{' '.join(CLAUSE * 39)}|||REQUIRED|||-NONE-|||0", (1.0, 1.0, 1.0)),
    # ... or at the start (the same tokens)
    (f"A 0 0|||Rloc+|||{' '.join(CLAUSE * 39)}|||REQUIRED|||-NONE-|||0", (1.0, 1.0, 1.0)),
    # no gold edit: the fewest edits covering the 390 extra tokens is one insertion -> P 0/1, R 0/0 = 1, F 0
    ("A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0", (0.0, 1.0, 0.0)),
])
def test_repeated_clause_400_tokens(gold_edit, expect):
    """A 400-token hypothesis repeating one clause 40 times (the official runs for hours on such lattices; the
    answers are hand-computed): it completes, with those answers."""
    from peet_fast.metrics.m2 import m2score

    gold = f"S {' '.join(CLAUSE)}\n{gold_edit}\n\n"
    res = m2score([" ".join(CLAUSE * 40)], gold)
    assert (res.precision, res.recall, res.f) == expect


def test_repeated_clause_short_source():
    """400 repeated tokens against a 7-token source with two gold edits: both found (as one more edit inserting
    the rest), so 2 correct of 3 proposed (hand-computed)."""
    from peet_fast.metrics.m2 import m2score

    src = "he said the result were good ."
    gold = (f"S {src}\nA 2 2|||Wform|||that|||REQUIRED|||-NONE-|||0\nA 3 4|||Nn|||results|||REQUIRED|||-NONE-|||0\n\n")
    hyp = "he said that the results were good . " + " ".join(CLAUSE * 39)
    res = m2score([hyp], gold)
    assert res.stats.tolist() == [[2, 1, 0]]


# ------------------------------------------------------------------------------------------------------------------
# bad input: one line naming the file (and line), exit 2


def _bad(capsysbinary, tmp_path, gold_text: str, hyp_text: str) -> tuple[int, str]:
    gold = tmp_path / "gold.m2"
    hyp = tmp_path / "hyp.txt"
    gold.write_text(gold_text, encoding="utf-8")
    hyp.write_text(hyp_text, encoding="utf-8")
    status, out, err = run_cli(capsysbinary, str(hyp), str(gold))
    assert out == b""
    lines = err.decode().splitlines()
    assert len(lines) == 1, lines
    return status, lines[0]


def test_bad_line_count(capsysbinary, tmp_path):
    status, line = _bad(capsysbinary, tmp_path, "S a b\n\nS c d\n\n", "a b\n")
    assert status == 2
    assert "hyp.txt: 1 line, but the gold" in line and "2 sentences" in line


@pytest.mark.parametrize("a_line, what", [
    ("A 0 1|||X|||y|||REQUIRED", "6 '|||'-separated fields"),
    ("A zero 1|||X|||y|||REQUIRED|||-NONE-|||0", "bad start offset"),
    ("A 0|||X|||y|||REQUIRED|||-NONE-|||0", "bad span"),
    ("A 0 1|||X|||y|||REQUIRED|||-NONE-|||first", "bad annotator id"),
    ("B 0 1|||X|||y|||REQUIRED|||-NONE-|||0", "unexpected line"),
])
def test_malformed_m2_line(capsysbinary, tmp_path, a_line, what):
    status, line = _bad(capsysbinary, tmp_path, f"S a b\n\nS c d\n{a_line}\n\n", "a b\nc d\n")
    assert status == 2
    assert line.startswith("peet-fast m2scorer: error: ") and "gold.m2:4: " in line and what in line


def test_block_without_s_line(capsysbinary, tmp_path):
    status, line = _bad(capsysbinary, tmp_path, "S a b\n\nA 0 1|||X|||y|||REQUIRED|||-NONE-|||0\n\n", "a b\nc\n")
    assert status == 2 and "gold.m2:3: " in line


def test_missing_file(capsysbinary, tmp_path):
    status, out, err = run_cli(capsysbinary, str(tmp_path / "nope.txt"), str(HERE / "multi.m2"))
    assert status == 2 and out == b""
    assert err.decode().splitlines() == [f"peet-fast m2scorer: error: {tmp_path / 'nope.txt'}: no such file"]


# ------------------------------------------------------------------------------------------------------------------
# differential: the official script itself


def _official() -> tuple[str, str] | None:
    script = os.environ.get("PEET_FAST_M2SCORER")
    python2 = shutil.which(os.environ.get("PEET_FAST_PYTHON2", "python2"))
    if not script or not os.path.exists(script) or not python2:
        return None
    return python2, script


def _run_official(tmp_path, hyp: list[str], gold: str, opts: list[str]) -> bytes:
    python2, script = _official()
    (tmp_path / "h.txt").write_text("\n".join(hyp) + "\n", encoding="utf-8")
    (tmp_path / "g.m2").write_text(gold, encoding="utf-8")
    return subprocess.run([python2, script, *opts, str(tmp_path / "h.txt"), str(tmp_path / "g.m2")],
                          capture_output=True, check=True, timeout=600).stdout


@pytest.mark.skipif(_official() is None, reason="official m2scorer not found (set PEET_FAST_M2SCORER)")
@pytest.mark.parametrize("seed", range(int(os.environ.get("PEET_FAST_M2_SEEDS", "4"))))
def test_differential_random(capsysbinary, tmp_path, seed):
    """Random sentences over a tiny vocabulary (many tied alignments, repeated tokens) with random gold edits and
    two annotators: the -v report equals the official's, under random options."""
    rng = random.Random(seed)
    vocab = "a b c the of , .".split()
    blocks, hyps = [], []
    for _ in range(25):
        src = [rng.choice(vocab) for _ in range(rng.randint(0, 9))]
        hyp = list(src)
        for _ in range(rng.randint(0, 4)):
            i = rng.randint(0, len(hyp))
            op = rng.choice("dis")
            if op == "d" and i < len(hyp):
                del hyp[i]
            elif op == "i":
                hyp.insert(i, rng.choice(vocab))
            elif i < len(hyp):
                hyp[i] = rng.choice(vocab)
        lines = ["S " + " ".join(src)]
        for ann in range(rng.randint(1, 2)):
            for _ in range(rng.randint(0, 3)):
                s = rng.randint(0, len(src))
                e = min(len(src), s + rng.randint(0, 2))
                cor = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 2))) or "-NONE-"
                if s == e and cor == "-NONE-":
                    cor = "a"
                lines.append(f"A {s} {e}|||X|||{cor}|||REQUIRED|||-NONE-|||{ann}")
        blocks.append("\n".join(lines) + "\n")
        hyps.append(" ".join(hyp))
    gold = "\n".join(blocks) + "\n"
    opts = ["-v", "--max_unchanged_words", str(rng.randint(0, 3))] + (["--ignore_whitespace_casing"] if seed % 2 else [])
    official = _run_official(tmp_path, hyps, gold, opts)
    status, out, _ = run_cli(capsysbinary, *opts, str(tmp_path / "h.txt"), str(tmp_path / "g.m2"))
    assert status == 0
    assert out == official


@pytest.mark.skipif(_official() is None, reason="official m2scorer not found (set PEET_FAST_M2SCORER)")
def test_differential_fixtures(capsysbinary):
    """The fixtures' inputs through the official script now (guards against stale fixtures)."""
    python2, script = _official()
    for name in ("cases.v", "multi.v"):
        inputs, opts = CONFIGS[name]
        res = subprocess.run([python2, script, *opts, str(HERE / f"{inputs}.txt"), str(HERE / f"{inputs}.m2")],
                             capture_output=True, check=True, timeout=600)
        assert res.stdout == expected(name)


# ------------------------------------------------------------------------------------------------------------------
# properties (hand-derived from the official's definition, no oracle needed)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.lists(st.sampled_from("a b c d the of , . x y".split()), min_size=0, max_size=14)


@settings(max_examples=60, deadline=None)
@given(src=_WORDS, n_gold=st.integers(0, 3), mu=st.integers(0, 3))
def test_unchanged_hypothesis_proposes_nothing(src, n_gold, mu):
    """An unchanged sentence has one alignment (all tokens kept): no edit is proposed, every gold edit is missed."""
    from peet_fast.metrics.m2 import m2score

    lines = [f"S {' '.join(src)}"] + [f"A 0 {min(1, len(src))}|||X|||zz{k}|||REQUIRED|||-NONE-|||0"
                                      for k in range(n_gold)]
    res = m2score([" ".join(src)], "\n".join(lines) + "\n\n", max_unchanged_words=mu)
    assert res.stats.tolist() == [[0, 0, n_gold]]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 30), picks=st.sets(st.integers(0, 29), max_size=6), mu=st.integers(0, 3))
def test_applied_gold_substitutions_are_all_found(n, picks, mu):
    """Distinct source tokens, the gold replaces some non-adjacent ones by new tokens, the hypothesis applies
    exactly those: each gold edit is a lattice edge weighted -len(E), so all are found and nothing else: P = R = 1."""
    from peet_fast.metrics.m2 import m2score

    src = [f"w{i}" for i in range(n)]
    chosen = sorted(p for p in picks if p < n)
    chosen = [p for k, p in enumerate(chosen) if k == 0 or p - chosen[k - 1] > 1]
    hyp = [f"new{i}" if i in chosen else t for i, t in enumerate(src)]
    gold = "\n".join([f"S {' '.join(src)}"] + [f"A {p} {p + 1}|||X|||new{p}|||REQUIRED|||-NONE-|||0"
                                               for p in chosen]) + "\n\n"
    res = m2score([" ".join(hyp)], gold, max_unchanged_words=mu)
    assert res.stats.tolist() == [[len(chosen), 0, 0]]
    assert (res.precision, res.recall) == (1.0, 1.0)


def test_very_verbose_prints_the_v_report_and_long_options_abbreviate(capsysbinary):
    """--very_verbose gives the -v report (documented departure: no lattice dumps); getopt-style unique prefixes
    of the long options are accepted, as by the official's getopt."""
    status, out, _ = run_cli(capsysbinary, "--very_verbose", str(HERE / "cases.txt"), str(HERE / "cases.m2"))
    assert status == 0 and out == expected("cases.v")
    status, out, _ = run_cli(capsysbinary, "-v", "--max_unchanged", "1", str(HERE / "cases.txt"),
                             str(HERE / "cases.m2"))
    assert status == 0 and out == expected("cases.mu1")


def test_metric_from_strict_reader_blocks():
    """An EvalSet holding blocks of peet_fast.formats.m2 (no gold_path) gives the same statistics."""
    from peet_fast.formats.m2 import read_m2
    from peet_fast.metrics.base import EvalSet, get_metric

    hyp = (HERE / "gen.txt").read_text(encoding="utf-8").split("\n")[:-1]
    metric = get_metric("m2")
    by_path = metric.sentence_stats(hyp, EvalSet(None, [], gold_path=str(HERE / "gen.m2")))
    by_blocks = metric.sentence_stats(hyp, EvalSet(None, [], gold=read_m2(str(HERE / "gen.m2"))))
    assert by_blocks.tolist() == by_path.tolist()


def test_gzipped_inputs_as_the_officials_smart_open(capsysbinary, tmp_path):
    """Files whose names end in .gz are read decompressed (the official's smart_open)."""
    (tmp_path / "g.m2.gz").write_bytes(gzip.compress((HERE / "multi.m2").read_bytes()))
    (tmp_path / "h.txt.gz").write_bytes(gzip.compress((HERE / "multi.txt").read_bytes()))
    status, out, _ = run_cli(capsysbinary, "-v", str(tmp_path / "h.txt.gz"), str(tmp_path / "g.m2.gz"))
    assert status == 0 and out == expected("multi.v")
