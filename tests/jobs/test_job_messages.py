"""Messages of jobs that say what to do (issue 21, point 3): a job directory refused as another job's output names
each setting that differs, with both values (a manifest written before settings were recorded keeps the general
message); --ray-address with no cluster to join is one line of ours, naming --workers N, and no text of Ray's; Ray's
failures (a start that timed out, a token refused, a dashboard URL for the cluster's address) in our words (issue
33)."""
from __future__ import annotations

import json
import os
import re

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


def test_the_library_names_the_differing_settings_by_its_parameters():
    """jobs.spec.setting_differences as the API says it: each setting given by an option named by its parameter (the
    command line names its flag: above), values as recorded; the extra outputs named as options too."""
    from peet_fast.jobs.spec import setting_differences

    diff = setting_differences({"feature_set": "small", "tokenise": False, "extra": {}},
                               {"feature_set": "medium", "tokenise": True, "extra": {"edits": True}})
    assert str(diff) == ("feature_set: small there, medium here; tokenise: not given there, given here; "
                         "contributions/edits: neither there, edits here")
    assert setting_differences({"feature_set": "small"}, {"feature_set": "small"}) is None


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


# Ray's texts (its exception, with what its C++ core logged meanwhile where that names the cause) -> our clause
# (jobs.errors.ray_reason): never Ray's text cut at a colon, never a flag peet-fast does not have
AUTH = ("the cluster requires an authentication token and refused this one (none, or not the cluster's): set "
        "RAY_AUTH_MODE=token and give the cluster's token (RAY_AUTH_TOKEN, or `ray get-auth-token` on its head)")
REASONS = {
    "The current node timed out during startup. This could happen because some of the raylet failed to startup or "
    "the GCS has become overloaded.":
        "Ray's processes did not come up in time (its GCS or a raylet was too slow to start, as on a busy machine)",
    "Failed to connect to GCS at address 10.0.0.1:6379 within 5 seconds.\n[2026-12-01 10:00:00,000 E 1 1] "
    "gcs_rpc_client.h:150: InvalidAuthToken: Authentication token is missing or incorrect": AUTH,
    "\x1b[31mToken authentication is enabled but no authentication token was found\x1b[0m": AUTH,
    "Invalid Ray address: 'http://10.0.0.1:8265'. It looks like you set RAY_ADDRESS to an HTTP address (e.g. the API "
    "server address). To fix this, either:\n  1. Unset RAY_ADDRESS if you are running from a Ray node, or\n  2. Set "
    "RAY_ADDRESS to the GCS address instead (e.g. <head_node_ip>:6379).":
        "http://10.0.0.1:8265 is the URL of a Ray dashboard (what `ray job submit --address` takes), not the "
        "cluster's address: give ray_address 10.0.0.1:6379 (the head's GCS port, as `ray start --head` printed "
        "it), or inside `ray job submit` leave RAY_ADDRESS as it sets it",
    "\n\x1b[33mSomething else went wrong\x1b[0m\nmore detail": "Something else went wrong",
}


def test_ray_failures_are_told_in_our_words():
    from peet_fast.jobs.errors import ray_reason

    for text, reason in REASONS.items():
        assert str(ray_reason(text)) == reason, text       # the library's words: its parameter (ray_address)


def test_dashboard_url_as_the_cluster_address_says_what_to_give_instead(capsys, tmp_path, monkeypatch):
    """RAY_ADDRESS=http://HOST:DASHBOARD_PORT (what `ray job submit --address` takes) with --ray-address auto: one
    line naming the URL and what to give instead, exit 2 (it used to end cut at Ray's 'To fix this, either:')."""
    mo = tmp_path / "mo.txt"
    mo.write_text("He go home .\n")
    monkeypatch.setenv("RAY_ADDRESS", "http://127.0.0.1:8265")
    rc, err = featurize(capsys, "--hyp", mo, "--ref", mo, "--out", tmp_path / "job", "--ray-address", "auto")
    assert rc == 2
    assert err.splitlines() == [
        "peet-fast featurize: error: --ray-address auto: http://127.0.0.1:8265 is the URL of a Ray dashboard (what "
        "`ray job submit --address` takes), not the cluster's address: give --ray-address 127.0.0.1:6379 (the head's "
        "GCS port, as `ray start --head` printed it), or inside `ray job submit` leave RAY_ADDRESS as it sets it; "
        "finished shards are kept: run the same command again to resume"]
    assert not (tmp_path / "job").exists()


def test_a_cluster_refusing_the_token_names_authentication(capfd, tmp_path, monkeypatch):
    """A cluster that requires an authentication token: Ray's core logs InvalidAuthToken lines on file descriptor 2
    while ray.init fails with 'Failed to connect'; the one line names authentication (exit 2), and none of Ray's lines
    reach the terminal."""
    import socket

    import ray

    mo = tmp_path / "mo.txt"
    mo.write_text("He go home .\n")
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    port = listening.getsockname()[1]
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")

    def refused(*args, **kwargs):
        for _ in range(6):
            os.write(2, b"[2026-12-01 10:00:00,000 E 1 1] gcs_rpc_client.h:150: InvalidAuthToken: Authentication "
                        b"token is missing or incorrect\n")
        raise ConnectionError(f"Failed to connect to GCS at address 127.0.0.1:{port} within 5 seconds.")

    monkeypatch.setattr(ray, "init", refused)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    try:
        assert main(["featurize", "--hyp", str(mo), "--ref", str(mo), "--out", str(tmp_path / "job"), "--ray-address",
                     "auto", *SPACY]) == 2
    finally:
        listening.close()
    out, err = capfd.readouterr()
    assert err.splitlines() == [
        f"peet-fast featurize: error: cannot join the Ray cluster at 127.0.0.1:{port} (--ray-address auto: "
        f"RAY_ADDRESS): {AUTH}; finished shards are kept: run the same command again to resume"]
