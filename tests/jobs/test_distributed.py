"""Sharded jobs: the same output for any shard size and worker count (in-process or a local Ray actor pool),
resumption after an interruption or a bad row, and a killed Ray worker retried with identical output."""
from __future__ import annotations

import json
import os
import signal
import threading
import time

import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES, SPACY_MODEL
from peet_fast.io import InputError
from peet_fast.jobs import JobSpec, LocalRunner, local, run_job, runner_for, shard_paths, table_source, text_source
from peet_fast.jobs.tasks import score_summary
from peet_fast.peet.model import load_model


class Interrupted(Exception):
    """Stands in for a killed driver (Ctrl-C, a lost node)."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Two systems and two references built from the fixture corpus (line-aligned, 150 lines)."""
    d = tmp_path_factory.mktemp("corpus")
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line][:150]
    mo = [r[0] for r in rows]
    trg = [r[1] for r in rows]
    files = {"sysA": mo, "sysB": [t if k % 3 else m for k, (m, t) in enumerate(zip(mo, trg))],
             "ref1": trg, "ref2": [t if k % 2 else m for k, (m, t) in enumerate(zip(mo, trg))]}
    paths = {}
    for name, lines in files.items():
        paths[name] = d / f"{name}.txt"
        paths[name].write_text("".join(x + "\n" for x in lines), "utf-8")
    return paths


@pytest.fixture(scope="module")
def ray_session():
    """Ray (the local instance the suite's in-process runs share, stopped by tests/conftest.py)."""
    return pytest.importorskip("ray")


def score_spec(corpus, shard_rows):
    model = load_model()
    return JobSpec("score", text_source([corpus["sysA"], corpus["sysB"], corpus["ref1"], corpus["ref2"]]),
                   model=model.to_json(), system_names=("sysA", "sysB"), n_refs=2, spacy_model=SPACY_MODEL,
                   shard_rows=shard_rows)


def result(out_dir):
    table = pq.read_table(out_dir).sort_by([("system", "ascending"), ("sentence", "ascending")])
    summary = score_summary(str(out_dir), ["sysA", "sysB"], ["a", "b"], 150)
    return table, [(s.name, s.peet) for s in summary]


@pytest.fixture(scope="module")
def reference_run(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "job"
    run_job(score_spec(corpus, 1000), str(out), LocalRunner())
    return result(out)


@pytest.mark.parametrize("shard_rows", [7, 40])
def test_same_numbers_for_any_shard_size(corpus, tmp_path, reference_run, shard_rows):
    run_job(score_spec(corpus, shard_rows), str(tmp_path / "job"), LocalRunner())
    table, summary = result(tmp_path / "job")
    assert table.equals(reference_run[0])
    assert summary == reference_run[1]          # exactly: means are correctly rounded sums


def test_same_numbers_on_two_ray_workers(corpus, tmp_path, reference_run, ray_session):
    run_job(score_spec(corpus, 13), str(tmp_path / "job"), runner_for(2))
    table, summary = result(tmp_path / "job")
    assert table.equals(reference_run[0])
    assert summary == reference_run[1]
    assert not (tmp_path / "job" / "_workers").exists()


def shard_worker_pids() -> list[int]:
    """The pids of this test process's Ray actors that run shards: descendants of this process (the local Ray
    instance's raylet starts them) whose command line (Ray's process title) names the actor class."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    parents[int(entry)] = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    me = os.getpid()

    def descends(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == me:
                return True
        return False

    pids = []
    for pid in parents:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read()
        except OSError:
            continue
        if b"_ShardActor" in cmdline and descends(pid):
            pids.append(pid)
    return pids


def test_killed_worker_is_retried(corpus, tmp_path, reference_run, ray_session):
    """A Ray instance started here (not by the runner): every shard runs on one of the 2 actors, so that one is
    there to kill (on an instance of its own the runner's driver computes shards too, and may finish them all
    before its one actor is ready)."""
    from peet_fast.jobs.ray import init_ray

    if ray_session.is_initialized():
        ray_session.shutdown()
    init_ray(2, None)
    out = tmp_path / "job"
    killed = []

    def killer():
        deadline = time.time() + 900      # (a ceiling against a hang, not a timing)
        while time.time() < deadline and not killed:
            time.sleep(0.05)
            try:
                done = json.loads((out / "_manifest.json").read_text())["shards"]
            except (OSError, ValueError):
                continue
            pids = shard_worker_pids() if done else []
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    run_job(score_spec(corpus, 5), str(out), runner_for(2))
    t.join(timeout=1)
    assert killed, "no worker was killed: the test did not exercise a retry"
    table, summary = result(out)
    assert table.equals(reference_run[0])
    assert summary == reference_run[1]


def test_interrupted_job_resumes_from_its_manifest(corpus, tmp_path, reference_run, monkeypatch):
    out = tmp_path / "job"
    real = local.run_shard
    calls = []

    interrupt = [True]

    def flaky(state, shard, out_dir):
        calls.append(shard.index)
        if len(calls) == 4 and interrupt[0]:
            interrupt[0] = False
            raise Interrupted("stopped mid-run")
        return real(state, shard, out_dir)

    monkeypatch.setattr(local, "run_shard", flaky)
    with pytest.raises(Interrupted):
        run_job(score_spec(corpus, 20), str(out), LocalRunner())
    manifest = json.loads((out / "_manifest.json").read_text())
    assert [s["index"] for s in manifest["shards"]] == [0, 1, 2] and not manifest["complete"]
    with pytest.raises(InputError, match="not complete"):
        shard_paths(str(out))
    calls.clear()
    run_job(score_spec(corpus, 20), str(out), LocalRunner())
    assert calls == [3, 4, 5, 6, 7]              # only the missing shards were computed
    table, summary = result(out)
    assert table.equals(reference_run[0])
    assert summary == reference_run[1]


def test_bad_row_stops_the_job_and_completed_shards_survive_the_fix(tmp_path, monkeypatch):
    rows = [{"mo": f"He go to school {k} .", "trg": f"He goes to school {k} ."} for k in range(12)]
    good = "".join(json.dumps(r) + "\n" for r in rows)
    bad = good.replace(json.dumps(rows[9]), '{"mo": "He go", "trg": ')
    p = tmp_path / "pairs.jsonl"
    p.write_text(bad)
    spec = JobSpec("featurize", table_source(p), spacy_model=SPACY_MODEL, shard_rows=4)
    out = tmp_path / "feats"
    with pytest.raises(InputError, match=r"pairs.jsonl:10: malformed JSON row \(shard 2\)"):
        run_job(spec, str(out), LocalRunner())
    assert [s["index"] for s in json.loads((out / "_manifest.json").read_text())["shards"]] == [0, 1]
    p.write_text(good)
    calls = []
    real = local.run_shard
    monkeypatch.setattr(local, "run_shard", lambda st, sh, od: calls.append(sh.index) or real(st, sh, od))
    run_job(JobSpec("featurize", table_source(p), spacy_model=SPACY_MODEL, shard_rows=4), str(out), LocalRunner())
    assert calls == [2]
    t = pq.read_table(out)
    assert t.column("id").to_pylist() == list(range(12))    # no id column: the row numbers, integers
    assert t.column("R").to_pylist() == [1] * 12          # go -> goes in every row


def test_another_jobs_directory_is_refused(corpus, tmp_path):
    out = tmp_path / "job"
    run_job(score_spec(corpus, 50), str(out), LocalRunner())
    other = JobSpec("featurize", text_source([corpus["sysA"], corpus["ref1"]]), spacy_model=SPACY_MODEL)
    with pytest.raises(InputError, match="different job"):
        run_job(other, str(out), LocalRunner())


def test_cli_score_job_matches_in_process_score(corpus, tmp_path, capsys, ray_session):
    from peet_fast.cli import main

    files = [str(corpus[k]) for k in ("sysA", "sysB")]
    refs = [str(corpus[k]) for k in ("ref1", "ref2")]
    assert main(["score", "--hyp", *files, "--ref", *refs, "--summary", str(tmp_path / "a.json"),
                 "--spacy-model", SPACY_MODEL]) == 0
    assert main(["score", "--hyp", *files, "--ref", *refs, "--summary", str(tmp_path / "b.json"),
                 "--spacy-model", SPACY_MODEL, "--out", str(tmp_path / "job"), "--workers", "2",
                 "--shard-rows", "30"]) == 0
    a = json.loads((tmp_path / "a.json").read_text())["systems"]
    b = json.loads((tmp_path / "b.json").read_text())["systems"]
    assert a == b
