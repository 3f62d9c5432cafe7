"""--bootstrap and --seed bounds shared by rank, human-rank and meta-eval (issue 36, points 6 and 11): more than
100,000 resamples (or TrueSkill runs) is one line and exit 2, before anything is read or allocated (human-rank took
numpy's "Unable to allocate 1.70 TiB" traceback), and so is a seed that does not fit 64 bits (2**70 ran as another
seed)."""
from __future__ import annotations

import pytest
from conftest import FIXTURES

from peet_fast.cli import main
from peet_fast.metrics.stats import MAX_RESAMPLES, MAX_SEED, check_bootstrap, check_seed
from peet_fast.io import InputError

SYNTHETIC = FIXTURES / "human_rank" / "synthetic.xml"


def refused(capsys, *argv) -> str:
    assert main([str(a) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


def test_the_bounds():
    assert MAX_RESAMPLES == 100_000 and MAX_SEED == 2**64 - 1
    check_bootstrap(100_000)
    check_bootstrap(0, 0)
    check_seed(0)
    check_seed(2**64 - 1)
    with pytest.raises(InputError, match=r"^bootstrap: at most 100,000 resamples \(each one's figures are kept\), "
                                         r"not 100,001$"):
        check_bootstrap(100_001)
    with pytest.raises(InputError, match=r"^bootstrap: must be at least 1$"):
        check_bootstrap(0)
    with pytest.raises(InputError, match=r"^seed: at most 2\*\*64 - 1 \(18,446,744,073,709,551,615\), not "
                                         r"18,446,744,073,709,551,616$"):
        check_seed(2**64)
    with pytest.raises(InputError, match=r"^seed: must be a non-negative integer$"):
        check_seed(-1)


def test_meta_eval_resampling_is_checked_by_the_same_bounds():
    """meta_eval's sentence_indices and checked_resampling (the API's bootstrap / seed) refuse what check_bootstrap
    and check_seed refuse, with their messages; a value that is no non-negative integer keeps its own."""
    from peet_fast.meta_eval.metric.significance import checked_resampling, sentence_indices

    assert checked_resampling(MAX_RESAMPLES, MAX_SEED) == (MAX_RESAMPLES, MAX_SEED)
    assert sentence_indices(4, 3, 7).shape == (3, 4) and sentence_indices(4, 0).shape == (0, 4)
    for check in (checked_resampling, lambda b, s: sentence_indices(4, b, s)):
        with pytest.raises(InputError, match=r"^bootstrap: at most 100,000 resamples \(each one's figures are "
                                             r"kept\), not 100,001$"):
            check(100_001, 0)
        with pytest.raises(InputError, match=r"^seed: at most 2\*\*64 - 1 \(18,446,744,073,709,551,615\), not "):
            check(3, 2**64)
        with pytest.raises(InputError, match=r"^bootstrap: 2.5 is not a non-negative integer$"):
            check(2.5, 0)
        with pytest.raises(InputError, match=r"^seed: -1 is not a non-negative integer$"):
            check(3, -1)


@pytest.mark.parametrize("method", ["ew", "ts"])
def test_human_rank_caps_the_bootstrap(capsys, method):
    unit = "TrueSkill runs" if method == "ts" else "resamples"
    assert refused(capsys, "human-rank", SYNTHETIC, "--method", method, "--bootstrap", "1000000000") == (
        f"peet-fast human-rank: error: --bootstrap: at most 100,000 {unit} (each one's figures are kept), not "
        "1,000,000,000")


def test_human_rank_refuses_a_seed_that_does_not_fit(capsys):
    assert refused(capsys, "human-rank", SYNTHETIC, "--bootstrap", "20", "--seed", str(2**70)) == (
        "peet-fast human-rank: error: --seed: at most 2**64 - 1 (18,446,744,073,709,551,615), not "
        "1,180,591,620,717,411,303,424")
    # the largest seed runs, and differs from the seed it would have been cut to
    assert main(["human-rank", str(SYNTHETIC), "--method", "ts", "--bootstrap", "20", "--seed", str(MAX_SEED)]) == 0
    top = capsys.readouterr().out
    assert main(["human-rank", str(SYNTHETIC), "--method", "ts", "--bootstrap", "20", "--seed", "0"]) == 0
    assert capsys.readouterr().out != top


def test_meta_eval_bounds_are_checked_before_anything_is_read(capsys, tmp_path):
    # neither the data directory nor the gold exists: the options are refused first
    args = ["meta-eval", "--data", "seeda", tmp_path / "none", "--gold", tmp_path / "none.m2", "--metric", "wer"]
    assert refused(capsys, *args, "--bootstrap", "1000000000") == (
        "peet-fast meta-eval: error: --bootstrap: at most 100,000 resamples (each one's figures are kept), not "
        "1,000,000,000")
    assert refused(capsys, *args, "--seed", str(2**70)).startswith("peet-fast meta-eval: error: --seed: at most 2**64")
    assert refused(capsys, *args, "--seed", "-1") == (
        "peet-fast meta-eval: error: --seed: must be a non-negative integer")


def test_rank_shares_the_bounds(capsys, tmp_path):
    hyp = FIXTURES / "sample" / "system_a.txt"
    ref = FIXTURES / "sample" / "reference.txt"
    assert refused(capsys, "rank", "--hyp", hyp, "--ref", ref, "--bootstrap", "100001") == (
        "peet-fast rank: error: --bootstrap: at most 100,000 resamples (each one's figures are kept), not 100,001")
    assert refused(capsys, "rank", "--hyp", hyp, "--ref", ref, "--seed", str(2**64)).startswith(
        "peet-fast rank: error: --seed: at most 2**64 - 1")
