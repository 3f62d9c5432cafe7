"""Where gec-metrics (the oracle, in a venv of its own) is, and running it: tests/metrics/gec_metrics_oracle.py."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

ORACLE = Path(__file__).with_name("gec_metrics_oracle.py")
REPO = Path(__file__).parents[2]


def python() -> str | None:
    """The gec-metrics venv's python: $PEET_GEC_METRICS_PYTHON, else ../venv-gecm/bin/python beside the repository;
    None where neither exists."""
    env = os.environ.get("PEET_GEC_METRICS_PYTHON")
    for cand in ([env] if env else []) + [os.path.normpath(REPO / ".." / "venv-gecm" / "bin" / "python")]:
        if cand and Path(cand).exists():
            return cand
    return None


def run(metric: str, config: dict, sources, systems, references, keep_time: bool = False) -> dict:
    """gec-metrics' {"corpus": [per system], "sentence": [[per sentence] per system], "corpus_seconds",
    "sentence_seconds"} (figures only where keep_time is False: what the tests compare)."""
    job = {"metric": metric, "config": config, "sources": list(sources), "hypotheses": [list(h) for h in systems],
           "references": [list(r) for r in references]}
    proc = subprocess.run([python(), str(ORACLE)], input=json.dumps(job), capture_output=True, text=True,
                          cwd=str(Path(ORACLE).parent), timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"gec-metrics oracle failed: {proc.stderr[-2000:]}")
    out = json.loads(proc.stdout)
    if not keep_time:
        out.pop("corpus_seconds", None)
        out.pop("sentence_seconds", None)
    return out
