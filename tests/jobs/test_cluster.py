"""Cluster jobs: the example cluster YAML is valid for Ray's autoscaler schema, and a scoring job submitted with
`ray job submit` to a real local head gives the single-process output. The head is this test's own (its own Ray
temporary directory; its processes stopped by a tag in their environment): other Ray instances on the machine, of
other tests or users, are never joined nor stopped."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

from conftest import FIXTURES, RAY_TAG, SPACY_MODEL, stop_tagged

EXAMPLE = Path(__file__).parents[2] / "peet_fast" / "cluster" / "example-cluster.yaml"


def test_example_cluster_yaml_is_valid():
    yaml = pytest.importorskip("yaml")
    from ray.autoscaler._private.util import prepare_config, validate_config

    config = yaml.safe_load(EXAMPLE.read_text())
    validate_config(prepare_config(config))            # raises on a schema violation
    assert config["provider"]["type"] == "local"
    assert any("peet" in c for c in config["setup_commands"])
    bad = dict(config, no_such_key=1)
    with pytest.raises(Exception, match="no_such_key"):
        validate_config(prepare_config(bad))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ray_job_submit_matches_single_process(tmp_path, monkeypatch):
    bindir = os.path.dirname(sys.executable)
    ray_exe = os.path.join(bindir, "ray")
    if not os.path.exists(ray_exe):
        pytest.skip("the ray command is not installed beside this Python")
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line][:80]
    hyp = tmp_path / "sys.txt"
    ref = tmp_path / "ref.txt"
    hyp.write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    ref.write_text("".join(r[1] + "\n" for r in rows), "utf-8")

    from peet_fast.cli import main
    assert main(["score", "--hyp", str(hyp), "--ref", str(ref), "--summary", str(tmp_path / "local.json"),
                 "--spacy-model", SPACY_MODEL]) == 0

    # this test's own cluster: its own temporary directory (Ray's record of the cluster, `ray_current_cluster`, is
    # written there, where no other process on the machine looks for one) and a tag in the environment of every
    # process it starts, by which they are stopped at the end (`ray stop` would stop every Ray on the machine)
    ray_tmp = tempfile.mkdtemp(prefix="rt", dir="/tmp")     # short: Ray's socket paths under it are limited to 107
    tag = uuid.uuid4().hex
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), RAY_AUTH_MODE="disabled",
               RAY_USAGE_STATS_ENABLED="0", RAY_TMPDIR=ray_tmp, **{RAY_TAG: tag})
    env.pop("RAY_ADDRESS", None)
    monkeypatch.setenv("RAY_TMPDIR", ray_tmp)       # this process looks for the cluster there too
    port, dash = free_port(), free_port()
    # every port Ray would otherwise take at its fixed default (the dashboard agent's 52365, the client server's
    # 10001, ...) a free one: another Ray on the machine holds the defaults, and the head's job agent then never starts
    ports = [f"--{name}-port={free_port()}" for name in ("dashboard-agent-listen", "dashboard-agent-grpc",
                                                         "metrics-export", "runtime-env-agent", "ray-client-server",
                                                         "node-manager", "object-manager")]
    try:
        start = subprocess.run([ray_exe, "start", "--head", f"--port={port}", f"--dashboard-port={dash}", *ports,
                                "--dashboard-host=127.0.0.1", "--include-dashboard=true", "--num-cpus=2",
                                "--disable-usage-stats"], env=env, capture_output=True, text=True, timeout=900)
        assert start.returncode == 0, start.stderr[-2000:]
        # --ray-address auto run on this machine means this cluster: the address `ray start` recorded
        from peet_fast.jobs.raystart import user_cluster

        monkeypatch.delenv("RAY_ADDRESS", raising=False)
        found = user_cluster()
        assert found is not None and found[0].endswith(f":{port}"), found
        end = time.monotonic() + 600
        while True:      # a busy machine: the head's job agent may not be up yet ("try again later")
            job = subprocess.run(
                [ray_exe, "job", "submit", f"--address=http://127.0.0.1:{dash}", "--",
                 "peet-fast", "score", "--hyp", str(hyp), "--ref", str(ref), "--out", str(tmp_path / "job"),
                 "--summary", str(tmp_path / "cluster.json"), "--ray-address", "auto", "--workers", "2",
                 "--shard-rows", "25", "--spacy-model", SPACY_MODEL],
                env=env, capture_output=True, text=True, timeout=1200)
            if job.returncode == 0 or "No available agent" not in job.stdout + job.stderr or time.monotonic() > end:
                break
            time.sleep(2)
        assert job.returncode == 0, (job.stdout + job.stderr)[-3000:]
        assert "succeeded" in job.stdout + job.stderr
        # a local --workers run on a machine where a cluster is up starts its own instance (it must not try to
        # join that cluster with a CPU count, which Ray refuses)
        import ray

        from peet_fast.jobs import JobSpec, run_job, runner_for, text_source
        if ray.is_initialized():
            ray.shutdown()      # (the suite's shared instance: this run must start one of its own)
        try:
            run_job(JobSpec("featurize", text_source([hyp, ref]), spacy_model=SPACY_MODEL, shard_rows=40),
                    str(tmp_path / "local-job"), runner_for(2))
        finally:
            ray.shutdown()
        assert len(list((tmp_path / "local-job").glob("part-*.parquet"))) == 2
    finally:
        left = stop_tagged(tag)          # this test's cluster, and nothing else on the machine
        shutil.rmtree(ray_tmp, ignore_errors=True)
    assert left == [], f"the test's Ray processes did not stop: {left}"
    local = json.loads((tmp_path / "local.json").read_text())["systems"]
    cluster = json.loads((tmp_path / "cluster.json").read_text())["systems"]
    assert [(s["name"], s["peet"], s["sentences"]) for s in local] == \
        [(s["name"], s["peet"], s["sentences"]) for s in cluster]
    assert len(list((tmp_path / "job").glob("part-*.parquet"))) == 4
