"""Every input a command reads goes through the one bounded reader (peet_fast.io.read): a NUL byte, an over-long
line, a file (or a .gz once inflated) over the size bound and an endless standard input are refused with one line
and exit 2, in bounded memory, before anything downstream (the M2 lattice) sees them. The hostile cases run in a
subprocess under an address-space limit (RLIMIT_AS), so that a reader that reads a whole /dev/zero fails here with a
MemoryError instead of exhausting the machine."""
from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from peet_fast.cli import main

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 1 << 30          # the address space of a hostile run: 5x what a normal m2scorer or gleu run needs

_RUN = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
import peet_fast.io.read as R
for setting in filter(None, sys.argv[2].split(",")):
    name, value = setting.split("=")
    setattr(R, name, int(value))
from peet_fast.cli import main
sys.exit(main(sys.argv[3:]))
"""


def limited(args: list[str], stdin=None, bounds: str = "") -> subprocess.CompletedProcess:
    """`peet-fast ARGS` in a subprocess limited to LIMIT bytes of address space (bounds: 'NAME=VALUE,...' set on
    peet_fast.io.read first, to test a bound at a size a test can afford)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", _RUN, str(LIMIT), bounds, *args], stdin=stdin, capture_output=True,
                          cwd=ROOT, env=env, timeout=300)


def one_line_exit_2(res: subprocess.CompletedProcess, *parts: str) -> str:
    err = res.stderr.decode("utf-8", "replace")
    assert res.returncode == 2, err[-2000:]
    assert len(err.strip().splitlines()) == 1, err[-2000:]
    for part in parts:
        assert part in err, err
    return err


@pytest.fixture
def gold(tmp_path) -> Path:
    path = tmp_path / "gold.m2"
    path.write_text("S a b c\nA 1 2|||R:NOUN|||d|||REQUIRED|||-NONE-|||0\n\nS e f\n\n", encoding="utf-8")
    return path


# --- m2scorer ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("which", ["hypothesis", "gold"])
def test_m2scorer_refuses_a_nul_byte(tmp_path, gold, capsys, which):
    hyp = tmp_path / "hyp.txt"
    hyp.write_bytes(b"a d c\ne f\n")
    bad = hyp if which == "hypothesis" else gold
    bad.write_bytes(bad.read_bytes().replace(b"e f", b"e \x00f"))
    line = 2 if which == "hypothesis" else 4
    assert main(["m2scorer", str(hyp), str(gold)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines() == [f"peet-fast m2scorer: error: {bad}:{line}: contains a NUL byte "
                                        "(binary file?)"]


@pytest.mark.parametrize("which", ["hypothesis", "gold"])
def test_m2scorer_reads_dev_zero_within_bounds(tmp_path, gold, which):
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a d c\ne f\n", encoding="utf-8")
    args = ["/dev/zero", str(gold)] if which == "hypothesis" else [str(hyp), "/dev/zero"]
    one_line_exit_2(limited(["m2scorer", *args]), "/dev/zero:1: ")


def test_m2scorer_refuses_a_50_mib_line_before_the_lattice(tmp_path, gold):
    hyp = tmp_path / "hyp.txt"
    with open(hyp, "wb") as fh:
        fh.write(b"a " * (25 << 20) + b"\ne f\n")
    one_line_exit_2(limited(["m2scorer", str(hyp), str(gold)]), f"{hyp}:1: a line longer than 16,777,216 bytes")


def _bomb(path: Path, member: bytes, members: int) -> None:
    """A gzip file of `members` copies of one member (gzip allows several; the official's gzip.open reads them all):
    a few MB on disk, members x len(member) inflated."""
    one = gzip.compress(member, compresslevel=9)
    with open(path, "wb") as fh:
        for _ in range(members):
            fh.write(one)


def test_m2scorer_refuses_a_gzip_bomb_of_short_lines_while_inflating(tmp_path, gold):
    """2 GiB of short lines once inflated (from a few MB), under a 64 MiB size bound: refused once the bound is
    inflated, never inflated whole (which LIMIT would turn into a MemoryError)."""
    bomb = tmp_path / "hyp.txt.gz"
    _bomb(bomb, b"a d c\n" * ((16 << 20) // 6), 128)
    assert bomb.stat().st_size < 16 << 20
    one_line_exit_2(limited(["m2scorer", str(bomb), str(gold)], bounds=f"MAX_FILE_READ={64 << 20}"),
                    f"{bomb}: larger than 64 MiB once decompressed")


def test_m2scorer_refuses_a_gzip_bomb_of_one_line_at_the_line_bound(tmp_path, gold):
    bomb = tmp_path / "gold.m2.gz"
    _bomb(bomb, b"S " + b"a" * (16 << 20), 64)
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a\n", encoding="utf-8")
    one_line_exit_2(limited(["m2scorer", str(hyp), str(bomb)]), f"{bomb}:1: a line longer than 16,777,216 bytes")


def test_m2scorer_refuses_a_plain_file_over_the_size_bound(tmp_path, gold, capsys, monkeypatch):
    import peet_fast.io.read as R

    hyp = tmp_path / "hyp.txt"
    hyp.write_bytes(b"a d c\n" * 2000)
    monkeypatch.setattr(R, "MAX_FILE_READ", 10_000)
    assert main(["m2scorer", str(hyp), str(gold)]) == 2
    assert f"{hyp}: larger than 10,000 bytes" in capsys.readouterr().err


def test_m2scorer_refuses_a_sentence_whose_lattice_is_over_the_bound(tmp_path, gold, capsys, monkeypatch):
    """The lattice of a source of n tokens and a hypothesis of m holds (n + 1)(m + 1) cells: over MAX_CELLS, the
    sentence is refused naming the hypothesis' line before any is allocated."""
    import peet_fast.metrics.m2.search as search

    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a d c\n" + "e " * 400 + "f\n", encoding="utf-8")
    monkeypatch.setattr(search, "MAX_CELLS", 1000)
    assert main(["m2scorer", str(hyp), str(gold)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
    assert f"{hyp}:2: 2 source tokens and 401 hypothesis tokens: a lattice of 1,206 cells" in err
    monkeypatch.setattr(search, "MAX_CELLS", 1206)
    assert main(["m2scorer", str(hyp), str(gold)]) == 0


# --- gleu ------------------------------------------------------------------------------------------------------------

def test_gleu_reads_standard_input_within_bounds(tmp_path):
    src = tmp_path / "src.txt"
    src.write_text("a b\n", encoding="utf-8")
    with open("/dev/zero", "rb") as zero:
        res = limited(["gleu", "-s", str(src), "-r", str(src), "-o", "-"], stdin=zero)
    one_line_exit_2(res, "<stdin>:1: ")


def test_gleu_standard_input_over_the_line_bound(tmp_path, capsys, monkeypatch):
    import io

    src = tmp_path / "src.txt"
    src.write_text("a b\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b\n" + b"c" * (17 << 20))))
    assert main(["gleu", "-s", str(src), "-r", str(src), "-o", "-"]) == 2
    assert "<stdin>:2: a line longer than 16,777,216 bytes" in capsys.readouterr().err


# --- the bounded reader itself ---------------------------------------------------------------------------------------

def test_read_bounded_inflates_every_member_and_locates_errors(tmp_path):
    from peet_fast.io import InputError, read_bounded

    path = tmp_path / "x.gz"
    path.write_bytes(gzip.compress(b"one\ntwo\n") + gzip.compress(b"three\n"))
    assert read_bounded(path, gz=True) == b"one\ntwo\nthree\n"
    path.write_bytes(gzip.compress(b"one\r\ntwo\n") + gzip.compress(b"thr\x00ee\n"))
    with pytest.raises(InputError, match=r"x.gz:3: contains a NUL byte"):
        read_bounded(path, refuse_nul=True, gz=True, cr_ends_line=False)
    path.write_bytes(gzip.compress(b"one\n")[:-3])
    with pytest.raises(InputError, match="x.gz: not a valid gzip file"):
        read_bounded(path, gz=True)
    path.write_bytes(b"plain text\n")
    with pytest.raises(InputError, match="x.gz: not a valid gzip file"):
        read_bounded(path, gz=True)


def test_read_bounded_counts_lines_as_asked(tmp_path):
    from peet_fast.io import InputError, read_bounded

    path = tmp_path / "x.txt"
    path.write_bytes(b"a\rb\r\nc\x00\n")
    with pytest.raises(InputError, match=r"x.txt:3: "):
        read_bounded(path, refuse_nul=True)                       # \r, \r\n: two line ends
    with pytest.raises(InputError, match=r"x.txt:2: "):
        read_bounded(path, refuse_nul=True, cr_ends_line=False)   # \n only: the official scorers' lines
