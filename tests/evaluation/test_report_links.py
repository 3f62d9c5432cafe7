"""Issue 43, point 9: `report --out` that is a symbolic link, and what a killed run leaves.

A link (to an earlier report, to a name not yet created) is written through: the directory it leads to is written
or replaced, the link kept, nothing left beside either; a loop of links, or a link whose target's parent is missing,
is refused up front (one line, exit 2, before any work). A run killed with SIGKILL while writing leaves its temporary
directory (named with its process id); the next run removes it, and leaves alone one of a live process."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import FIXTURES
from peet_fast.cli import main
from peet_fast.evaluation import report as rp
from peet_fast.io import InputError
from peet_fast.io.write import _host_tag

pytest.importorskip("matplotlib")

TESTS = Path(__file__).resolve().parents[1]
RANK = FIXTURES / "rank"


def _ranking():
    sys.path.insert(0, str(TESTS / "evaluation"))
    try:
        from test_report import synthetic_ranking
    finally:
        sys.path.remove(str(TESTS / "evaluation"))
    return synthetic_ranking(None, n=40)


def _names(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir())


def test_a_link_to_an_earlier_report_is_written_through(tmp_path):
    ranking, model = _ranking()
    rp.write_report(str(tmp_path / "r1"), ranking, model)
    (tmp_path / "r1" / "stale.png").write_bytes(b"x")
    (tmp_path / "latest").symlink_to("r1")
    rp.write_report(str(tmp_path / "latest"), ranking, model)
    assert (tmp_path / "latest").is_symlink() and os.readlink(tmp_path / "latest") == "r1"
    assert (tmp_path / "r1" / "index.html").is_file() and not (tmp_path / "r1" / "stale.png").exists()
    assert _names(tmp_path) == ["latest", "r1"]                     # no .peet-fast-report-old-* beside it


def test_a_dangling_link_is_written_through(tmp_path):
    ranking, model = _ranking()
    (tmp_path / "out").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "out" / "new")
    rp.write_report(str(tmp_path / "link"), ranking, model)
    assert (tmp_path / "link").is_symlink() and (tmp_path / "out" / "new" / "index.html").is_file()
    assert _names(tmp_path) == ["link", "out"] and _names(tmp_path / "out") == ["new"]


@pytest.mark.parametrize("how", ["loop", "no parent", "to a file", "to another directory"])
def test_a_link_that_cannot_be_written_through_is_refused_up_front(tmp_path, capsys, how):
    link = tmp_path / "link"
    if how == "loop":
        link.symlink_to(tmp_path / "link2")
        (tmp_path / "link2").symlink_to(link)
        want = "a loop of links"
    elif how == "no parent":
        link.symlink_to(tmp_path / "missing" / "new")
        want = "whose parent directory does not exist"
    elif how == "to a file":
        (tmp_path / "f.txt").write_text("mine")
        link.symlink_to(tmp_path / "f.txt")
        want = "must be a directory"
    else:
        (tmp_path / "d").mkdir()
        (tmp_path / "d" / "notes.txt").write_text("mine")
        link.symlink_to(tmp_path / "d")
        want = "not empty"
    before = _names(tmp_path)
    with pytest.raises(InputError, match=want):
        rp.check_report_dir(str(link), "--out")
    status = main(["report", "--hyp", str(RANK / "good.txt"), "--ref", str(RANK / "reference.txt"),
                   "--out", str(link)])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and want in err, err
    assert _names(tmp_path) == before


KILLED = """
import sys, time
sys.path[:0] = [{tests!r}, {tests!r} + "/evaluation"]
from test_report import synthetic_ranking
from peet_fast.evaluation import report as rp
ranking, model = synthetic_ranking(None, n=40)
def hang(*a):
    print("writing", flush=True)
    time.sleep(600)
rp._place = hang
rp.write_report({out!r}, ranking, model)
"""


def test_a_killed_runs_temporary_directory_goes_at_the_next_run(tmp_path):
    ranking, model = _ranking()
    out = tmp_path / "report"
    proc = subprocess.Popen([sys.executable, "-c", KILLED.format(tests=str(TESTS), out=str(out))],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    left = [n for n in _names(tmp_path) if n.startswith(".peet-fast-")]
    assert len(left) == 1 and left[0].startswith(f".peet-fast-{_host_tag()}-{proc.pid}-report-"), left
    live = tmp_path / f".peet-fast-{_host_tag()}-{os.getppid()}-report-x.tmp"     # a live process's: kept
    live.mkdir()
    rp.write_report(str(out), ranking, model)
    assert _names(tmp_path) == sorted([live.name, "report"])
    assert (out / "index.html").is_file()
