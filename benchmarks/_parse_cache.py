"""The parse cache of a benchmark run: every benchmark except benchmarks/cache.py (which measures the cache) runs
with a fresh private cache, so that its figures never depend on what the user's cache (~/.cache/peet-fast) already
held or on what an earlier step of the same run wrote into it.

    from _parse_cache import private_cache      # benchmarks/ is sys.path[0] when a benchmark runs as a script
    CACHE = private_cache()                     # first thing in main(); put CACHE in the JSON as "parse_cache"

private_cache() points PEET_FAST_CACHE at a new temporary directory (inherited by every process the run starts:
CLI subprocesses, Ray's workers) and removes it at exit. Steps that must be cold on every side (a 1-worker against
a K-worker run, peet-fast against the published tools) also turn the cache off (--no-cache, or the job's
cache={"cache": False}): a private cache is fresh for the run, not for each step."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile

ENV = "PEET_FAST_CACHE"


def private_cache(note: str = "") -> dict:
    """A new private parse-cache directory for this run (PEET_FAST_CACHE, removed at exit); returns the record of it
    for the benchmark's JSON: {"mode": "private", "dir": ..., "replaced": the previous PEET_FAST_CACHE or None,
    "note": note}."""
    previous = os.environ.get(ENV)
    path = tempfile.mkdtemp(prefix="peet-bench-cache-")
    atexit.register(shutil.rmtree, path, True)
    os.environ[ENV] = path
    return {"mode": "private", "dir": path, "replaced": previous, "note": note}
