"""Jobs that show their progress and keep their work (issue 22): a running shard reports its rows done (in this
process and from Ray actors) before it ends; the automatic shard size follows the expected time of a shard (at least
4 shards per worker where the input allows; an explicit --shard-rows and a rerun's recorded size win); a rerun says
how many shards it reused, or that the job is complete -- then no runner starts; an interruption before any shard
finished says there is nothing to resume, one after says how many shards are kept."""
from __future__ import annotations

import json
import math
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


# -- shard sizing --------------------------------------------------------------------------------------------------

def shard_seconds(rows: int, per_row: int) -> float:
    """A shard's expected seconds of one worker's work."""
    return rows * per_row / sizing.EXPECTED_SENTENCES_PER_S


@given(total=st.integers(1, 2_000_000), workers=st.integers(1, 64), per_row=st.integers(1, 12))
def test_shard_size_follows_the_expected_time(total, workers, per_row):
    rows = sizing.auto_shard_rows(total, workers, per_row)
    n = math.ceil(total / rows)
    assert rows >= 1
    assert shard_seconds(rows, per_row) <= sizing.TARGET_SHARD_S          # never a longer shard than the target
    assert n >= min(workers, total)                                         # every worker gets work
    least = math.floor(sizing.MIN_SHARD_S * sizing.EXPECTED_SENTENCES_PER_S / per_row)
    if total >= sizing.SHARDS_PER_WORKER * workers * least:
        assert n >= sizing.SHARDS_PER_WORKER * workers                      # where the input allows: 4 per worker
    elif rows != max(1, total // workers):                                 # (not cut one per worker)
        assert shard_seconds(rows + 1, per_row) > sizing.MIN_SHARD_S          # fewer: only to keep shards >= 2.5 s
    big = sizing.SHARDS_PER_WORKER * workers * sizing.TARGET_SHARD_S * sizing.EXPECTED_SENTENCES_PER_S / per_row
    if total >= big:
        assert shard_seconds(rows + 1, per_row) > sizing.TARGET_SHARD_S       # large inputs: target-sized shards


@pytest.mark.parametrize("total, workers, per_row, rows", [
    (30_000, 2, 2, 3_750),       # the 30,000 pairs on 2 workers: 4 shards per worker, 9.4 s each at 800/s
    (6_000, 2, 2, 1_000),        # 4 per worker would be 1.9 s shards: 2.5 s ones instead (6 shards)
    (1_000_000, 8, 2, 8_000),    # large: 20 s shards
    (4_477, 1, 5, 1_120),        # BEA-19, 4 systems + 1 reference, in process: 4 shards of 7 s
    (36, 1, 3, 666),             # tiny, one worker: one shard (2.5 s of work holds 666 rows)
    (36, 2, 3, 18),              # tiny, two workers: one shard each
])
def test_shard_size_examples(total, workers, per_row, rows):
    assert sizing.auto_shard_rows(total, workers, per_row) == rows


def test_explicit_and_recorded_sizes_win(tmp_path):
    write_pairs(tmp_path)
    shards, total = sizing.plan(spec_of(tmp_path, 5).source, 5)
    explicit, cut = sizing.sized(spec_of(tmp_path, 5), shards, total, str(tmp_path / "job"), 2)
    assert explicit.shard_rows == 5 and [(s.start, s.stop) for s in cut][-1] == (20, 24)
    run_job(spec_of(tmp_path, 5), str(tmp_path / "job"), LocalRunner())       # records 5
    shards, total = sizing.plan(spec_of(tmp_path).source, sizing.DEFAULT_SHARD_ROWS)
    recorded, cut = sizing.sized(spec_of(tmp_path), shards, total, str(tmp_path / "job"), 8)
    assert recorded.shard_rows == 5 and len(cut) == 5                       # not the 8 workers' 3 rows
    fresh, cut = sizing.sized(spec_of(tmp_path), shards, total, str(tmp_path / "other"), 8)
    assert fresh.shard_rows == 3 and len(cut) == 8


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
    from peet_fast.jobs.tasks import score
    from peet_fast.peet.model import load_model

    sample = FIXTURES / "sample"
    seen: list[int] = []
    score([str(sample / "system_a.txt")], [str(sample / "reference.txt")], load_model(), spacy_model=SPACY_MODEL,
          batch_size=4, cache={"cache": False}, progress=lambda done, total: seen.append(done))
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
