"""CI-sized smoke runs of benchmarks/scaling.py: the JSON it prints has every figure, per mode and worker count, and
the strong-scaling outputs agree. Figures are never checked (timings do not fail a test)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RUN_KEYS = {"workers", "pairs", "shard_rows", "shards", "runner", "ray_start_s", "ray_stop_s", "job_s", "total_s",
            "warmup_s", "fixed_overhead_s", "steady_pairs_per_s", "end_to_end_pairs_per_s", "cpu_s", "speedup_steady",
            "speedup_end_to_end", "efficiency_steady", "efficiency_end_to_end"}
TOP_KEYS = {"source", "cpus", "load_average", "workers", "pairs_per_worker", "strong_pairs", "shards_per_worker",
            "seed", "weak", "strong", "strong_identical", "parse_cache"}


def run_bench(*args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
               RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "scaling.py"), *args, "--json"], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "weak scaling:" in proc.stderr or "strong scaling:" in proc.stderr      # the human report
    return json.loads(proc.stdout)


def test_one_worker_in_process():
    res = run_bench("--workers", "1", "--pairs-per-worker", "50")
    assert set(res) == TOP_KEYS
    assert "off in every run" in res["parse_cache"]["note"]     # cold on both sides (issue 22, point 4)
    assert res["workers"] == [1] and res["strong_identical"] is True
    for mode in ("weak", "strong"):
        (run,) = res[mode]
        assert set(run) == RUN_KEYS
        assert run["pairs"] == 50 and run["shards"] == 4 and run["runner"] == "in process"
        assert run["ray_start_s"] == 0 and run["speedup_steady"] == 1 and run["efficiency_end_to_end"] == 1
        assert set(run["cpu_s"]) == {"driver", "ray_daemons", "actors", "machine_busy"}


def test_two_ray_workers_strong():
    pytest.importorskip("ray")
    res = run_bench("--workers", "2", "--pairs-per-worker", "20", "--mode", "strong", "--shards-per-worker", "2")
    assert res["weak"] == [] and res["strong_pairs"] == 40 and res["strong_identical"] is True
    one, two = res["strong"]
    assert (one["workers"], two["workers"]) == (1, 2)     # the 1-worker baseline is always run
    assert two["runner"] == "local Ray" and two["ray_start_s"] > 0 and two["ray_stop_s"] > 0 and two["shards"] == 4
    assert set(two) == RUN_KEYS
