"""Cheap small jobs (jobs.sizing): the first shards of a small input are cut so that every worker gets one, a rerun
keeps the shards its directory records (under any --workers), and a job too small for Ray to pay off runs in this
process with one notice and the same output."""
from __future__ import annotations

import json
import math

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL

from peet_fast.cli import main
from peet_fast.jobs import (
    JobSpec,
    LocalRunner,
    RayRunner,
    run_job,
    runner_for,
    sizing,
    text_source,
)
from peet_fast.jobs import local
from peet_fast.jobs.plan import AdaptivePlan
from peet_fast.peet.model import load_model

SAMPLE = FIXTURES / "sample"
SAMPLE_ARGS = ["score", "--hyp", str(SAMPLE / "system_a.txt"), str(SAMPLE / "system_b.txt"),
               "--ref", str(SAMPLE / "reference.txt"), "--spacy-model", SPACY_MODEL]


class TwoWorkersHere(LocalRunner):
    """Sized like a 2-worker runner, but computes the shards in this process."""

    workers = 2


def sample_spec(shard_rows=None) -> JobSpec:
    return JobSpec("score", text_source([SAMPLE / "system_a.txt", SAMPLE / "system_b.txt", SAMPLE / "reference.txt"]),
                   model=load_model().to_json(), system_names=("system_a", "system_b"), n_refs=1,
                   spacy_model=SPACY_MODEL, shard_rows=shard_rows)


@pytest.mark.parametrize("workers, first_round", [
    (1, [(0, 36)]), (2, [(0, 18), (18, 27)]), (5, [(0, 8), (8, 14), (14, 19), (19, 23), (23, 26)])])
def test_the_first_round_gives_every_worker_a_shard(workers, first_round):
    """Shards cut as the job runs: before any has finished, each worker asking for one gets at most its share of the
    rows left (and at most the first shards' FIRST_SHARD_S of work)."""
    cut = AdaptivePlan(sample_spec().source, per_row=3, workers=workers)
    assert [(s.start, s.stop) for s in (cut.pop() for _ in range(workers))] == first_round


def test_explicit_shard_rows_is_kept(tmp_path):
    done = run_job(sample_spec(shard_rows=30), str(tmp_path / "job"), TwoWorkersHere())
    assert sorted((e["start"], e["stop"]) for e in done.done.values()) == [(0, 30), (30, 36)]
    assert json.loads((tmp_path / "job" / "_manifest.json").read_text())["shard_rows"] == 30


def test_rerun_keeps_the_shards_under_any_workers(tmp_path, monkeypatch):
    cut = run_job(sample_spec(), str(tmp_path / "job"), TwoWorkersHere())
    assert len(cut.done) >= 2 and json.loads((tmp_path / "job" / "_manifest.json").read_text())["shard_rows"] is None
    computed = []
    monkeypatch.setattr(local, "run_shard", lambda *a: computed.append(a) or pytest.fail("recomputed"))
    again = run_job(sample_spec(), str(tmp_path / "job"), LocalRunner())       # --workers 1: resumes, nothing to do
    assert computed == [] and again.done == cut.done
    monkeypatch.undo()
    whole = run_job(sample_spec(), str(tmp_path / "one"), LocalRunner())       # a new directory: one shard
    assert sorted(whole.done) == [0]
    order = [("system", "ascending"), ("sentence", "ascending")]
    assert pq.read_table(tmp_path / "job").sort_by(order).equals(pq.read_table(tmp_path / "one").sort_by(order))


def test_a_directory_sized_up_front_by_an_earlier_version_resumes_with_its_size(tmp_path, monkeypatch):
    """A job run without --shard-rows by a version that sized shards before it started recorded the size chosen
    (shard_rows in the manifest, the signature of a job of that size): a rerun without --shard-rows keeps it."""
    out = tmp_path / "job"
    first = run_job(sample_spec(shard_rows=10), str(out), LocalRunner())
    reference = pq.read_table(out)
    manifest = json.loads((out / "_manifest.json").read_text())
    gone = manifest["shards"].pop()
    (out / gone["file"]).unlink()
    (out / "_manifest.json").write_text(json.dumps(manifest))
    computed = []
    real = local.run_shard
    monkeypatch.setattr(local, "run_shard", lambda state, shard, d: computed.append(shard.index) or
                        real(state, shard, d))
    again = run_job(sample_spec(), str(out), LocalRunner())        # no size given: the recorded 10
    assert computed == [gone["index"]] and again.spec.shard_rows == 10 and sorted(again.done) == sorted(first.done)
    assert pq.read_table(out).equals(reference)


def test_small_job_runner_threshold(capsys):
    spec = sample_spec()
    ray_runner = RayRunner(2, None, min_sentences=108)         # 36 lines x 3 files = 108 sentences: Ray
    assert sizing.small_job_runner(spec, ray_runner, 36) is ray_runner
    assert capsys.readouterr().err == ""
    small = sizing.small_job_runner(spec, RayRunner(2, None, min_sentences=109), 36)
    assert isinstance(small, LocalRunner)
    assert capsys.readouterr().err == (         # the library's words (a command line's: its flag, --workers 2)
        "peet-fast score: 36 lines of 3 files are too few to pay for starting Ray (37 or more do), so the job runs "
        "in this process instead of on workers 2.\n")
    cluster = runner_for(2, "auto", small_jobs_in_process=True)     # joining a cluster: never in process
    assert sizing.small_job_runner(spec, cluster, 36) is cluster
    assert runner_for(2).min_sentences == 0                            # the library's default: always Ray


def test_small_input_with_workers_runs_in_process_with_a_notice(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(sizing.MIN_SENTENCES_ENV)
    assert main([*SAMPLE_ARGS, "--out", str(tmp_path / "one"), "--summary", str(tmp_path / "one.json")]) == 0
    one = capsys.readouterr()
    monkeypatch.setattr(RayRunner, "run", lambda *a: pytest.fail("Ray was started"))
    assert main([*SAMPLE_ARGS, "--out", str(tmp_path / "two"), "--summary", str(tmp_path / "two.json"),
                 "--workers", "2"]) == 0
    two = capsys.readouterr()
    notice = (f"peet-fast score: 36 lines of 3 files are too few to pay for starting Ray "
              f"({math.ceil(sizing.RAY_MIN_SENTENCES / 3)} or more do), so the job runs in this process instead of "
              f"on --workers 2.")
    assert two.err.splitlines() == [notice, *one.err.splitlines()]
    assert two.out == one.out
    assert (tmp_path / "two.json").read_bytes() == (tmp_path / "one.json").read_bytes()
    for name in ("_manifest.json", "part-0000000000.parquet"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_bad_threshold_setting_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(sizing.MIN_SENTENCES_ENV, "many")
    assert main([*SAMPLE_ARGS, "--out", str(tmp_path / "job"), "--workers", "2"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "peet-fast score: error: PEET_FAST_RAY_MIN_SENTENCES: must be a whole number >= 0, not 'many'"]
    assert not (tmp_path / "job").exists()
