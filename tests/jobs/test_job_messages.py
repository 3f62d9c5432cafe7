"""Messages of jobs that say what to do (issue 21, point 3): a job directory refused as another job's output names
each setting that differs, with both values (a manifest written before settings were recorded keeps the general
message); --ray-address with no cluster to join is one line of ours, naming --workers N, and no text of Ray's."""
from __future__ import annotations

import json

from conftest import SPACY_MODEL

from peet_fast.cli import main

SPACY = ["--spacy-model", SPACY_MODEL]


def featurize(capsys, *args) -> tuple[int, str]:
    rc = main(["featurize", *map(str, args), *SPACY])
    return rc, capsys.readouterr().err


def test_refusal_names_each_setting_that_differs(capsys, tmp_path):
    mo, trg, other = tmp_path / "mo.txt", tmp_path / "trg.txt", tmp_path / "other.txt"
    mo.write_text("He go home .\nI has a cat .\n")
    trg.write_text("He goes home .\nI have a cat .\n")
    other.write_text("He went home .\nI had a cat .\n")
    job = tmp_path / "job"
    assert featurize(capsys, "--hyp", mo, "--ref", trg, "--out", job)[0] == 0
    rc, err = featurize(capsys, "--hyp", mo, "--ref", trg, "--out", job, "--features", "medium", "-tok")
    assert rc == 2
    assert err.splitlines()[-1] == (
        f"peet-fast featurize: error: {job}: holds the output of a different job (--features: small there, medium "
        f"here; -tok: not given there, given here); use another directory, or remove it to start again")
    rc, err = featurize(capsys, "--hyp", mo, "--ref", other, "--out", job, "--shard-rows", "1")
    assert rc == 2
    # the first run's shards were cut as it ran (jobs.plan): no --shard-rows
    assert err.splitlines()[-1] == (
        f"peet-fast featurize: error: {job}: holds the output of a different job (inputs: {mo} {trg} there, {mo} "
        f"{other} here; --shard-rows: the default there, 1 here); use another directory, or remove it to start again")
    assert featurize(capsys, "--hyp", mo, "--ref", trg, "--out", job)[0] == 0      # the same job: resumed
    # a manifest of a version that recorded no settings: the general message
    manifest = job / "_manifest.json"
    old = json.loads(manifest.read_text())
    del old["settings"]
    manifest.write_text(json.dumps(old))
    rc, err = featurize(capsys, "--hyp", mo, "--ref", trg, "--out", job, "--features", "large")
    assert rc == 2
    assert err.splitlines()[-1] == (
        f"peet-fast featurize: error: {job}: holds the output of a different job (other inputs or settings); use "
        f"another directory, or remove it to start again")


RAY_TEXTS = {   # what ray.init(address=...) raises (Ray 2.x, ray/_private/services.py) -> our reason
    "Could not find any running Ray instance. Please specify the one to connect to by setting `--address` flag or "
    "`RAY_ADDRESS` environment variable.": "no Ray cluster was found (none running here, no RAY_ADDRESS)",
    "Found multiple active Ray instances: {'10.0.0.1:6379', '10.0.0.2:6379'}. Please specify the one to connect to "
    "by setting the `--address` flag or `RAY_ADDRESS` environment variable.":
        "several Ray instances run here {'10.0.0.1:6379', '10.0.0.2:6379'}; give one as HOST:PORT",
}


def test_ray_address_without_a_cluster_is_one_line_naming_workers(capsys, tmp_path, monkeypatch):
    """A cluster `ray start` recorded (Ray's ray_current_cluster, here in a private RAY_TMPDIR; a port that listens)
    that Ray then cannot join: Ray's refusal in our words. (No cluster recorded at all: tests/jobs/test_ray_address.py)"""
    import socket

    import ray

    mo = tmp_path / "mo.txt"
    mo.write_text("He go home .\n")
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    (tmp_path / "raytmp" / "ray").mkdir(parents=True)
    (tmp_path / "raytmp" / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{listening.getsockname()[1]}")
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path / "raytmp"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    for ray_text, reason in RAY_TEXTS.items():
        def refuse(*args, _text=ray_text, **kwargs):
            raise ConnectionError(_text)

        monkeypatch.setattr(ray, "init", refuse)
        monkeypatch.setattr(ray, "is_initialized", lambda: False)
        rc, err = featurize(capsys, "--hyp", mo, "--ref", mo, "--out", tmp_path / "job", "--ray-address", "auto")
        assert rc == 1
        assert err.splitlines() == [f"peet-fast featurize: error: --ray-address auto: {reason}; to run on this "
                                    f"machine instead, give --workers N without --ray-address"]
        assert "--address" not in err.replace("--ray-address", "") and "RAY_ADDRESS` " not in err
        assert not (tmp_path / "job").exists()
    listening.close()
