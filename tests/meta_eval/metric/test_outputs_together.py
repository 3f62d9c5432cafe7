"""`meta-eval` commits all of its outputs together, after the last one is complete (issue 36, point 12): a run that
fails or is interrupted while plotting leaves an earlier --summary byte-identical and no plot, no temporary file."""
from __future__ import annotations

import errno
import os

import pytest
from conftest import SHARED_CORPORA

from peet_fast.cli import main
from peet_fast.meta_eval.metric import plots

SEEDA = SHARED_CORPORA / "judgments" / "seeda"
GOLD = SHARED_CORPORA / "conll14" / "official-2014.combined.m2"
pytestmark = pytest.mark.skipif(not (SEEDA.is_dir() and GOLD.is_file()), reason="../shared/corpora not present")
OLD = b'{"an": "earlier summary"}\n'


def meta_eval(capsys, summary, plot) -> tuple[int, str]:
    rc = main(["meta-eval", "--data", "seeda", str(SEEDA), "--gold", str(GOLD), "--metric", "wer", "--window", "4",
               "--summary", str(summary), "--plot", str(plot)])
    return rc, capsys.readouterr().err


def leftovers(*dirs) -> list[str]:
    return [os.path.join(d, n) for d in dirs if os.path.isdir(d) for n in os.listdir(d) if n.startswith(".peet-fast")]


def read_only_directory(tmp_path):
    """A directory this process cannot write in: tmp_path/ro made read-only, or (as root, whom modes do not stop)
    /sys, read-only for everyone; None where there is none."""
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        (ro / "probe").write_text("")
    except OSError:
        return ro
    (ro / "probe").unlink()
    try:
        os.mkdir("/sys/peet-fast-probe")
    except OSError:
        return "/sys"
    os.rmdir("/sys/peet-fast-probe")
    return None


def test_plot_into_a_read_only_directory_leaves_the_old_summary(capsys, tmp_path):
    ro = read_only_directory(tmp_path)
    if ro is None:
        pytest.skip("no directory this process cannot write in")
    summary = tmp_path / "s.json"
    summary.write_bytes(OLD)
    rc, err = meta_eval(capsys, summary, os.path.join(ro, "plots"))
    assert rc != 0 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert summary.read_bytes() == OLD
    assert leftovers(tmp_path) == [] and not os.path.exists(os.path.join(ro, "plots"))


def test_a_failure_while_plotting_leaves_the_old_summary_and_no_plot(capsys, tmp_path, monkeypatch):
    summary, plot = tmp_path / "s.json", tmp_path / "plots"
    summary.write_bytes(OLD)
    real, calls = plots.scatter, []

    def full_disk(*args, **kwargs):                 # after the window and heatmap PNGs are written: a full disk
        calls.append(1)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(plots, "scatter", full_disk)
    rc, err = meta_eval(capsys, summary, plot)
    assert calls and rc != 0 and "No space left on device" in err and len(err.strip().splitlines()) == 1, err
    assert summary.read_bytes() == OLD and not plot.exists() and leftovers(tmp_path) == []
    monkeypatch.setattr(plots, "scatter", real)


def test_sigint_while_plotting_leaves_nothing(capsys, tmp_path, monkeypatch):
    summary, plot = tmp_path / "s.json", tmp_path / "plots"
    summary.write_bytes(OLD)
    plot.mkdir()
    (plot / "old.png").write_bytes(b"old")
    real = plots.heatmap

    def interrupted(*args, **kwargs):                # the window PNGs are written by now
        real(*args, **kwargs)
        raise KeyboardInterrupt      # what SIGINT's handler raises (a signal's own delivery: tests/en/test_long_runs.py)

    monkeypatch.setattr(plots, "heatmap", interrupted)
    rc, err = meta_eval(capsys, summary, plot)
    assert rc == 130 and err.strip() == "peet-fast meta-eval: interrupted; no output written"
    assert summary.read_bytes() == OLD and sorted(os.listdir(plot)) == ["old.png"] and leftovers(tmp_path) == []


def test_a_complete_run_writes_every_output(capsys, tmp_path):
    summary, plot = tmp_path / "s.json", tmp_path / "new" / "plots"
    summary.write_bytes(OLD)
    rc, err = meta_eval(capsys, summary, plot)
    assert rc == 0, err
    assert summary.read_bytes() != OLD and summary.read_text().startswith("{")
    names = sorted(os.listdir(plot))
    assert "window-ew_sent.png" in names and "pairwise-wer-sent.png" in names and not any(
        n.startswith(".") for n in names)
    assert f"wrote {plot / 'window-ew_sent.png'}" in err
    assert leftovers(tmp_path, tmp_path / "new", plot) == []
    assert oct(plot.stat().st_mode & 0o777) == oct(0o777 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
