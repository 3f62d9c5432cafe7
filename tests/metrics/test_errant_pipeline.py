"""The one-step paths against errant's two-step pipeline (issue 24): errant_parallel writes M2, errant_compare reads it.

Three edges where they once parted: spaCy's whitespace tokens on an ``S`` line (``m2 -tok``), a correction ending in
``|`` (errant writes ``a |`` then ``|||``, errant_compare reads back ``a ``), and a blank source line (errant_parallel
writes no block for it). Expected values come from errant itself: errant_parallel's own main() run in this process
with the session's errant annotator (the conftest oracle), and errant_compare's compare_m2.main(); the figures
written out below are what those tools printed for the issue's repros."""
from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import SPACY_MODEL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_compare import errant_compare, totals

import peet_fast
from peet_fast.formats.m2 import edit_line, parse_m2, read_back, split_lines

WHITESPACE = ("  ", "\t", "\u2028", "\x0c", "\x85", "\u3000", "\x1c", "\xa0", "\u2009")


@pytest.fixture(scope="module")
def errant_parallel(oracle):
    """errant_parallel(orig, cors, out, tok=False): errant's own parallel_to_m2.main() on files, with errant.load
    returning the session's errant annotator (the same spaCy pipeline as ours)."""
    import errant
    from errant.commands import parallel_to_m2

    def run(orig: Path, cors, out: Path, tok: bool = False) -> Path:
        saved_argv, saved_load = sys.argv, errant.load
        sys.argv = ["errant_parallel", "-orig", str(orig), "-cor", *map(str, cors), "-out", str(out),
                    *(["-tok"] if tok else [])]
        errant.load = lambda lang, nlp=None: oracle
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                parallel_to_m2.main()
        finally:
            sys.argv, errant.load = saved_argv, saved_load
        return out
    return run


def write(path: Path, lines) -> Path:
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8"))
    return path


def ours(run_cli, *argv: str) -> tuple[int, str, str]:
    return run_cli(*argv)


def our_m2(run_cli, orig: Path, cors, out: Path, tok: bool = False) -> Path:
    rc, _, err = ours(run_cli, "m2", "-orig", str(orig), "-cor", *map(str, cors), "-out", str(out),
                      "--spacy-model", SPACY_MODEL, *(["-tok"] if tok else []))
    assert rc == 0, err
    return out


# --- 1. whitespace tokens on the S line (m2 -tok) ---------------------------------------------------------------------

def test_issue_repro_two_spaces(tmp_path, run_cli, errant_parallel):
    orig = write(tmp_path / "o.txt", ["This  is bad ."])
    cor = write(tmp_path / "c.txt", ["This is bad !"])
    theirs = errant_parallel(orig, [cor], tmp_path / "e.m2", tok=True)
    mine = our_m2(run_cli, orig, [cor], tmp_path / "p.m2", tok=True)
    assert mine.read_bytes() == theirs.read_bytes() == ("S This   is bad .\n"
                                                        "A 1 2|||U:SPACE||||||REQUIRED|||-NONE-|||0\n"
                                                        "A 4 5|||R:PUNCT|||!|||REQUIRED|||-NONE-|||0\n\n").encode()
    expected = errant_compare(theirs, theirs)
    assert totals(expected)[:3] == (2, 0, 0)                      # errant_compare's figures
    assert ours(run_cli, "compare", "-hyp", str(mine), "-ref", str(mine))[1] == expected
    rc, out, _ = ours(run_cli, "compare", "--src", str(orig), "--hyp", str(cor), "--ref", str(cor), "-tok",
                      "--spacy-model", SPACY_MODEL)
    assert rc == 0 and out == expected
    text = mine.read_text("utf-8")
    assert peet_fast.compare(text, text).summary()["TP"] == 2
    rc, out, err = ours(run_cli, "compare", "--metric", "cleme", "-hyp", str(mine), "-ref", str(mine))
    assert rc == 2 and out == "" and "p.m2:1" in err and "whitespace" in err     # CLEME cannot place the span


@pytest.mark.parametrize("ws", WHITESPACE, ids=ascii)
def test_whitespace_tokens_every_path(tmp_path, run_cli, errant_parallel, ws):
    orig = write(tmp_path / "o.txt", [f"This{ws}is bad .", f"It is{ws} ok ."])
    hyp = write(tmp_path / "h.txt", ["This is bad !", f"It is{ws}{ws}ok ."])
    ref = write(tmp_path / "r.txt", ["This is bad !", "It is ok !"])
    e_hyp = errant_parallel(orig, [hyp], tmp_path / "eh.m2", tok=True)
    e_ref = errant_parallel(orig, [ref], tmp_path / "er.m2", tok=True)
    p_hyp = our_m2(run_cli, orig, [hyp], tmp_path / "ph.m2", tok=True)
    p_ref = our_m2(run_cli, orig, [ref], tmp_path / "pr.m2", tok=True)
    assert (p_hyp.read_bytes(), p_ref.read_bytes()) == (e_hyp.read_bytes(), e_ref.read_bytes())
    for flags in ([], ["-dt"], ["-cse", "-cat", "3"], ["-single"]):
        expected = errant_compare(e_hyp, e_ref, "-v", *flags)
        assert ours(run_cli, "compare", "-hyp", str(p_hyp), "-ref", str(p_ref), "-v", *flags)[1] == expected
        rc, out, _ = ours(run_cli, "compare", "--src", str(orig), "--hyp", str(hyp), "--ref", str(ref), "-tok", "-v",
                          *flags, "--spacy-model", SPACY_MODEL)
        assert rc == 0 and out == expected
    result = peet_fast.compare(p_hyp.read_text("utf-8"), p_ref.read_text("utf-8"))
    assert (result.tp, result.fp, result.fn) == totals(errant_compare(e_hyp, e_ref))[:3]


def test_s_line_tokens_bound_spans(tmp_path, run_cli):
    """'S This   is bad .' may hold 6 tokens (split on single spaces): span 5 6 is read, 6 7 is refused."""
    block = "S This   is bad .\nA 5 6|||R:PUNCT|||!|||REQUIRED|||-NONE-|||0\n"
    assert parse_m2(split_lines(block))[0].edits[0][:4] == (5, 6, "R:PUNCT", "!")
    bad = tmp_path / "bad.m2"
    bad.write_text(block.replace("5 6", "6 7"), "utf-8")
    rc, _, err = ours(run_cli, "compare", "-hyp", str(bad), "-ref", str(bad))
    assert rc == 2 and "bad.m2:2" in err and "6 7" in err


def test_m2_text_lines_split_at_newlines_only():
    text = "S a\u2028b\x85c\x1cd\x0ce .\r\nA 0 1|||R:X|||z|||REQUIRED|||-NONE-|||0\r\n\r\n"
    assert split_lines(text) == ["S a\u2028b\x85c\x1cd\x0ce .", "A 0 1|||R:X|||z|||REQUIRED|||-NONE-|||0", ""]
    assert len(parse_m2(split_lines(text))) == 1


# --- 2. a correction ending in '|' ------------------------------------------------------------------------------------

@pytest.mark.parametrize("cor", ["a |", "a ||", "a |||", "|", "| a", "||| a", "a | b", "|| |||", "x"])
def test_read_back_is_what_errant_compare_reads(cor):
    from errant.commands.compare_m2 import simplify_edits

    line = edit_line(2, 2, "M:OTHER", cor, 3)
    (start, end, cat, got, coder), = simplify_edits(f"S I like it .\n{line}")
    assert (start, end, cat, coder) == (2, 2, "M:OTHER", 3)
    assert read_back("M:OTHER", cor) == got
    edit = parse_m2(["S I like it .", line])[0].edits[0]
    assert (edit.cor, edit.annotator) == (got, 3)


@pytest.mark.parametrize("flags,figures", [([], (1, 0, 0)), (["-single"], (1, 0, 0)), (["-multi"], (0, 0, 0))])
@pytest.mark.parametrize("pipes", ["|", "|||"])
def test_issue_repro_trailing_pipe(tmp_path, run_cli, errant_parallel, flags, figures, pipes):
    src = write(tmp_path / "s.txt", ["I like it ."])
    hyp = write(tmp_path / "h.txt", [f"I like a {pipes} it ."])
    e_m2 = errant_parallel(src, [hyp], tmp_path / "e.m2")
    p_m2 = our_m2(run_cli, src, [hyp], tmp_path / "p.m2")
    assert p_m2.read_bytes() == e_m2.read_bytes()
    assert f"|||a {pipes}|||REQUIRED".encode() in e_m2.read_bytes()
    expected = errant_compare(e_m2, e_m2, *flags)
    assert totals(expected)[:3] == figures                         # what errant_compare printed
    assert ours(run_cli, "compare", "-hyp", str(p_m2), "-ref", str(p_m2), *flags)[1] == expected
    rc, out, _ = ours(run_cli, "compare", "--src", str(src), "--hyp", str(hyp), "--ref", str(hyp), *flags,
                      "--spacy-model", SPACY_MODEL)
    assert rc == 0 and out == expected
    other = write(tmp_path / "h2.txt", [f"I like a {pipes} it ."])
    rc, out, _ = ours(run_cli, "agreement", "--src", str(src), "--ref", str(hyp), str(other), *flags,
                      "--spacy-model", SPACY_MODEL)
    assert rc == 0
    rows = [line.split() for line in out.splitlines()[1:3]]
    assert [tuple(map(int, r[2:5])) for r in rows] == [figures, figures]
    opts = {"single": "-single" in flags, "multi": "-multi" in flags}
    lines = [f"I like a {pipes} it ."]
    api = peet_fast.compare(lines, [lines], src=["I like it ."], spacy_model=SPACY_MODEL, **opts)
    assert (api.tp, api.fp, api.fn) == figures
    text = p_m2.read_text("utf-8")
    api = peet_fast.compare(text, text, **opts)
    assert (api.tp, api.fp, api.fn) == figures


def test_edits_api_keeps_the_true_correction():
    """peet_fast.edits is errant's Annotator.annotate: the correction's tokens, '|' included (only the scorers read
    it back as errant_compare does)."""
    ann, = peet_fast.edits(["I like it ."], ["I like a | it ."], spacy_model=SPACY_MODEL)[0]
    assert [tuple(e) for e in ann.alignments[0]] == [(2, 2, "M:OTHER", "a |")]


def test_zh_trailing_pipe_read_as_cherrant_reads(tmp_path, run_cli):
    """ChERRANT's compare reads an A line as errant_compare does, then removes the spaces of the correction: the
    hypothesis's insertion, written 'x |' (line '...|||M|||x ||||REQUIRED...'), is read as 'x ' -> 'x', the
    reference's 'x' -> 'x': one TP (hand-computed from ChERRANT's simplify_edits), on M2 and from parallel files."""
    from conftest import FIXTURES

    res = ("--cilin", str(FIXTURES / "zh" / "cilin.txt"), "--confusion", str(FIXTURES / "zh" / "confusion.txt"))
    hyp, ref = tmp_path / "h.para", tmp_path / "r.para"
    hyp.write_text("1\t他很好。\t他很好x|。\n", "utf-8")
    ref.write_text("1\t他很好。\t他很好x。\n", "utf-8")
    for para in (hyp, ref):
        rc, _, err = ours(run_cli, "m2", "--lang", "zh", "-para", str(para), "-out", str(para.with_suffix(".m2")), *res)
        assert rc == 0, err
    assert "A 3 3|||M|||x ||||REQUIRED|||-NONE-|||0" in hyp.with_suffix(".m2").read_text("utf-8")
    rc, out, _ = ours(run_cli, "compare", "--lang", "zh", "-hyp", str(hyp.with_suffix(".m2")),
                      "-ref", str(ref.with_suffix(".m2")))
    assert rc == 0 and totals(out)[:3] == (1, 0, 0)
    rc, out2, _ = ours(run_cli, "compare", "--lang", "zh", "--para", "--hyp", str(hyp), "--ref", str(ref), *res)
    assert rc == 0 and out2 == out
    rc, _, err = ours(run_cli, "compare", "--lang", "zh", "-hyp", str(hyp.with_suffix(".m2")),
                      "-ref", str(ref.with_suffix(".m2")), "-v")
    assert rc == 0 and err.count("ChERRANT's own -v layout differs") == 1     # the departure, said once


# --- 3. a blank source line -------------------------------------------------------------------------------------------

def test_issue_repro_blank_source_line(tmp_path, run_cli, errant_parallel):
    src = write(tmp_path / "src.txt", ["", "This are good ."])
    a = write(tmp_path / "a.txt", ["Hello .", "This is good ."])
    b = write(tmp_path / "b.txt", ["Hi there .", "This is good ."])
    rc, out, err = ours(run_cli, "agreement", "--src", str(src), "--ref", str(a), str(b), "--spacy-model", SPACY_MODEL)
    assert rc == 0 and "1 blank source line not scored" in err and "src.txt:1" in err
    rows = [line.split() for line in out.splitlines()[1:3]]
    # errant_parallel + errant_compare: TP 1 FP 0 FN 0, F0.5 1.0 for each set
    assert [r[2:] for r in rows] == [["1", "0", "0", "1.0000", "1.0000", "1.0000"]] * 2
    for hyp, ref in ((a, b), (b, a)):
        e_hyp = errant_parallel(src, [hyp], tmp_path / "eh.m2")
        e_ref = errant_parallel(src, [ref], tmp_path / "er.m2")
        expected = errant_compare(e_hyp, e_ref, "-v")
        assert totals(expected)[:3] == (1, 0, 0)
        rc, out, _ = ours(run_cli, "compare", "--src", str(src), "--hyp", str(hyp), "--ref", str(ref), "-v",
                          "--spacy-model", SPACY_MODEL)
        assert rc == 0 and out == expected
        p_hyp = our_m2(run_cli, src, [hyp], tmp_path / "ph.m2")
        p_ref = our_m2(run_cli, src, [ref], tmp_path / "pr.m2")
        assert ours(run_cli, "compare", "-hyp", str(p_hyp), "-ref", str(p_ref))[1] == errant_compare(e_hyp, e_ref)
        api = peet_fast.compare(read_lines(hyp), [read_lines(ref)], src=read_lines(src), spacy_model=SPACY_MODEL)
        assert (api.tp, api.fp, api.fn) == (1, 0, 0)


def read_lines(path: Path) -> list[str]:
    return path.read_text("utf-8").split("\n")[:-1]


def test_every_source_line_blank(tmp_path, run_cli, errant_parallel):
    """errant_parallel writes two empty M2 files, which errant_compare reads as one empty sentence."""
    src = write(tmp_path / "s.txt", ["", "  "])
    hyp = write(tmp_path / "h.txt", ["A .", "B ."])
    e_m2 = errant_parallel(src, [hyp], tmp_path / "e.m2")
    assert e_m2.read_bytes() == b""
    expected = errant_compare(e_m2, e_m2, "-v")
    rc, out, _ = ours(run_cli, "compare", "--src", str(src), "--hyp", str(hyp), "--ref", str(hyp), "-v",
                      "--spacy-model", SPACY_MODEL)
    assert rc == 0 and out == expected


# --- property: generated text round-trips through both pipelines ----------------------------------------------------

WORDS = ("I", "like", "it", "a", "the", "cat", "is", "are", ".", ",", "!", "|", "||", "|||", "a|", "Hello")
SEPARATORS = (" ", " ", " ", "  ", "\t", "\u3000", "\xa0", "\u2009", "\x0c", "\x85", "\u2028", "\x1c")


@st.composite
def sentence(draw, blank_ok: bool):
    if blank_ok and draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(("", " ", "\u3000")))
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6))
    seps = [draw(st.sampled_from(SEPARATORS)) for _ in words[1:]]
    return "".join(w + s for w, s in zip(words, seps)) + words[-1]


@st.composite
def corpus(draw):
    """SRC, a hypothesis and one or two references (each a variant of its source line: words replaced, added,
    dropped; sometimes blank), with whitespace runs, '|' tokens and blank lines."""
    n = draw(st.integers(1, 4))
    src = [draw(sentence(True)) for _ in range(n)]

    def variant(line):
        if draw(st.integers(0, 2)) == 0:
            return draw(sentence(True))
        toks = line.split() or ["Hello"]
        k = draw(st.integers(0, len(toks) - 1))
        op = draw(st.sampled_from(("sub", "ins", "del", "same")))
        if op == "sub":
            toks[k] = draw(st.sampled_from(WORDS))
        elif op == "ins":
            toks.insert(k, draw(st.sampled_from(WORDS)))
        elif op == "del" and len(toks) > 1:
            del toks[k]
        return draw(st.sampled_from(SEPARATORS)).join(toks)

    hyp = [variant(s) for s in src]
    refs = [[variant(s) for s in src] for _ in range(draw(st.integers(1, 2)))]
    return src, hyp, refs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=corpus(), tok=st.booleans(), mode=st.sampled_from(("cs", "cse", "ds", "dt")),
       opts=st.sampled_from(([], ["-single"], ["-multi"], ["-cat", "3"])))
def test_round_trip_equals_errant_pipeline(run_cli, errant_parallel, data, tok, mode, opts):
    """compare on m2's output == compare --src on the text == errant_parallel + errant_compare (the report byte for
    byte; with --src also -v's, sentence numbers included)."""
    src, hyp, refs = data
    flags = ["-" + mode, *opts]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        s, h = write(d / "src.txt", src), write(d / "hyp.txt", hyp)
        r = [write(d / f"ref{j}.txt", ref) for j, ref in enumerate(refs)]
        e_hyp = errant_parallel(s, [h], d / "eh.m2", tok)
        e_ref = errant_parallel(s, r, d / "er.m2", tok)
        tok_flag = ["-tok"] if tok else []
        p_hyp = our_m2(run_cli, s, [h], d / "ph.m2", tok)
        p_ref = our_m2(run_cli, s, r, d / "pr.m2", tok)
        expected = errant_compare(e_hyp, e_ref, *flags)
        rc, out, err = ours(run_cli, "compare", "-hyp", str(p_hyp), "-ref", str(p_ref), *flags)
        assert rc == 0, err
        assert out == expected
        rc, out, err = ours(run_cli, "compare", "--src", str(s), "--hyp", str(h), "--ref", *map(str, r), "-v", *flags,
                            *tok_flag, "--spacy-model", SPACY_MODEL)
        assert rc == 0, err
        assert out == errant_compare(e_hyp, e_ref, "-v", *flags)
