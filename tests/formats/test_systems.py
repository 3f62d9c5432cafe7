"""formats.systems: systems named as a command line names them (PATH or NAME=PATH, or names beside paths). Its
errors name the parameter (hyps, names) or the spec at fault, never a command-line flag (issue 34); the command line
words them as --hyp and --names (tests/cli/test_flags.py)."""
from __future__ import annotations

import pytest

from peet_fast.formats.systems import named_systems
from peet_fast.io import InputError


def test_names_and_paths():
    assert named_systems(["best=x/a.txt", "y/b.txt"]) == (["best", "b"], ["x/a.txt", "y/b.txt"])
    assert named_systems(["x/a.txt"], ["mine"]) == (["mine"], ["x/a.txt"])


@pytest.mark.parametrize("hyps, names, message", [
    (["a.txt", "b.txt"], ["x"], "names: gives 1 name for 2 hypothesis files"),
    (["x/a.txt", "y/a.txt"], None, "hyps: two systems are named 'a': x/a.txt and y/a.txt; name them apart "
                                   "(`hyps` NAME=PATH ... or `names` NAME ...)"),
    (["a=b=c"], None, "a=b=c: NAME=PATH takes a path without '=' (a file whose path has '=' in it: give the paths "
                      "as they are and the names with `names`)"),
    (["a=p.txt"], ["n"], "a=p.txt: no such file (with `names`, `hyps` takes paths as they are, not NAME=PATH)"),
    (["lr=0.1.txt"], None, "lr=0.1.txt: a path with '=' in it reads as NAME=PATH; give the paths as they are and the "
                           "names with `names` NAME ..."),
])
def test_errors_name_the_parameter_not_a_flag(tmp_path, monkeypatch, hyps, names, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lr=0.1.txt").write_text("a\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        named_systems(hyps, names)
    assert str(caught.value) == message
    assert "--" not in str(caught.value)
