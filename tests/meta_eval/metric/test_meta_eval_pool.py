"""One scoring per dataset (issue 35, point 4): peet_fast.meta_eval(...) scores every output of a dataset once per
metric and gives each system set its share; the command line's several --system-set, its progress, its intervals
and sign column (point 5)."""
from __future__ import annotations

import json
from pathlib import Path
import subprocess
import sys

import pytest

from peet_fast.meta_eval.metric import data as D
from peet_fast.meta_eval.metric.evaluator import _POOLS, meta_eval
from peet_fast.metrics.base import get_metric
from peet_fast.metrics.wer import WER as Wer


ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def seeda(shared_corpora):
    return (str(shared_corpora / "judgments" / "seeda"), str(shared_corpora / "conll14" / "official-2014.combined.m2"))


class CountingWer(Wer):
    calls: list = []

    def system_stats(self, hyps, data):
        self.calls.append(len(hyps))
        return super().system_stats(hyps, data)


def test_each_output_scored_once_for_every_set(seeda):
    _POOLS.clear()
    metric = CountingWer()
    CountingWer.calls = []
    sets = ["base", "+INPUT", "+REF-F_GPT-3.5", "all"]
    evals = [meta_eval("seeda", *seeda, s) for s in sets]
    figures = [me.corr_system(metric) for me in evals]
    assert CountingWer.calls == [15]                        # one call, the dataset's 15 outputs
    assert evals[-1] is evals[0].pool
    for s, me, got in zip(sets, evals, figures):
        alone = meta_eval("seeda", *seeda, s, share=False)
        assert me.systems == alone.systems
        assert got == alone.corr_system(metric)             # the same statistics: identical figures
        assert me.corr_sentence(metric) == alone.corr_sentence(metric)
    assert CountingWer.calls == [15, 12, 13, 14, 15]
    # a registry name too is scored once, by the pool, for every set
    names = [me.scored("wer") for me in evals]
    assert all(sc.metric is names[-1].metric for sc in names) and names[0].system == {
        s: names[-1].system[s] for s in evals[0].systems}


def test_a_changed_output_is_not_taken_from_the_pool(seeda, tmp_path):
    import shutil

    _POOLS.clear()
    root = tmp_path / "seeda"
    shutil.copytree(seeda[0], root, copy_function=shutil.copyfile)
    first = meta_eval("seeda", str(root), seeda[1], "base")
    path = root / "outputs" / "subset" / "BART.txt"
    text = path.read_text(encoding="utf-8").split("\n")
    text[0] = text[0] + " extra"
    path.write_text("\n".join(text), encoding="utf-8")
    second = meta_eval("seeda", str(root), seeda[1], "base")
    assert second.pool is not first.pool
    assert second.pool.hypotheses["BART"][0].endswith(" extra")


def test_gotoscorer_weights_come_from_every_output(seeda):
    """Via peet_fast.meta_eval the GTS convention's chunk weights are the dataset's every output's (documented in
    docs/meta-eval.md); share=False gives the system set's own, as GTS weighs by the systems scored together."""
    _POOLS.clear()
    pooled = meta_eval("seeda", *seeda, "base").system_scores("gotoscorer")
    alone = meta_eval("seeda", *seeda, "base", share=False)
    every = D.load("seeda", seeda[0], seeda[1], "all")
    named = alone.system_scores(get_metric("gotoscorer", weight_systems=[every.hypotheses[s] for s in every.systems]))
    assert pooled == pytest.approx(named, abs=1e-12, rel=0)
    assert pooled != alone.system_scores("gotoscorer")     # the 12 base systems' own weights differ


def run_cli(*args, env=None):
    import os

    return subprocess.run([sys.executable, "-m", "peet_fast.cli", "meta-eval", *args], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, **(env or {})})


def test_command_line_sets_intervals_sign_and_progress(seeda, tmp_path):
    out = tmp_path / "s.json"
    done = run_cli("--data", "seeda", seeda[0], "--gold", seeda[1], "--metric", "wer", "errant", "--system-set",
                   "base", "all", "--bootstrap", "50", "--summary", str(out),
                   env={"PEET_FAST_PROGRESS_INTERVAL": "0.000001"})
    assert done.returncode == 0, done.stderr
    stages = [ln.split(" (")[0] for ln in done.stderr.splitlines() if ln.startswith("meta-eval: ")]
    assert list(dict.fromkeys(stages)) == ["meta-eval: wer", "meta-eval: errant"], done.stderr     # in order
    summary = json.loads(out.read_text())
    assert list(summary["system_sets"]) == ["base", "all"]
    blocks = done.stdout.split("\n\n")
    assert len(blocks) == 2 and blocks[0].startswith("seeda base:") and blocks[1].startswith("seeda all:")
    base = summary["system_sets"]["base"]["metrics"]
    lo, hi = base["wer"]["system"]["ew_sent"]["pearson_ci"]
    r = base["wer"]["system"]["ew_sent"]["pearson"]
    row = next(line for line in blocks[0].splitlines() if line.startswith("wer "))
    assert row.split()[1] == "-"                                    # lower is better: negated
    assert f"{r:+.3f} [{lo:+.3f},{hi:+.3f}]" in row
    errant = next(line for line in blocks[0].splitlines() if line.startswith("errant "))
    assert errant.split()[1] == "+"
    acc = base["errant"]["sentence"]["sent"]
    assert f"{acc['accuracy']:.3f} [{acc['accuracy_ci'][0]:.3f},{acc['accuracy_ci'][1]:.3f}]" in \
        [line for line in blocks[0].splitlines() if line.startswith("errant ")][1]


def test_several_sets_plot_one_directory_each(seeda, tmp_path):
    pytest.importorskip("matplotlib")
    done = run_cli("--data", "seeda", seeda[0], "--gold", seeda[1], "--metric", "wer", "--window", "4",
                   "--system-set", "base", "all", "--plot", str(tmp_path / "plots"), "--quiet")
    assert done.returncode == 0, done.stderr
    for s in ("base", "all"):
        names = sorted(p.name for p in (tmp_path / "plots" / s).iterdir())
        assert "window-ew_sent.png" in names and "pairwise-wer-sent.png" in names
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == ["all", "base"]
