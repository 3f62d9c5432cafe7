"""The runner's life in run_job: start() as soon as the job's settings are final -- before the driver verifies an
earlier run's part files, so that Ray's actors warm up meanwhile -- then run(), and close() however the job ends. On
Ray: the actors a failed job started are gone (a second job on the same Ray instance gets every CPU), and each actor
is handed the next shard as it finishes one (no shard waits behind a busy actor)."""
from __future__ import annotations

import json
import os
import sys
import threading
import time

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.io import InputError
from peet_fast.jobs import JobSpec, LocalRunner, RayRunner, run_job, shard_paths, text_source
from peet_fast.jobs import shards as shards_module
from peet_fast.jobs.ray import _ShardActor


def write_pairs(d, n=24):
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line][:n]
    (d / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (d / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")


def spec_of(d, shard_rows=4) -> JobSpec:
    return JobSpec("featurize", text_source([str(d / "mo.txt"), str(d / "trg.txt")]), spacy_model=SPACY_MODEL,
                   shard_rows=shard_rows, cache={"cache": False})


class Recording(LocalRunner):
    """LocalRunner that records the calls run_job makes."""

    def __init__(self, events: list):
        self.events = events

    def start(self, spec, out_dir, shards):
        self.events.append(("start", shards))

    def run(self, spec, shards, out_dir, on_done):
        self.events.append(("run", len(shards)))
        super().run(spec, shards, out_dir, on_done)

    def close(self):
        self.events.append(("close",))


def test_start_comes_before_the_part_files_are_verified_and_close_after_the_run(tmp_path, monkeypatch):
    write_pairs(tmp_path)
    events: list = []
    verify = shards_module.Manifest.verify_previous

    def verifying(self, *args):
        events.append(("verify",))
        return verify(self, *args)

    monkeypatch.setattr(shards_module.Manifest, "verify_previous", verifying)
    run_job(spec_of(tmp_path), str(tmp_path / "job"), Recording(events))
    assert events == [("start", 6), ("verify",), ("run", 6), ("close",)]
    events.clear()
    run_job(spec_of(tmp_path), str(tmp_path / "job"), Recording(events))      # all done: nothing to run, no start
    assert events == [("verify",), ("close",)]


def test_a_refused_directory_starts_nothing_and_a_failed_verification_still_closes(tmp_path):
    write_pairs(tmp_path)
    events: list = []
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not a peet-fast job"):
        run_job(spec_of(tmp_path), str(tmp_path / "busy"), Recording(events))
    assert events == [("close",)]          # the cheap check refused it before any worker was started
    run_job(spec_of(tmp_path), str(tmp_path / "job"), LocalRunner())
    part = shard_paths(str(tmp_path / "job"))[0]
    (tmp_path / "job" / "_manifest.json").unlink()
    with open(part, "wb") as fh:           # a part file without its footer, that no manifest vouches for
        fh.write(b"PAR1")
    events.clear()
    with pytest.raises(InputError, match="delete it and run the same command again"):
        run_job(spec_of(tmp_path), str(tmp_path / "job"), Recording(events))
    assert events == [("start", 6), ("close",)]


@pytest.fixture(scope="module")
def ray2():
    ray = pytest.importorskip("ray")
    from peet_fast.jobs.ray import init_ray

    if ray.is_initialized():
        ray.shutdown()
    init_ray(2, None)
    yield ray
    ray.shutdown()


def test_actors_of_a_failed_job_are_gone_before_the_next_job(tmp_path, ray2):
    """A job that fails after its actors started (a part file that cannot be verified) kills them: the next job on
    the same 2-CPU instance gets both CPUs and finishes (leftover actors would leave its actors waiting forever)."""
    write_pairs(tmp_path)
    run_job(spec_of(tmp_path), str(tmp_path / "job"), LocalRunner())
    reference = pq.read_table(str(tmp_path / "job"))
    part = shard_paths(str(tmp_path / "job"))[0]
    (tmp_path / "job" / "_manifest.json").unlink()
    with open(part, "wb") as fh:
        fh.write(b"PAR1")
    runner = RayRunner(2)
    with pytest.raises(InputError, match="delete it and run the same command again"):
        run_job(spec_of(tmp_path), str(tmp_path / "job"), runner)
    assert runner._actors == []
    done = threading.Event()
    result = {}

    def second():
        run_job(spec_of(tmp_path), str(tmp_path / "again"), RayRunner(2))
        result["table"] = pq.read_table(str(tmp_path / "again"))
        done.set()

    threading.Thread(target=second, daemon=True).start()
    assert done.wait(900), "the second job never finished: the failed job's actors still hold the CPUs"
    assert result["table"].equals(reference)


class _OneSlowActor(_ShardActor):
    """The first actor to start sleeps 0.5 s before each shard; every actor notes the shards it computed."""

    def __init__(self, spec, out_dir, cwd):
        super().__init__(spec, out_dir, cwd)
        try:
            os.close(os.open(os.path.join(out_dir, "..", "slow-taken"), os.O_CREAT | os.O_EXCL))
            self.slow = True
        except FileExistsError:
            self.slow = False

    def shard(self, shard):
        if self.slow:
            time.sleep(0.5)
        with open(os.path.join(self.out_dir, "..", f"owner-{'slow' if self.slow else 'fast'}"), "a") as fh:
            fh.write(f"{shard.index}\n")
        return super().shard(shard)


class _OneSlowRunner(RayRunner):
    actor_class = _OneSlowActor


def test_each_actor_gets_the_next_shard_when_it_finishes_one(tmp_path, ray2):
    """12 shards on 2 actors, one of which is 0.5 s slower a shard: the fast actor computes most of them, where
    handing them out in fixed rounds would have split them 6 / 6; the output is that of one process."""
    from ray import cloudpickle

    write_pairs(tmp_path, 24)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])     # the actors cannot import this test module
    try:
        run_job(spec_of(tmp_path, shard_rows=2), str(tmp_path / "job"), _OneSlowRunner(2))
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    slow = (tmp_path / "owner-slow").read_text().split()
    fast = (tmp_path / "owner-fast").read_text().split()
    assert sorted(map(int, slow + fast)) == list(range(12))
    assert len(slow) < 6, (slow, fast)
    run_job(spec_of(tmp_path, shard_rows=2), str(tmp_path / "here"), LocalRunner())
    assert pq.read_table(str(tmp_path / "job")).equals(pq.read_table(str(tmp_path / "here")))


class _CountingRunner(RayRunner):
    def _dispatch(self, shards, out_dir, on_done):
        self.actors_at_dispatch = len(self._actors)
        super()._dispatch(shards, out_dir, on_done)


def test_a_resumed_job_keeps_only_the_actors_it_needs(tmp_path, ray2):
    """A rerun with one shard left: start() had started an actor per worker before the earlier shards were
    verified; the surplus one is stopped before the shard is handed out, and the output is complete and the same."""
    write_pairs(tmp_path)
    run_job(spec_of(tmp_path), str(tmp_path / "here"), LocalRunner())
    run_job(spec_of(tmp_path), str(tmp_path / "job"), LocalRunner())
    manifest = json.loads((tmp_path / "job" / "_manifest.json").read_text())
    gone = manifest["shards"].pop()
    (tmp_path / "job" / gone["file"]).unlink()
    (tmp_path / "job" / "_manifest.json").write_text(json.dumps(manifest))
    runner = _CountingRunner(2)
    run_job(spec_of(tmp_path), str(tmp_path / "job"), runner)
    assert runner.actors_at_dispatch == 1 and runner._actors == []
    assert pq.read_table(str(tmp_path / "job")).equals(pq.read_table(str(tmp_path / "here")))


class _DiesOnceActor(_ShardActor):
    """The first actor process to start exits before its constructor returns (a worker killed while it loads its
    pipeline); Ray restarts it and retries the calls made on it."""

    def __init__(self, spec, out_dir, cwd):
        try:
            os.close(os.open(os.path.join(out_dir, "..", "died-once"), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            super().__init__(spec, out_dir, cwd)
        else:
            os._exit(1)


class _DiesOnceRunner(RayRunner):
    actor_class = _DiesOnceActor


def test_an_actor_that_dies_is_restarted_and_ray_s_report_of_it_goes_to_stderr(tmp_path, ray2, capsys):
    """An actor process that dies is replaced and the job's output is that of one process. The error Ray pushes to
    the driver about it ("(raylet) ... failed ... will be retried") goes to stderr: stdout may be a command's
    results (`score ... > scores.tsv`), and Ray itself prints these messages on stdout."""
    from ray import cloudpickle

    write_pairs(tmp_path)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        run_job(spec_of(tmp_path), str(tmp_path / "job"), _DiesOnceRunner(2))
        time.sleep(2)       # Ray's listener thread prints what it was sent asynchronously
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert (tmp_path / "died-once").exists()
    run_job(spec_of(tmp_path), str(tmp_path / "here"), LocalRunner())
    assert pq.read_table(str(tmp_path / "job")).equals(pq.read_table(str(tmp_path / "here")))
    out, _ = capsys.readouterr()
    assert out == "", out


class _ExitsOnce:
    def __init__(self, marker):
        self.marker = marker

    def call(self):
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return "done"
        os._exit(1)


def test_ray_s_error_reports_go_to_stderr_after_a_job_too(tmp_path, ray2, capsys):
    """Ray's driver prints what its instance reports (a worker died, a task is retried) whenever it hears of it,
    also after the job that caused it has ended (the benchmarks and the API run several jobs on one instance):
    to stderr, never to stdout."""
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        actor = ray2.remote(num_cpus=0, max_restarts=1, max_task_retries=1)(_ExitsOnce).remote(str(tmp_path / "m"))
        assert ray2.get(actor.call.remote(), timeout=900) == "done"
        ray2.kill(actor)
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    for _ in range(50):           # Ray's listener thread prints what it was sent asynchronously
        out, err = capsys.readouterr()
        if out or "(raylet)" in err:
            break
        time.sleep(0.2)
    assert out == "" and "(raylet)" in err, (out, err)
