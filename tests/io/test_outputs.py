"""Outputs never destroy what is not ours (issue 23, point 1): the atomic write (temporary file, then rename) is used
only for regular files. An output that is a character device, a FIFO, or a symlink to one is written in place (the
node survives, still a device or FIFO); a symlink to a regular file is followed (the target is replaced, the link
kept); a link through /proc/self/fd or /dev/stdout writes to the file the process already holds open.

The device is a private node made with mknod in a temporary directory (the null device's numbers), never /dev."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import SPACY_MODEL

from peet_fast.cli import main
from peet_fast.io import atomic_write, output_target

SPACY = ["--spacy-model", SPACY_MODEL]
ORIG = ["He go home .", "This are good ."]
COR = ["He goes home .", "This is good ."]


@pytest.fixture
def texts(tmp_path):
    (tmp_path / "o.txt").write_text("".join(s + "\n" for s in ORIG))
    (tmp_path / "c.txt").write_text("".join(s + "\n" for s in COR))
    return tmp_path


def m2_argv(d: Path, out: str) -> list[str]:
    return ["m2", "-orig", str(d / "o.txt"), "-cor", str(d / "c.txt"), "-out", out, *SPACY, "--quiet"]


def expected_m2(d: Path) -> bytes:
    ref = d / "ref.m2"
    assert main(m2_argv(d, str(ref))) == 0
    return ref.read_bytes()


def test_symlink_to_regular_file_is_followed_and_kept(texts):
    want = expected_m2(texts)
    target = texts / "real.m2"
    target.write_text("old contents\n")
    link = texts / "link.m2"
    link.symlink_to(target)
    assert main(m2_argv(texts, str(link))) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == want
    assert sorted(p.name for p in texts.iterdir()) == ["c.txt", "link.m2", "o.txt", "real.m2", "ref.m2"]


def test_relative_symlink_chain_to_a_new_file(texts):
    """A link (through another link) to a name not yet created: the file is made at the link's end."""
    want = expected_m2(texts)
    (texts / "sub").mkdir()
    (texts / "sub" / "hop").symlink_to("final.m2")            # relative to sub/
    (texts / "entry").symlink_to("sub/hop")
    assert main(m2_argv(texts, str(texts / "entry"))) == 0
    assert (texts / "entry").is_symlink() and (texts / "sub" / "hop").is_symlink()
    assert (texts / "sub" / "final.m2").read_bytes() == want


def _read_fifo(path: Path, sink: list):
    with open(path, "rb") as fh:
        sink.append(fh.read())


@pytest.mark.parametrize("via_link", [False, True])
def test_fifo_is_written_in_place(texts, via_link):
    want = expected_m2(texts)
    fifo = texts / "pipe"
    os.mkfifo(fifo)
    out = fifo
    if via_link:
        out = texts / "pipe-link"
        out.symlink_to(fifo)
    got: list = []
    reader = threading.Thread(target=_read_fifo, args=(fifo, got))
    reader.start()
    try:
        rc = main(m2_argv(texts, str(out)))
    finally:
        reader.join(timeout=600)
    assert rc == 0
    assert got == [want]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    if via_link:
        assert out.is_symlink()


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
@pytest.mark.parametrize("via_link", [False, True])
def test_character_device_is_written_in_place(texts, via_link):
    node = texts / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))   # a private null device
    out = node
    if via_link:
        out = texts / "null-link"
        out.symlink_to(node)
    assert main(m2_argv(texts, str(out))) == 0
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    if via_link:
        assert out.is_symlink()
    assert not [p for p in texts.iterdir() if p.name.startswith(".peet-fast-")]


def test_link_to_proc_self_fd_writes_the_open_stdout(texts):
    """-out LINK where LINK -> /proc/self/fd/1: the output reaches the process's stdout, here a file opened for
    appending, which keeps what it held and its inode (a shell's `>> log`)."""
    want = expected_m2(texts)
    link = texts / "to-stdout"
    link.symlink_to("/proc/self/fd/1")
    log = texts / "log.txt"
    log.write_bytes(b"kept line\n")
    inode = log.stat().st_ino
    with open(log, "ab") as fh:
        res = subprocess.run([sys.executable, "-m", "peet_fast.cli", *m2_argv(texts, str(link))], stdout=fh,
                             stderr=subprocess.PIPE, text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    assert log.stat().st_ino == inode
    assert log.read_bytes() == b"kept line\n" + want
    assert link.is_symlink()


def test_dev_stdout_is_never_replaced(texts):
    want = expected_m2(texts)
    log = texts / "log.txt"
    with open(log, "wb") as fh:
        res = subprocess.run([sys.executable, "-m", "peet_fast.cli", *m2_argv(texts, "/dev/stdout")], stdout=fh,
                             stderr=subprocess.PIPE, text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    assert log.read_bytes() == want
    assert os.path.islink("/dev/stdout") or not os.path.isfile("/dev/stdout")


def test_output_target_rules(tmp_path):
    reg = tmp_path / "f"
    reg.write_text("x")
    assert output_target(str(reg)) == (str(reg), False)
    assert output_target(str(tmp_path / "new")) == (str(tmp_path / "new"), False)
    (tmp_path / "l").symlink_to(reg)
    assert output_target(str(tmp_path / "l")) == (str(reg), False)
    os.mkfifo(tmp_path / "p")
    assert output_target(str(tmp_path / "p")) == (str(tmp_path / "p"), True)
    assert output_target("/dev/stdout")[1] and output_target("/proc/self/fd/2")[1] and output_target("/dev/fd/1")[1]
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    assert output_target(str(tmp_path / "loop"))[1]


def test_failed_write_leaves_a_regular_target_untouched(tmp_path):
    target = tmp_path / "t.txt"
    target.write_text("before\n")
    link = tmp_path / "l.txt"
    link.symlink_to(target)
    with pytest.raises(RuntimeError):
        with atomic_write(link) as fh:
            fh.write("partial")
            raise RuntimeError("boom")
    assert target.read_text() == "before\n" and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.txt", "t.txt"]


def test_a_killed_runs_temporary_file_is_removed_by_the_next_write(tmp_path):
    """kill -9 during an atomic write leaves .peet-fast-<host>-<pid>-*.tmp beside the output; the next write into
    that directory removes it when its process is gone, and leaves a live process's and a foreign host's alone."""
    import subprocess as sp

    from peet_fast.io import _host_tag, remove_stale_temp_files

    dead = sp.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".peet-fast-{_host_tag()}-{dead.pid}-abc.tmp"
    stale.write_text("partial")
    live = tmp_path / f".peet-fast-{_host_tag()}-{os.getppid()}-abc.tmp"
    live.write_text("being written")
    foreign = tmp_path / f".peet-fast-00000000-{dead.pid}-abc.tmp"
    foreign.write_text("another host's")
    other = tmp_path / ".peet-fast-unrelated.tmp"
    other.write_text("not ours to judge")
    with atomic_write(tmp_path / "out.txt") as fh:
        fh.write("done\n")
    assert not stale.exists()
    assert live.exists() and foreign.exists() and other.exists()
    assert (tmp_path / "out.txt").read_text() == "done\n"
    assert remove_stale_temp_files(str(tmp_path)) == []


def test_kill_9_mid_write_then_rerun_leaves_no_temporary_file(tmp_path):
    out = tmp_path / "o.txt"
    code = ("import os, signal, sys\nfrom peet_fast.io import atomic_write\n"
            f"with atomic_write({str(out)!r}) as fh:\n    fh.write('x' * 1000)\n    fh.flush()\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert res.returncode == -9
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]      # the killed run's leftover
    with atomic_write(out) as fh:
        fh.write("ok\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.txt"]
