"""Jobs that show their progress and keep their work (issues 22, 33): a running shard reports its rows done (in this
process and from Ray actors) before it ends; without --shard-rows shards are cut as the job runs, sized from the
rate it measures (a fake clock here), and a rerun keeps them under any --workers (an explicit --shard-rows wins);
Ray's workers run at the driver's priority; a rerun says how many shards it reused, or that the job is complete --
then no runner starts; an interruption before any shard finished says there is nothing to resume, one after says how
many shards are kept."""
from __future__ import annotations

import json
import sys
import time

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL
from hypothesis import given
from hypothesis import strategies as st

from peet_fast.cli import main
from peet_fast.jobs import JobSpec, LocalRunner, RayRunner, run_job, sizing, text_source
from peet_fast.jobs.ray import _ShardActor
from peet_fast.jobs.shards import JobInterrupted


def write_pairs(d, n=24):
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line][:n]
    (d / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (d / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")


def spec_of(d, shard_rows=None, batch_size=256) -> JobSpec:
    return JobSpec("featurize", text_source([str(d / "mo.txt"), str(d / "trg.txt")]), spacy_model=SPACY_MODEL,
                   shard_rows=shard_rows, batch_size=batch_size, cache={"cache": False})


def featurize_args(d, out, *extra) -> list[str]:
    return ["featurize", "--mo", str(d / "mo.txt"), "--trg", str(d / "trg.txt"), "--spacy-model", SPACY_MODEL,
            "--no-cache", "--out", str(out), *extra]


# -- shard sizing (on a fake clock: no test here depends on how fast this machine is) ----------------------------

def simulate(total: int, workers: int, rate: float, per_row: int = 2) -> list[tuple[float, int, int]]:
    """A job of `total` rows cut by ShardSizer for `workers` workers that each compute `rate` rows/s: the shards as
    (time handed out, rows, worker), each worker asking for the next shard when it finishes one, the sizer told of
    every shard finished by then."""
    import heapq

    sizer = sizing.ShardSizer(per_row, workers)
    free = [(0.0, w) for w in range(workers)]
    running: list[tuple[float, int]] = []
    left, out = total, []
    while left:
        now, w = heapq.heappop(free)
        while running and running[0][0] <= now:
            _, rows = heapq.heappop(running)
            sizer.observe(rows, rows / rate)
        rows = sizer.next_rows(left)
        left -= rows
        sizer.handed(rows)
        out.append((now, rows, w))
        heapq.heappush(free, (now + rows / rate, w))
        heapq.heappush(running, (now + rows / rate, rows))
    return out


def test_first_shards_are_seconds_then_they_grow_to_the_target():
    sizer = sizing.ShardSizer(per_row=2, workers=1)
    assert (sizing.FIRST_SHARD_S, sizing.TARGET_SHARD_S, sizing.EXPECTED_SENTENCES_PER_S) == (1.0, 20.0, 800)
    assert sizer.next_rows(10**6) == 400                              # 1 s at 800 sentences/s: 400 pairs
    sizer.handed(400)
    sizer.observe(400, 2.0)                                           # measured: 200 rows/s (a busy machine)
    assert sizer.rate() == 200.0
    assert sizer.next_rows(10**6) == 800                              # twice the largest so far
    for rows in (800, 1600):
        sizer.handed(rows)
        sizer.observe(rows, rows / 200)
        assert sizer.next_rows(10**6) == 2 * rows
    sizer.handed(3200)
    sizer.observe(3200, 16.0)
    assert sizer.next_rows(10**6) == 4000                             # the target: 20 s at 200 rows/s
    sizer.observe(4000, 200.0)                                        # the machine got 10 times busier
    rate = (800 + 1600 + 3200 + 4000) / (4 + 8 + 16 + 200.0)          # over the last 4 shards
    assert sizer.rate() == rate and sizer.next_rows(10**6) == int(20 * rate)
    fast = sizing.ShardSizer(per_row=2, workers=1)
    fast.handed(10**6)
    fast.observe(10_000, 0.1)
    assert fast.next_rows(10**7) == sizing.MAX_SHARD_SENTENCES // 2    # the cap
    assert fast.next_rows(7) == 7 and fast.next_rows(1) == 1


@given(total=st.integers(1, 400_000), workers=st.integers(1, 16), rate=st.floats(5, 5_000), per_row=st.integers(1, 6))
def test_simulated_jobs_cover_the_rows_in_shards_of_bounded_time(total, workers, rate, per_row):
    shards = simulate(total, workers, rate, per_row)
    assert sum(r for _, r, _ in shards) == total and all(r >= 1 for _, r, _ in shards)
    first = max(1, int(sizing.FIRST_SHARD_S * sizing.EXPECTED_SENTENCES_PER_S / per_row))
    cap = sizing.MAX_SHARD_SENTENCES // per_row
    for t, rows, _ in shards:
        assert rows <= max(first, cap)
        if rows > first:                             # past the first shards: at most the target time of work
            assert rows / rate <= sizing.TARGET_SHARD_S + 1e-9
    assert shards[0][1] == min(first, -(-total // workers))
    assert len(shards) >= min(workers, total)        # every worker gets work
    if total >= workers * 4 * first:                 # a long job reaches the target or the cap
        assert max(r for _, r, _ in shards) >= min(cap, int(sizing.TARGET_SHARD_S * rate), 2 * first)


def test_progress_shows_within_seconds_on_a_loaded_machine():
    """The first shard is FIRST_SHARD_S of work at the expected rate; at a quarter of that rate (four times
    oversubscribed) it still ends within 10 s."""
    rate = sizing.EXPECTED_SENTENCES_PER_S / 2 / 4
    t, rows, _ = simulate(100_000, 2, rate)[0]
    assert rows / rate <= 10


def write_many(d, n):
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line]
    rows = (rows * (n // len(rows) + 1))[:n]
    (d / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (d / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")


class Ticks:
    """A fake clock: each call is one second later."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def slow_expected(monkeypatch):
    """16 sentences/s expected (a first shard of 8 pairs) and a fake clock: every shard 'takes' 1 s."""
    from peet_fast.jobs import plan

    monkeypatch.setattr(sizing, "EXPECTED_SENTENCES_PER_S", 16)
    monkeypatch.setattr(plan, "monotonic", Ticks())


def ranges(out) -> list[tuple[int, int]]:
    m = json.loads((out / "_manifest.json").read_text())
    return [(e["start"], e["stop"]) for e in m["shards"]]


def test_shards_grow_from_the_measured_rate_and_the_rows_do_not_depend_on_them(tmp_path, slow_expected):
    write_many(tmp_path, 60)
    manifest = run_job(spec_of(tmp_path), str(tmp_path / "job"), LocalRunner())
    # 8 rows (1 s at 16 sentences/s), then twice as many each time (1 s each: 8, 16 rows/s ...), the rest
    assert ranges(tmp_path / "job") == [(0, 8), (8, 24), (24, 56), (56, 60)]
    assert sorted(p.name for p in (tmp_path / "job").glob("part-*")) == [
        "part-0000000000.parquet", "part-0000000008.parquet", "part-0000000024.parquet", "part-0000000056.parquet"]
    m = json.loads((tmp_path / "job" / "_manifest.json").read_text())
    assert m["complete"] and m["shard_rows"] is None and m["shards_total"] is None and manifest.total == 60
    run_job(spec_of(tmp_path, 7), str(tmp_path / "sevens"), LocalRunner())      # an explicit size wins
    assert ranges(tmp_path / "sevens") == [(a, min(60, a + 7)) for a in range(0, 60, 7)]
    assert pq.read_table(tmp_path / "job").equals(pq.read_table(tmp_path / "sevens"))


def test_a_large_input_is_indexed_in_units(tmp_path, slow_expected, monkeypatch):
    from peet_fast.jobs import plan

    monkeypatch.setattr(plan, "MAX_UNITS", 8)                      # 60 rows: a boundary every 8 rows
    write_many(tmp_path, 60)
    run_job(spec_of(tmp_path), str(tmp_path / "job"), LocalRunner())
    cut = ranges(tmp_path / "job")
    assert all(a % 8 == 0 and (b % 8 == 0 or b == 60) for a, b in cut) and cut[-1][1] == 60
    run_job(spec_of(tmp_path, 60), str(tmp_path / "one"), LocalRunner())
    assert pq.read_table(tmp_path / "job").equals(pq.read_table(tmp_path / "one"))


def test_a_rerun_keeps_the_finished_shards_under_any_workers(tmp_path, slow_expected, capsys):
    write_many(tmp_path, 60)
    out = tmp_path / "job"
    run_job(spec_of(tmp_path), str(out), LocalRunner())
    reference = pq.read_table(out)
    kept = {p.name: p.read_bytes() for p in out.glob("part-*")}
    manifest = json.loads((out / "_manifest.json").read_text())
    gone = manifest["shards"].pop(1)                                # rows 8-24 lost, as by an interruption
    (out / gone["file"]).unlink()
    (out / "_manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()

    class TwoWorkersHere(LocalRunner):
        workers = 2

    again = run_job(spec_of(tmp_path), str(out), TwoWorkersHere())
    assert capsys.readouterr().err.splitlines()[0] == \
        f"peet-fast featurize: {out}: 3 shards already done (44 of 60 rows), reused"
    assert [(a, b) for a, b in ranges(out)][:1] == [(0, 8)] and (24, 56) in ranges(out) and again.complete()
    assert (8, 16) in ranges(out)                                   # the gap cut anew: 8 rows for 2 workers
    for name, data in kept.items():
        if name != gone["file"]:
            assert (out / name).read_bytes() == data                # reused, not recomputed
    assert pq.read_table(out).equals(reference)
    capsys.readouterr()
    run_job(spec_of(tmp_path), str(out), LocalRunner())
    assert capsys.readouterr().err.splitlines() == [
        f"peet-fast featurize: {out}: the job is already complete (5 shards); nothing to compute"]


def test_a_recorded_shard_off_this_inputs_boundaries_is_cut_again(tmp_path, slow_expected, monkeypatch):
    from peet_fast.jobs import plan

    write_many(tmp_path, 60)
    out = tmp_path / "job"
    run_job(spec_of(tmp_path), str(out), LocalRunner())
    reference = pq.read_table(out)
    assert ranges(out) == [(0, 8), (8, 24), (24, 56), (56, 60)]
    monkeypatch.setattr(plan, "MAX_UNITS", 6)       # the input is now indexed every 10 rows: no shard lies on them
    run_job(spec_of(tmp_path), str(out), LocalRunner())
    cut = ranges(out)
    assert all(a % 10 == 0 and (b % 10 == 0 or b == 60) for a, b in cut) and cut[0][0] == 0 and cut[-1][1] == 60
    assert sorted(p.name for p in out.glob("part-*")) == [f"part-{a:010d}.parquet" for a, _ in cut]    # old ones gone
    assert pq.read_table(out).equals(reference)


def test_interrupted_by_sigint_after_the_first_shard_keeps_it_and_resumes_exactly(tmp_path):
    """peet-fast featurize --workers 1 on 4,000 pairs, SIGINT as soon as the first part file appears: the shard is
    kept, and a rerun completes with the rows of an uninterrupted run."""
    import os
    import signal
    import subprocess
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    write_many(tmp_path, 4000)
    out = tmp_path / "job"
    argv = [sys.executable, "-m", "peet_fast.cli", *featurize_args(tmp_path, out, "--workers", "1")]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    # SIGINT at its default in the child, whatever the suite's (a suite started with & from a script ignores it)
    proc = subprocess.Popen(argv, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 600                          # (only a bound against hanging for ever)
        while proc.poll() is None and not list(out.glob("part-*.parquet")) and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=600)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.splitlines()[-1].startswith("peet-fast featurize: interrupted: "), err
    assert err.splitlines()[-1].endswith(" done; run the same command again to resume")
    kept = {p.name: p.read_bytes() for p in out.glob("part-*.parquet")}
    assert "part-0000000000.parquet" in kept
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "already done" in done.stderr.splitlines()[0]
    for name, data in kept.items():
        assert (out / name).read_bytes() == data
    run_job(spec_of(tmp_path, 4000), str(tmp_path / "whole"), LocalRunner())     # uninterrupted, one shard
    assert pq.read_table(out).equals(pq.read_table(tmp_path / "whole"))


# -- progress inside a shard -----------------------------------------------------------------------------------------

def test_a_shard_in_this_process_reports_rows_before_it_ends(tmp_path):
    """One shard of 24 pairs, parsed in batches of 4 sentences: the progress callback hears rows done inside the
    shard (growing, below 24) before the shard is finished, and the table equals a run without progress."""
    write_pairs(tmp_path)
    seen: list[tuple[int, int]] = []
    run_job(spec_of(tmp_path, 24, batch_size=4), str(tmp_path / "job"), LocalRunner(),
            lambda done, total: seen.append((done, total)))
    inside = [done for done, _ in seen if 0 < done < 24]
    assert len(set(inside)) >= 2, seen
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1] == (24, 24) and seen[0] == (0, 24)
    run_job(spec_of(tmp_path, 24), str(tmp_path / "plain"), LocalRunner())
    assert pq.read_table(tmp_path / "job").equals(pq.read_table(tmp_path / "plain"))


def test_score_in_this_process_reports_more_often_than_per_2048_lines(tmp_path):
    from peet_fast.jobs.tasks import JobOptions, score
    from peet_fast.peet.model import load_model

    sample = FIXTURES / "sample"
    seen: list[int] = []
    score([str(sample / "system_a.txt")], [str(sample / "reference.txt")], load_model(),
          options=JobOptions(spacy_model=SPACY_MODEL, batch_size=4, cache={"cache": False},
                             progress=lambda done, total: seen.append(done)))
    assert len({d for d in seen if 0 < d < 36}) >= 2 and seen[-1] == 36, seen


class _SlowParseActor(_ShardActor):
    """Parses one sentence every 0.2 s: a 24-pair shard takes several seconds (pairs without edits need no parse)."""

    def __init__(self, spec, out_dir, cwd):
        super().__init__(spec, out_dir, cwd)
        parser = self.state.annotator.parser
        real = parser.pipe_docs

        def slow(docs):
            for doc in real(docs):
                time.sleep(0.2)
                yield doc
        parser.pipe_docs = slow


class _SlowParseRunner(RayRunner):
    actor_class = _SlowParseActor


def test_a_ray_actor_reports_rows_before_its_shard_ends(tmp_path):
    ray = pytest.importorskip("ray")
    from ray import cloudpickle

    from peet_fast.jobs.ray import init_ray

    write_pairs(tmp_path)
    if ray.is_initialized():
        ray.shutdown()
    init_ray(1, None)
    seen: list[tuple[float, int]] = []
    cloudpickle.register_pickle_by_value(sys.modules[__name__])     # the actors cannot import this test module
    try:
        run_job(spec_of(tmp_path, 24, batch_size=4), str(tmp_path / "job"), _SlowParseRunner(1),
                lambda done, total: seen.append((time.monotonic(), done)))
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        ray.shutdown()
    inside = sorted({done for _, done in seen if 0 < done < 24})
    assert len(inside) >= 2, seen                   # polled every second of a ~6 s shard (31 sentences)
    assert seen[-1][1] == 24
    run_job(spec_of(tmp_path, 24), str(tmp_path / "here"), LocalRunner())
    assert pq.read_table(tmp_path / "job").equals(pq.read_table(tmp_path / "here"))


def _priority() -> int:
    import os

    return os.getpriority(os.PRIO_PROCESS, 0)


def test_the_workers_of_a_local_instance_run_at_the_drivers_priority():
    """Ray starts its workers 15 nice levels below the raylet; a local instance of ours (init_ray, as --workers N
    starts it) starts them at the driver's priority, so that on a busy machine the actors do not starve beside the
    driver, which computes shards too (issue 33)."""
    ray = pytest.importorskip("ray")
    from ray import cloudpickle

    from peet_fast.jobs.ray import init_ray

    if ray.is_initialized():
        ray.shutdown()
    init_ray(1, None)
    cloudpickle.register_pickle_by_value(sys.modules[__name__])     # the workers cannot import this test module
    try:
        assert ray.get(ray.remote(num_cpus=1)(_priority).remote()) == _priority()
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        ray.shutdown()


# -- what a rerun and an interruption say ----------------------------------------------------------------------------

def test_a_resumed_job_says_how_many_shards_it_reused(tmp_path, capsys):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    assert main(featurize_args(tmp_path, out, "--shard-rows", "6")) == 0
    reference = pq.read_table(out)
    manifest = json.loads((out / "_manifest.json").read_text())
    gone = manifest["shards"].pop()
    (out / gone["file"]).unlink()
    (out / "_manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main(featurize_args(tmp_path, out, "--shard-rows", "6")) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"peet-fast featurize: {out}: 3 of 4 shards already done, reused"
    assert pq.read_table(out).equals(reference)


def test_a_complete_job_says_so_and_starts_no_runner(tmp_path, capsys, monkeypatch):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    assert main(featurize_args(tmp_path, out, "--shard-rows", "6")) == 0            # in this process
    capsys.readouterr()
    monkeypatch.setattr(RayRunner, "start", lambda *a: pytest.fail("Ray was started for a complete job"))
    monkeypatch.setattr(RayRunner, "run", lambda *a: pytest.fail("Ray was started for a complete job"))
    assert main(featurize_args(tmp_path, out, "--workers", "2", "--shard-rows", "6")) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"peet-fast featurize: {out}: the job is already complete (4 of 4 shards); nothing to compute",
                   f"peet-fast featurize: 24 rows (small features) in 4 shards in {out}"]


def test_a_complete_manifest_whose_part_is_damaged_starts_the_runner_after_all(tmp_path, capsys):
    write_pairs(tmp_path)
    run_job(spec_of(tmp_path, 6), str(tmp_path / "job"), LocalRunner())
    reference = pq.read_table(tmp_path / "job")
    (tmp_path / "job" / "part-00002.parquet").write_bytes(b"PAR1")     # listed, but its checksum no longer holds
    events = []

    class Recording(LocalRunner):
        def start(self, spec, out_dir, shards):
            events.append(("start", shards))

        def run(self, spec, shards, out_dir, on_done):
            events.append(("run", [s.index for s in shards]))
            super().run(spec, shards, out_dir, on_done)

    run_job(spec_of(tmp_path, 6), str(tmp_path / "job"), Recording())
    assert events == [("start", 1), ("run", [2])]
    assert capsys.readouterr().err.splitlines()[-1] == \
        f"peet-fast featurize: {tmp_path / 'job'}: 3 of 4 shards already done, reused"
    assert pq.read_table(tmp_path / "job").equals(reference)


class _Interrupting(LocalRunner):
    """Computes `finish` shards, then is interrupted (as by Ctrl-C)."""

    def __init__(self, finish: int):
        self.finish = finish

    def run(self, spec, shards, out_dir, on_done):
        super().run(spec, shards[:self.finish], out_dir, on_done)
        raise KeyboardInterrupt


def test_an_interruption_before_any_shard_finished_says_nothing_to_resume(tmp_path, capsys, monkeypatch):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    with pytest.raises(JobInterrupted) as caught:
        run_job(spec_of(tmp_path, 6), str(out), _Interrupting(0))
    assert str(caught.value) == "interrupted before any of 4 shards finished; nothing to resume"
    assert not out.exists()                                   # a directory this run made: not left behind
    monkeypatch.setattr("peet_fast.jobs.runner_for", lambda *a, **k: _Interrupting(0))
    assert main(featurize_args(tmp_path, out, "--shard-rows", "6")) == 130
    assert capsys.readouterr().err.splitlines() == [
        "peet-fast featurize: interrupted before any of 4 shards finished; nothing to resume"]
    assert not out.exists()


def test_an_interruption_after_some_shards_keeps_them_and_says_resume(tmp_path, capsys, monkeypatch):
    write_pairs(tmp_path)
    out = tmp_path / "job"
    monkeypatch.setattr("peet_fast.jobs.runner_for", lambda *a, **k: _Interrupting(2))
    assert main(featurize_args(tmp_path, out, "--shard-rows", "6")) == 130
    assert capsys.readouterr().err.splitlines() == [
        "peet-fast featurize: interrupted: 2 of 4 shards done; run the same command again to resume"]
    assert sorted(p.name for p in out.glob("part-*")) == ["part-00000.parquet", "part-00001.parquet"]
    monkeypatch.undo()
    assert main(featurize_args(tmp_path, out, "--shard-rows", "6")) == 0
    assert capsys.readouterr().err.splitlines()[0] == f"peet-fast featurize: {out}: 2 of 4 shards already done, reused"
