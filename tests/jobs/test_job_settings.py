"""A job directory refused as another job's output names each setting that differs, with both values (issue 21,
point 3); a manifest written before settings were recorded keeps the general message."""
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
    assert err.splitlines()[-1] == (
        f"peet-fast featurize: error: {job}: holds the output of a different job (inputs: {mo} {trg} there, {mo} "
        f"{other} here; --shard-rows: 20000 there, 1 here); use another directory, or remove it to start again")
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
