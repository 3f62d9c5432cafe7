"""A local --workers N is bounded by the machine (issue 43 point 11: `--workers 9999` with small shards started 6-15
spaCy actors at once on 2 CPUs, 1.0-2.7 GB): at most one worker per CPU and per 1 GB of available memory (the
documented budget of a worker), said
in one notice line, the output that of --workers 1. The bound is a pure function (hand-computed cases); one small
job shows the notice and the output without starting more than the machine's workers."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.jobs.sizing import WORKER_BYTES, bound_notice, local_workers, machine_cpus

REPO = Path(__file__).resolve().parents[2]
GB = 2**30


def test_local_workers_is_bounded_by_cpus_and_memory():
    assert WORKER_BYTES == GB
    assert local_workers(9999, 2, 24 * GB) == 2                 # the CPUs bind (24 GB: 24 workers' worth)
    assert local_workers(9999, 64, 4 * GB + GB // 2) == 4       # memory binds: 4.5 GB / 1 GB
    assert local_workers(3, 64, 24 * GB) == 3                   # what was asked for, where the machine has room
    assert local_workers(8, 4, None) == 4                       # memory unknown: the CPUs alone
    assert local_workers(8, 4, 100 * 2**20) == 1                # never under one worker (the command's process)
    assert local_workers(2, 2, 2 * WORKER_BYTES - 1) == 1       # 1.99 workers' worth of memory: one


def test_the_notice_says_what_was_asked_what_runs_and_why():
    """The notice names the workers option as the library's parameter, and as a command line's flag where one runs
    the job (jobs.errors.shown_as: featurize's words)."""
    from peet_fast.cli import build_parser
    from peet_fast.jobs.errors import shown_as

    assert bound_notice("score", 4, 1, 1, None) == (
        "peet-fast score: workers 4 is more than this machine runs at once (1 CPU), so the job runs on 1 worker")
    with shown_as(build_parser().commands["featurize"].get_default("flags")):
        assert bound_notice("featurize", 9999, 2, 2, 21 * GB) == (
            "peet-fast featurize: --workers 9999 is more than this machine runs at once (2 CPUs, 21.0 GB of memory "
            "available at 1 GB a worker), so the job runs on 2 workers")
    assert bound_notice("score", 4, 1, 1, None).startswith("peet-fast score: workers 4 ")     # the block ended


NOTICE = re.compile(r"peet-fast featurize: --workers 9999 is more than this machine runs at once \((\d+) CPUs?, "
                    r"[\d.]+ GB of memory available at 1 GB a worker\), so the job runs on (\d+) workers?")


def test_workers_9999_on_small_shards_runs_on_the_machines_workers(tmp_path):
    pytest.importorskip("ray")
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line][:40]
    (tmp_path / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (tmp_path / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    args = ["featurize", "--hyp", "mo.txt", "--ref", "trg.txt", "--shard-rows", "2", "--no-cache",
            "--spacy-model", SPACY_MODEL]
    env = dict(os.environ, PYTHONPATH=str(REPO), RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0",
               PEET_FAST_RAY_MIN_SENTENCES="0")     # (Ray, however small the job)
    env.pop("RAY_ADDRESS", None)
    runs = {}
    for name, workers in (("many", ["--workers", "9999"]), ("one", [])):
        runs[name] = subprocess.run([sys.executable, "-m", "peet_fast.cli", *args, "--out", name, *workers],
                                    cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
        assert runs[name].returncode == 0, runs[name].stderr[-3000:]
    notices = [ln for ln in runs["many"].stderr.splitlines() if "is more than this machine" in ln]
    assert len(notices) == 1 and NOTICE.fullmatch(notices[0]), runs["many"].stderr[-3000:]
    cpus, workers = map(int, NOTICE.fullmatch(notices[0]).groups())
    assert cpus == machine_cpus() and 1 <= workers <= cpus
    assert pq.read_table(tmp_path / "many").equals(pq.read_table(tmp_path / "one"))
