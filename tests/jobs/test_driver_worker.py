"""On a new local Ray instance the driver is one of the `--workers N` workers: it computes shards from the start,
while Ray (in a thread of its own working directory) and the N-1 actors start, and hands the actors the next
shards as they become ready. A Ray instance the caller started, or a cluster, gets N actors as before (the tests of
test_runner_lifecycle.py)."""
from __future__ import annotations

import os
import sys
import threading
import time

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.jobs import JobSpec, LocalRunner, RayRunner, run_job, text_source
from peet_fast.jobs import ray as jobs_ray
from peet_fast.jobs.ray import _ShardActor

ray = pytest.importorskip("ray")


@pytest.fixture
def no_ray():
    """No Ray instance when the test starts (the one the suite shares is stopped): the job starts its own, which the
    next tests then share (tests/conftest.py)."""
    if ray.is_initialized():
        ray.shutdown()


def write_pairs(d, n):
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line]
    rows = (rows * (n // len(rows) + 1))[:n]
    (d / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (d / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")


def spec_of(shard_rows) -> JobSpec:
    # relative paths: the driver reads them from its working directory while Ray starts from another
    return JobSpec("featurize", text_source(["mo.txt", "trg.txt"]), spacy_model=SPACY_MODEL,
                   shard_rows=shard_rows, cache={"cache": False})


class _NotingActor(_ShardActor):
    """Notes each shard it computes in OUT/../actor-shards."""

    def shard(self, shard):
        with open(os.path.join(self.out_dir, "..", "actor-shards"), "a") as fh:
            fh.write(f"{shard.index}\n")
        return super().shard(shard)


class _NotingRunner(RayRunner):
    actor_class = _NotingActor


class _HeldDriverRunner(_NotingRunner):
    """The driver takes two shards, then waits (RayRunner.driver_takes_next) until an actor has been handed one: the
    actor takes part however slowly Ray and its actor start on a busy machine."""

    def driver_takes_next(self, taken, handed):
        return taken < 2 or handed > 0


def test_the_driver_computes_shards_while_ray_starts_then_shares_them_with_an_actor(tmp_path, monkeypatch, no_ray):
    """Ray's start is held until the driver has written two shards (it cannot have had any help); then the one actor
    of --workers 2 takes part (the driver holds back after its two shards until the actor has one: nothing here
    depends on how fast Ray starts); the output equals one process's. The inputs are relative paths, read by the
    driver while Ray's start runs from another working directory."""
    write_pairs(tmp_path, 96)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "job"
    init = jobs_ray.init_ray
    held = {}

    def held_init(workers, address):
        end = time.monotonic() + 600        # (no timing: the driver computes them alone; only a guard against a hang)
        while time.monotonic() < end and len(list(out.glob("part-*.parquet"))) < 2:
            time.sleep(0.02)
        held["parts_before_ray"] = sorted(p.name for p in out.glob("part-*.parquet"))
        held["thread"] = threading.current_thread().name
        init(workers, address)

    monkeypatch.setattr(jobs_ray, "init_ray", held_init)
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])     # the actors cannot import this test module
    try:
        run_job(spec_of(4), str(out), _HeldDriverRunner(2))
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert held["parts_before_ray"][:2] == ["part-00000.parquet", "part-00001.parquet"]
    assert held["thread"] != threading.main_thread().name
    by_actor = sorted(map(int, (tmp_path / "actor-shards").read_text().split()))
    assert by_actor and 0 not in by_actor and 1 not in by_actor, by_actor
    assert os.getcwd() == str(tmp_path)
    run_job(spec_of(4), str(tmp_path / "here"), LocalRunner())
    assert pq.read_table(str(out)).equals(pq.read_table(str(tmp_path / "here")))


def test_a_job_the_driver_finishes_before_ray_is_up_starts_no_actor(tmp_path, monkeypatch, no_ray):
    """The driver finishes every shard while Ray is still starting: no actor is created (the job is over) and the
    job's output is complete."""
    write_pairs(tmp_path, 24)
    monkeypatch.chdir(tmp_path)
    init = jobs_ray.init_ray
    release = threading.Event()

    def late_init(workers, address):
        release.wait(900)      # (a ceiling against a hang, not a timing)
        init(workers, address)

    monkeypatch.setattr(jobs_ray, "init_ray", late_init)
    runner = _NotingRunner(2)
    done = threading.Event()
    threading.Thread(target=lambda: (run_job(spec_of(6), str(tmp_path / "job"), runner), done.set()),
                     daemon=True).start()
    end = time.monotonic() + 900      # (a ceiling against a hang, not a timing)
    while time.monotonic() < end and not (tmp_path / "job" / "part-00003.parquet").exists():
        time.sleep(0.02)
    release.set()
    assert done.wait(900)
    assert not (tmp_path / "actor-shards").exists()
    run_job(spec_of(6), str(tmp_path / "here"), LocalRunner())
    assert pq.read_table(str(tmp_path / "job")).equals(pq.read_table(str(tmp_path / "here")))
