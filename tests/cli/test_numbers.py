"""Numbers that are not numbers, or too large to hold: refused in one line (exit 2), or computed in bounded memory.

- m2scorer: --beta must be finite and at least 0, --max_unchanged_words at least 0 (a value past the sentence
  length is the sentence length: no edit holds more unchanged tokens than the source has);
- gleu: --iter at most MAX_ITERATIONS; the iterations are drawn and summed in chunks (DRAW_CELLS draws at once),
  so a large legal count runs in memory that does not grow with it;
- rank / report: --bootstrap at most MAX_RESAMPLES (the resamples' figures are kept, B x systems per metric; the
  resamples themselves are drawn in blocks)."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from peet_fast.cli import main
from tests.conftest import FIXTURES

M2 = FIXTURES / "m2scorer"


def _one_line(capsys, *parts):
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    for part in parts:
        assert part in err, err


# --- m2scorer ------------------------------------------------------------------------------------------------------

def _status(argv) -> int:
    """main's exit status, argparse's refusals (SystemExit) included."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


@pytest.mark.parametrize("beta", ["nan", "inf", "-inf", "-1", "-0.5", "1e999"])
def test_m2scorer_refuses_a_beta_that_is_not_a_weight(capsys, beta):
    """Not finite (nan, inf, 1e999) or negative: refused by m2scorer's own check, naming --beta."""
    assert _status(["m2scorer", f"--beta={beta}", str(M2 / "cases.txt"), str(M2 / "cases.m2")]) == 2
    _one_line(capsys, "--beta: ", beta if beta != "1e999" else "inf")


def test_m2scorer_refuses_a_negative_max_unchanged_words(capsys):
    assert main(["m2scorer", "--max_unchanged_words", "-1", str(M2 / "cases.txt"), str(M2 / "cases.m2")]) == 2
    _one_line(capsys, "--max_unchanged_words: ")


def test_m2scorer_beta_zero_is_precision(capsys):
    """F_0 is the precision (the official's formula with beta = 0)."""
    assert main(["m2scorer", "--beta", "0", str(M2 / "cases.txt"), str(M2 / "cases.m2")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Precision") and lines[2].startswith("F_0.0")
    assert lines[0].split(":")[1] == lines[2].split(":")[1]


def test_m2scorer_max_unchanged_words_past_any_sentence_is_the_sentence_length(capsysbinary):
    """A huge --max_unchanged_words (past the C int the lattice takes) gives what any value past the longest source
    sentence gives: no edit can hold more unchanged tokens than its sentence has."""
    outs = []
    for mu in ("1000", str(10 ** 12)):
        assert main(["m2scorer", "-v", "--max_unchanged_words", mu, str(M2 / "gen.txt"), str(M2 / "gen.m2")]) == 0
        outs.append(capsysbinary.readouterr().out)
    assert outs[0] == outs[1] and b"F_0.5" in outs[0]


def test_m2score_api_refuses_bad_numbers():
    from peet_fast import m2score
    from peet_fast.io import InputError

    gold = (M2 / "cases.m2").read_text(encoding="utf-8")
    hyp = (M2 / "cases.txt").read_text(encoding="utf-8").split("\n")[:-1]
    with pytest.raises(InputError, match="beta"):
        m2score(hyp, gold, beta=float("nan"))
    with pytest.raises(InputError, match="max_unchanged_words"):
        m2score(hyp, gold, max_unchanged_words=-2)


# --- gleu ------------------------------------------------------------------------------------------------------------

def test_gleu_refuses_iterations_over_the_bound(tmp_path, capsys):
    from peet_fast.metrics.gleu import MAX_ITERATIONS

    (tmp_path / "s.txt").write_text("a b\n")
    (tmp_path / "r.txt").write_text("a c\n")
    base = ["gleu", "-s", str(tmp_path / "s.txt"), "-r", str(tmp_path / "r.txt"), str(tmp_path / "s.txt"), "-o",
            str(tmp_path / "s.txt"), "--iter"]
    assert main(base + ["100000000"]) == 2
    _one_line(capsys, f"--iter: at most {MAX_ITERATIONS:,} iterations")
    assert main(base + [str(MAX_ITERATIONS + 1)]) == 2
    _one_line(capsys, "--iter: ")


def _corpus(n: int, seed: int = 0):
    from peet_fast.metrics import gleu as G

    rng = np.random.default_rng(seed)
    words = [f"w{k}" for k in range(30)]
    sents = [[words[i] for i in rng.integers(0, 30, size=8)] for _ in range(n)]
    src = [" ".join(s) for s in sents]
    refs = [[" ".join(s[:k] + ["x"] + s[k + 1:]) for s, k in zip(sents, rng.integers(0, 8, size=n))]
            for _ in range(2)]
    hyp = [" ".join(s[:3] + ["x"] + s[4:]) for s in sents]
    return G.References(G.tokens_of(src), [G.tokens_of(r) for r in refs]), G.tokens_of(hyp)


def test_gleu_iterations_are_drawn_in_chunks_with_the_same_figures(monkeypatch):
    from peet_fast.metrics import gleu as G
    import peet_fast.metrics.gleu.reference_draws as D

    refs, hyp = _corpus(50)
    whole = G.score_system(refs, hyp, iterations=700, picks=G.draws(refs.n, refs.n_refs, 700))
    monkeypatch.setattr(D, "DRAW_CELLS", 50 * 2 * 64)           # 64 iterations a chunk: 11 chunks
    chunks = list(D.draw_chunks(refs.n, refs.n_refs, 700))
    assert [(lo, hi) for lo, hi, _ in chunks][:2] == [(0, 64), (64, 128)] and chunks[-1][1] == 700
    assert np.array_equal(np.concatenate([p for _, _, p in chunks]), G.draws(refs.n, refs.n_refs, 700))
    chunked = G.score_system(refs, hyp, iterations=700)
    assert chunked.iterations.tolist() == whole.iterations.tolist()
    assert (chunked.score, chunked.std, chunked.low, chunked.high) == (whole.score, whole.std, whole.low, whole.high)


def test_gleu_large_iteration_count_runs_in_bounded_memory():
    """100,000 iterations over 100 sentences and 2 references: all draws at once would be 80 MB (and their 0/1
    selection matrix 160 MB); drawn in chunks the peak stays a small fraction of that."""
    from peet_fast.metrics import gleu as G

    refs, hyp = _corpus(100)
    tracemalloc.start()
    try:
        result = G.score_system(refs, hyp, iterations=100_000, sentences=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.iterations) == 100_000 and 0 < result.score < 1
    assert peak < 40 << 20, f"peak {peak / 2 ** 20:.0f} MiB"


# --- rank / report -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["rank", "report"])
def test_rank_and_report_refuse_resamples_over_the_bound(tmp_path, capsys, command):
    from peet_fast.metrics.stats import MAX_RESAMPLES

    for name, text in (("a.txt", "a b\nc d\n"), ("b.txt", "a c\nc d\n"), ("r.txt", "a b\nc e\n")):
        (tmp_path / name).write_text(text)
    out = ["--out", str(tmp_path / "rep")] if command == "report" else []
    args = [command, "--metric", "wer", "--hyp", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--ref",
            str(tmp_path / "r.txt"), *out, "--bootstrap"]
    assert main(args + ["1000000000"]) == 2
    _one_line(capsys, f"--bootstrap: at most {MAX_RESAMPLES:,} resamples")
    assert not (tmp_path / "rep").exists()


def test_resamples_at_the_bound_are_drawn_in_blocks():
    from peet_fast.metrics.stats import _BLOCK_CELLS, MAX_RESAMPLES, bootstrap_blocks

    n = 1312
    sizes = [(lo, hi, idx.shape) for lo, hi, idx in bootstrap_blocks(n, MAX_RESAMPLES, 0)]
    assert sizes[0][0] == 0 and sizes[-1][1] == MAX_RESAMPLES
    assert all(shape == (hi - lo, n) and shape[0] * n <= _BLOCK_CELLS for lo, hi, shape in sizes)


# --- one reader of numbers (issue 43, point 2) ---------------------------------------------------------------------
# Every number read from a file or a command-line value goes through peet_fast.io.numbers: ASCII digits only. Python's
# float() and int() also read `1_5` (15), Arabic-Indic and full-width digits (٧٣, ７３: 73) and `nan`: each reader
# below is given such a string and must refuse it in one line naming the file (and line) or the option.

from hypothesis import given, strategies as st  # noqa: E402

from peet_fast.io import InputError, decimal, integer  # noqa: E402

NON_ASCII_DIGITS = "٠١٢٣٤٥٦٧٨٩۳०३০৩੩૩୩௩౩೩൩๓໓༣၃០᠐３𝟑"
BAD = ["1_5", "0_3", "٧٣", "７３", "٣", "1٣", "nan", "inf", "-inf", "Infinity", "0x10", "1,5", "", " ", "1 5",
       "+-1", "١.٥", "1e٣", "²", "½"]


def _weird_numbers():
    digit = st.sampled_from("0123456789")
    odd = st.sampled_from(list(NON_ASCII_DIGITS) + ["_"])
    plain = st.lists(digit, min_size=1, max_size=6).map("".join)
    return st.tuples(st.sampled_from(["", "-"]), plain, odd, plain, st.sampled_from(["", "."])).map(
        lambda t: t[0] + t[1] + t[4] + t[2] + t[3])


@given(_weird_numbers())
def test_any_underscore_or_non_ascii_digit_is_refused_by_the_reader(text):
    assert decimal(text) is None and integer(text) is None


@given(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["r", "e", "f", "g"]))
def test_ascii_decimals_read_as_pythons_float(x, how):
    text = {"r": repr(x), "e": f"{x:e}", "f": f"{x:.6f}", "g": f"{x:g}"}[how]
    assert decimal(text) == float(text)
    assert decimal(f"  {text}\n") == float(text)


@given(st.integers(min_value=-10 ** 30, max_value=10 ** 30))
def test_ascii_integers_read_as_pythons_int(n):
    assert integer(str(n)) == n and integer(f"+{n}" if n >= 0 else str(n)) == n
    assert integer(str(abs(n)), signed=False) == abs(n) and (n <= 0 or integer(f"+{n}", signed=False) is None)


@pytest.mark.parametrize("text", BAD)
def test_the_reader_refuses_what_python_reads_loosely(text):
    assert decimal(text) is None and integer(text) is None


@given(_weird_numbers())
def test_every_file_reader_refuses_such_a_number(text):
    """The human scores CSV, SEEDA's score files, a GoToScorer weight file, an M2 span, a training TSV's time and
    the judgments' src-id and rank: each refuses the string, naming the file (and its line)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        _check_every_reader(Path(d), text)


def _refused(where, call, *parts):
    with pytest.raises(InputError) as err:
        call()
    assert err.value.path == str(where), str(err.value)
    for part in parts:
        assert part in str(err.value)


def _check_every_reader(d, text):
    from peet_fast.evaluation.inputs import read_human_csv
    from peet_fast.formats.m2 import read_m2
    from peet_fast.meta_eval.human.judgments import read_judgments
    from peet_fast.meta_eval.metric.data import _numbers
    from peet_fast.metrics.gotoscorer import read_weight_file

    csv = d / "h.csv"
    csv.write_text(f"system,score\na,0.1\nb,{text}\nc,0.3\n", encoding="utf-8")
    _refused(csv, lambda: read_human_csv(str(csv), ["a", "b", "c"]), ":3:")
    scores = d / "EW_sent.txt"
    scores.write_text(f"0.1\n{text}\n0.3\n", encoding="utf-8")
    _refused(scores, lambda: _numbers(str(scores), 3), ":2:")
    weights = d / "w.txt"
    weights.write_text(f"3\n1 {text} 2\n", encoding="utf-8")
    _refused(weights, lambda: read_weight_file(str(weights), 1), ":2:")
    weights.write_text(f"{text}\n1 0 2\n", encoding="utf-8")
    _refused(weights, lambda: read_weight_file(str(weights), 1), ":1:")
    m2 = d / "g.m2"
    m2.write_text(f"S a b c\nA 0 {text}|||R:NOUN|||x|||REQUIRED|||-NONE-|||0\n\n", encoding="utf-8")
    _refused(m2, lambda: read_m2(str(m2)), ":2:")
    xml = d / "j.xml"
    xml.write_text(f'<set><ranking-item id="1" src-id="{text}" user="u"><translation rank="1" system="a"/>'
                   '<translation rank="2" system="b"/></ranking-item></set>\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_judgments(str(xml))
    assert str(xml) in str(err.value)


def test_the_training_reader_refuses_such_a_time(tmp_path):
    from peet_fast.jobs.annotated import _parse_time

    for text in BAD:
        with pytest.raises(InputError, match="is not a number|not a finite"):
            _parse_time(text, "tsv", str(tmp_path / "t.tsv"), 0, "seconds")
    assert _parse_time(" 12.5 ", "tsv", str(tmp_path / "t.tsv"), 0, "seconds") == 12.5


def test_the_issues_csv_case_is_refused_not_misread(tmp_path, capsys):
    """`weak,1_5` was read as 15 and flipped Spearman from -1 to +0.5; now `rank --human` refuses it in one line."""
    for name, text in (("strong.txt", "a b\n"), ("mid.txt", "a c\n"), ("weak.txt", "d e\n"), ("r.txt", "a b\n")):
        (tmp_path / name).write_text(text)
    for bad in ("1_5", "٧٣", "７３"):
        (tmp_path / "h.csv").write_text(f"system,score\nstrong,3\nmid,2\nweak,{bad}\n", encoding="utf-8")
        assert main(["rank", "--metric", "wer", "--hyp", *(str(tmp_path / f"{s}.txt") for s in ("strong", "mid",
                     "weak")), "--ref", str(tmp_path / "r.txt"), "--human", str(tmp_path / "h.csv")]) == 2
        _one_line(capsys, f"{tmp_path / 'h.csv'}:4:", "is not a number")


@pytest.mark.parametrize("value", ["1_0", "٣", "７", "1e3", "abc", "10.0"])
@pytest.mark.parametrize("command", [["rank", "--bootstrap"], ["meta-eval", "--window"], ["gleu", "--iter"]])
def test_typed_options_read_ascii_integers_only(capsys, command, value):
    with pytest.raises(SystemExit) as exc:
        main([*command, value])
    assert exc.value.code == 2
    _one_line(capsys, f"argument {command[1]}: invalid int value: {value!r}")


@pytest.mark.parametrize("value", ["0_5", "٠.٥", "０.５", "1,5", "0x1", "half"])
def test_typed_float_options_read_ascii_decimals_only(capsys, value):
    """(nan and inf are read as Python reads them, for the option's own check to refuse: the beta test above.)"""
    with pytest.raises(SystemExit) as exc:
        main(["m2scorer", "--beta", value, "h.txt", "g.m2"])
    assert exc.value.code == 2
    _one_line(capsys, f"argument --beta: invalid float value: {value!r}")
