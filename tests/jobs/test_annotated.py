"""jobs.annotated.read_annotated's refusals name the file and line, and the option as its caller knows it: the
library's source_mode parameter from Python, `train --source` on the command line."""
from __future__ import annotations

import pytest

from peet_fast.io import InputError
from peet_fast.jobs.annotated import read_annotated


def write_without_src(tmp_path):
    path = tmp_path / "data.tsv"
    path.write_text("mo\ttrg\ttime\nI has a cat .\tI have a cat .\t3.5\n", "utf-8")
    return path


def test_a_missing_src_column_names_the_parameter_from_python(tmp_path):
    path = write_without_src(tmp_path)
    with pytest.raises(InputError) as caught:
        read_annotated(str(path), "src-mo-trg")
    assert str(caught.value) == f"{path}:1: no 'src' column (needed by source_mode src-mo-trg)"
    assert "--" not in str(caught.value)
    assert len(read_annotated(str(path), "mo-trg").mo) == 1          # not needed without the source


def test_a_missing_src_column_names_the_flag_on_the_command_line(tmp_path, run_cli):
    path = write_without_src(tmp_path)
    rc, out, err = run_cli("train", "--data", path, "--source", "src-mo-trg", "--features", "small", "--out",
                           tmp_path / "model.json")
    assert (rc, out) == (2, "")
    assert err.splitlines() == [f"peet-fast train: error: {path}:1: no 'src' column (needed by --source src-mo-trg)"]
    assert not (tmp_path / "model.json").exists()
