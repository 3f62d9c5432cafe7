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

@pytest.mark.parametrize("beta", ["nan", "inf", "-inf", "-1", "-0.5"])
def test_m2scorer_refuses_a_beta_that_is_not_a_weight(capsys, beta):
    assert main(["m2scorer", f"--beta={beta}", str(M2 / "cases.txt"), str(M2 / "cases.m2")]) == 2
    _one_line(capsys, "--beta: ", beta)


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
