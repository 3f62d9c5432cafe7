"""The Python API refuses bad scores and parameters (issue 36, point 4): NaN, inf or None scores, a system given
None, a negative bootstrap, a missing gold each raise an InputError (a ValueError) naming the parameter and, for
scores, the system, in the library's words (no command-line flag), instead of being cast into figures."""
from __future__ import annotations

import math

import pytest
from conftest import SHARED_CORPORA

from peet_fast.io import InputError

SEEDA = SHARED_CORPORA / "judgments" / "seeda"
GOLD = SHARED_CORPORA / "conll14" / "official-2014.combined.m2"
shared = pytest.mark.skipif(not (SEEDA.is_dir() and GOLD.is_file()), reason="../shared/corpora not present")


@pytest.fixture(scope="module")
def me():
    if not (SEEDA.is_dir() and GOLD.is_file()):
        pytest.skip("../shared/corpora not present")
    import peet_fast

    return peet_fast.meta_eval("seeda", str(SEEDA), gold=str(GOLD))


def refused(call, *needles) -> str:
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert isinstance(info.value, ValueError) and "--" not in message, message
    for needle in needles:
        assert needle in message, message
    return message


def sentence_scores(me, value=1.0):
    return {s: [float(len(h)) for h in me.hypotheses[s]] for s in me.systems}


@shared
def test_sentence_scores_nan_or_none_are_refused_naming_the_system(me):
    scores = sentence_scores(me)
    scores["BART"] = [math.nan] * len(me.sources)                       # all NaN: was accuracy 0.5599
    refused(lambda: me.corr_sentence(scores), "scores: system 'BART': sentence score 1 is nan")
    scores["BART"] = [1.0] * (len(me.sources) - 1) + [None]
    refused(lambda: me.corr_system(scores), "scores: system 'BART'", f"sentence score {len(me.sources)} is None")
    scores["BART"] = [1.0] * 3 + [math.inf] + [1.0] * (len(me.sources) - 4)
    refused(lambda: me.corr_sentence(scores), "system 'BART': sentence score 4 is inf")


@shared
def test_system_scores_nan_inf_none_are_refused_naming_the_system(me):
    base = {s: float(k) for k, s in enumerate(me.systems)}
    for bad in (math.nan, math.inf, -math.inf):
        refused(lambda: me.corr_system({**base, "T5": bad}), "scores: system 'T5'", "is not a finite number")
    refused(lambda: me.corr_system({**base, "BART": None}), "scores: system 'BART': None is not a number")
    sentences = sentence_scores(me)
    refused(lambda: me.corr_system({**sentences, "T5": 0.5}), "scores: system 'T5': has one number where the others "
                                                             "have sentence scores")
    refused(lambda: me.corr_system({s: None for s in me.systems}), "system 'BART': NoneType is neither a number nor")
    refused(lambda: me.corr_system({**base, "BART": True}), "system 'BART'")
    refused(lambda: me.corr_system({**base, "BART": "0.5"}), "system 'BART'")


@shared
def test_plain_scores_that_are_fine_still_give_figures(me):
    import numpy as np

    scores = sentence_scores(me)
    as_arrays = {s: np.array(v, dtype=np.float32) for s, v in scores.items()}
    assert me.corr_sentence(scores) == me.corr_sentence(as_arrays)
    assert me.corr_system({s: int(k) for k, s in enumerate(me.systems)}).ew_sent.pearson is not None


@shared
def test_bootstrap_and_seed_are_checked(me):
    scores = sentence_scores(me)
    refused(lambda: me.corr_system(scores, bootstrap=-5), "bootstrap: -5 is not a non-negative integer")
    refused(lambda: me.corr_sentence(scores, bootstrap=-5), "bootstrap: -5 is not a non-negative integer")
    refused(lambda: me.corr_sentence(scores, bootstrap=2.5), "bootstrap: 2.5 is not a non-negative integer")
    refused(lambda: me.corr_sentence(scores, bootstrap=3, seed=-1), "seed: -1 is not a non-negative integer")


@shared
def test_gold_none_and_other_parameters(tmp_path):
    import peet_fast

    refused(lambda: peet_fast.meta_eval("seeda", str(SEEDA), gold=None), "gold: NoneType is not a path")
    refused(lambda: peet_fast.meta_eval("seeda", None, gold=str(GOLD)), "root: NoneType is not a path")
    refused(lambda: peet_fast.meta_eval("seeda", str(SEEDA), gold=str(GOLD), system_set="nope"),
            "system_set: unknown system set 'nope'")
    refused(lambda: peet_fast.meta_eval("wmt", str(SEEDA), gold=str(GOLD)), "data: unknown dataset 'wmt'")
    from peet_fast import api

    refused(lambda: api.meta_eval("seeda", str(SEEDA), gold=None), "gold: NoneType is not a path")


@shared
def test_metric_aggregation_and_window_name_the_parameter(me):
    """Below cli/ the errors name meta_eval's parameters (metric, aggregation, window); `peet-fast meta-eval` maps
    them to its flags (cli/meta_eval.FLAGS)."""
    scores = sentence_scores(me)
    assert refused(lambda: me.corr_system("no-such-metric"), "unknown metric 'no-such-metric'").startswith("metric: ")
    assert refused(lambda: me.corr_system(scores, aggregation="median"),
                   "unknown aggregation 'median'").startswith("aggregation: ")
    assert refused(lambda: me.corr_system({s: 1.0 + k for k, s in enumerate(me.systems)}, aggregation="ew"),
                   "plain system scores cannot be aggregated").startswith("aggregation: ")
    assert refused(lambda: me.window_analysis(scores, window=99), "not 99").startswith("window: ")


@shared
def test_the_command_line_still_names_the_flags(capsys):
    from peet_fast.cli import main

    gold = SHARED_CORPORA / "conll14" / "official-2014.combined.m2"
    for extra, want in ((["--metric", "no-such-metric"], "--metric: unknown metric 'no-such-metric'"),
                        (["--metric", "wer", "--window", "99"], "--window: the window must hold 2 to ")):
        rc = main(["meta-eval", "--data", "seeda", str(SEEDA), "--gold", str(gold), "--level", "system", *extra])
        out, err = capsys.readouterr()
        assert rc == 2 and out == "" and len(err.splitlines()) == 1, err
        assert err.startswith(f"peet-fast meta-eval: error: {want}"), err
