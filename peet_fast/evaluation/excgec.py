"""EXCGEC evaluation: edit-wise explanation metrics and the correction score of explainable Chinese GEC.

An EXCGEC system corrects a Chinese sentence and explains each of its edits: an error type (one of 17), a severity
(1-5) and a natural-language description. This module reads hypothesis and reference files, matches hypothesis edits
to reference edits and scores the explanations of the matched ("hit") edits as the EXCGEC evaluator
(THUKElab/EXCGEC, ``benchmarks/xcgec/evaluate.py``) does:

- **hit matching**: an edit with source interval ``[s, e]`` covers the source positions ``s..e`` *inclusive* (an
  insertion at p covers p); each hypothesis edit is matched to the reference edit of its sample with the largest
  overlap (the first on ties); an overlap > 0 makes it a hit. Hit rate = hits / hypothesis edits; miss rate =
  reference edits overlapped by no hypothesis edit / reference edits (this one is ours: the evaluator has none);
- on hit pairs only: error-type accuracy and per-type / micro / macro precision, recall and F1 (as scikit-learn's
  ``precision_recall_fscore_support``; macro over all 17 types as the evaluator, and over the types present);
  severity MAE; description BLEU (NLTK ``sentence_bleu``: 4-gram, uniform weights, no smoothing), METEOR (NLTK
  ``meteor_score``) and ROUGE-1/2/L F (``rouge_chinese``), all on character tokens, averaged over hit pairs (the
  metrics themselves: :mod:`peet_fast.metrics.overlap`);
- the correction score (CLEME, ChERRANT) lives in :mod:`peet_fast.metrics.cleme` / :func:`correction_scores`.

Input layouts (both read; see :func:`read_excgec`):

- the dataset layout (``test.json``): ``{"metadata": ..., "samples": [{"source", "target", "edits": [{"src_interval",
  "tgt_interval", "error_type", "error_severity", "error_description", ...}]}]}``;
- the evaluator's layout (``test.ref.json``): ``[{"input": source, "output": {"target", "edits": [{"src_interval",
  "tgt_interval", ...}], "explanations": [{"error_type", "error_severity", "error_description"}]}}]``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from peet_fast.io import InputError, JSONTooDeep, json_loads, read_bounded, without_bom

MAX_JSON_LINE = 256 << 20        # an EXCGEC file may be one line of JSON: a longer line is refused as it is read
from peet_fast.languages import PairMemo, remembering, span_rules
from peet_fast.metrics.overlap import pair_scores_many

# The 17 error types, in the evaluator's order (VALID_ERROR_TYPES of benchmarks/xcgec/objects.py).
ERROR_TYPES: tuple[str, ...] = (
    "标点冗余", "标点丢失", "标点误用",
    "字音混淆错误", "字形混淆错误", "词内部字符异位错误", "命名实体拼写错误",
    "词语冗余", "词语丢失", "词语误用",
    "词序不当", "逻辑不通", "句式杂糅",
    "照应错误", "歧义错误", "语气不协调", "其他错误",
)
TYPE_INDEX = {t: i for i, t in enumerate(ERROR_TYPES)}

# --- data --------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class XEdit:
    """One explained edit: half-open character intervals in source and target, and its explanation."""
    src: tuple[int, int]
    tgt: tuple[int, int]
    error_type: str
    severity: int
    description: str


@dataclass(frozen=True)
class XSample:
    source: str
    target: str
    edits: tuple[XEdit, ...]


# --- reading and validation ---------------------------------------------------------------------------------------

def read_excgec(path: str | os.PathLike) -> list[XSample]:
    """Read and validate an EXCGEC file in either layout (UTF-8, a byte order mark at its start dropped). Raises
    InputError naming the file and sample index, or the file when it holds no samples."""
    path = os.fspath(path)
    data = without_bom(read_bounded(path, max_line=MAX_JSON_LINE))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"invalid UTF-8 at byte {exc.start}") from None
    try:
        obj = json_loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"malformed JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from None
    except JSONTooDeep as exc:
        raise InputError(path, f"malformed EXCGEC file: {exc}") from None
    samples = parse_excgec(obj, path)
    if not samples:
        raise InputError(path, "no samples")
    return samples


def parse_excgec(obj: Any, path: str = "<json>") -> list[XSample]:
    """Validate a decoded EXCGEC document (either layout) into samples."""
    if isinstance(obj, dict) and "samples" in obj:
        raw = obj["samples"]
        if not isinstance(raw, list):
            raise InputError(path, '"samples" must be a list')
        return [_parse_dataset_sample(s, i, path) for i, s in enumerate(raw)]
    if isinstance(obj, list):
        return [_parse_eval_sample(s, i, path) for i, s in enumerate(obj)]
    raise InputError(path, 'not an EXCGEC file: expected {"samples": [...]} (dataset layout) or a list of '
                           '{"input", "output"} samples (evaluator layout)')


def _fail(path: str, index: int, message: str) -> InputError:
    return InputError(path, f"sample {index}: {message}")


_JSON_KINDS = {int: "an integer", str: "a string", list: "a list", dict: "an object"}


def _get(d: Any, key: str, kind: type, path: str, index: int, where: str) -> Any:
    if not isinstance(d, dict):
        raise _fail(path, index, f"{where} must be a JSON object")
    if key not in d:
        raise _fail(path, index, f'{where} has no "{key}"')
    value = d[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _fail(path, index, f'{where} "{key}" must be {_JSON_KINDS[kind]}, not {json.dumps(value)[:40]}')
    return value


def _interval(value: Any, length: int, side: str, path: str, index: int, where: str) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise _fail(path, index, f"{where} {side}_interval must be two integers [start, end], got {value!r}")
    s, e = value
    if not 0 <= s <= e <= length:
        raise _fail(path, index, f"{where} {side}_interval {value} is outside the {side} sentence "
                                 f"({length} characters) or reversed")
    return s, e


def _explanation(d: Any, path: str, index: int, where: str) -> tuple[str, int, str]:
    etype = _get(d, "error_type", str, path, index, where)
    if etype not in TYPE_INDEX:
        raise _fail(path, index, f"{where} has an unknown error_type {etype!r} (expected one of the 17 EXCGEC types: "
                                 f"{', '.join(ERROR_TYPES)})")
    severity = _get(d, "error_severity", int, path, index, where)
    if not 1 <= severity <= 5:
        raise _fail(path, index, f"{where} error_severity {severity} is outside 1-5")
    description = _get(d, "error_description", str, path, index, where)
    return etype, severity, description


def _parse_dataset_sample(s: Any, i: int, path: str) -> XSample:
    source = _get(s, "source", str, path, i, "sample")
    target = _get(s, "target", str, path, i, "sample")
    edits = _get(s, "edits", list, path, i, "sample")
    out = []
    for k, e in enumerate(edits):
        where = f"edit {k}"
        src = _interval(_get(e, "src_interval", list, path, i, where), len(source), "src", path, i, where)
        tgt = _interval(_get(e, "tgt_interval", list, path, i, where), len(target), "tgt", path, i, where)
        out.append(XEdit(src, tgt, *_explanation(e, path, i, where)))
    return _checked(XSample(source, target, tuple(out)), i, path)


def _parse_eval_sample(s: Any, i: int, path: str) -> XSample:
    source = _get(s, "input", str, path, i, "sample")
    output = _get(s, "output", dict, path, i, "sample")
    target = _get(output, "target", str, path, i, '"output"')
    edits = _get(output, "edits", list, path, i, '"output"')
    explanations = _get(output, "explanations", list, path, i, '"output"')
    if len(edits) != len(explanations):
        raise _fail(path, i, f"{len(edits)} edits but {len(explanations)} explanations (they pair up in order)")
    out = []
    for k, (e, x) in enumerate(zip(edits, explanations)):
        where = f"edit {k}"
        src = _interval(_get(e, "src_interval", list, path, i, where), len(source), "src", path, i, where)
        tgt = _interval(_get(e, "tgt_interval", list, path, i, where), len(target), "tgt", path, i, where)
        out.append(XEdit(src, tgt, *_explanation(x, path, i, f"explanation {k}")))
    return _checked(XSample(source, target, tuple(out)), i, path)


def _checked(sample: XSample, i: int, path: str) -> XSample:
    if not sample.source:
        raise _fail(path, i, "empty source")
    return sample


def check_aligned(hyp: Sequence[XSample], ref: Sequence[XSample], hyp_path: str, ref_path: str) -> None:
    """Refuse hyp/ref files that do not pair up sample by sample (count, then each source)."""
    if len(hyp) != len(ref):
        raise InputError(hyp_path, f"{len(hyp)} samples, but {ref_path} has {len(ref)}")
    for i, (h, r) in enumerate(zip(hyp, ref)):
        if h.source != r.source:
            raise InputError(hyp_path, f"sample {i}: source differs from {ref_path}'s "
                                       f"({h.source[:30]!r}... vs {r.source[:30]!r}...)")


# --- hit matching -------------------------------------------------------------------------------------------------

def match_sample(hyp: Sequence[XEdit], ref: Sequence[XEdit]) -> tuple[list[int], int]:
    """For each hyp edit the index of its matched ref edit (-1: no hit), and the number of ref edits that no hyp
    edit overlaps. Intervals cover s..e inclusive."""
    matches = []
    covered = [False] * len(ref)
    for h in hyp:
        hs, he = h.src
        best, best_overlap = -1, 0
        for j, r in enumerate(ref):
            overlap = min(he, r.src[1]) - max(hs, r.src[0]) + 1
            if overlap > 0:
                covered[j] = True
                if overlap > best_overlap:
                    best, best_overlap = j, overlap
        matches.append(best)
    return matches, covered.count(False)


# --- description metrics on character tokens ------------------------------------------------------------------

def tokenize(text: str) -> list[str]:
    """The evaluator's tokenisation: all whitespace removed, then one token per character."""
    return list("".join(text.split()))


# --- explanation scores -------------------------------------------------------------------------------------------

@dataclass
class HitPairs:
    """Matched edits over the corpus: (hyp edit, ref edit) for each hit, plus the counts."""
    pairs: list[tuple[XEdit, XEdit]]
    num_hyp: int
    num_ref: int
    missed: int


def match_corpus(hyp: Sequence[XSample], ref: Sequence[XSample]) -> HitPairs:
    pairs, num_hyp, num_ref, missed = [], 0, 0, 0
    for h, r in zip(hyp, ref):
        matches, miss = match_sample(h.edits, r.edits)
        pairs.extend((h.edits[k], r.edits[j]) for k, j in enumerate(matches) if j >= 0)
        num_hyp += len(h.edits)
        num_ref += len(r.edits)
        missed += miss
    return HitPairs(pairs, num_hyp, num_ref, missed)


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


def type_scores(y_true: Sequence[str], y_pred: Sequence[str]) -> dict:
    """Accuracy and per-type / micro / macro precision, recall, F1 as scikit-learn's precision_recall_fscore_support
    computes them (zero_division -> 0): macro over all 17 types (``macro_*``, the evaluator's) and over the types
    that occur in y_true or y_pred (``macro_*_present``, scikit-learn's default labels)."""
    k = len(ERROR_TYPES)
    tp, n_pred, n_true = [0] * k, [0] * k, [0] * k
    for t, p in zip(y_true, y_pred):
        ti, pi = TYPE_INDEX[t], TYPE_INDEX[p]
        n_true[ti] += 1
        n_pred[pi] += 1
        if ti == pi:
            tp[ti] += 1
    prec = [_div(tp[i], n_pred[i]) for i in range(k)]
    rec = [_div(tp[i], n_true[i]) for i in range(k)]
    f1 = [_div(2 * tp[i], 2 * tp[i] + (n_pred[i] - tp[i]) + (n_true[i] - tp[i])) for i in range(k)]
    total = len(y_true)
    correct = sum(tp)
    present = [i for i in range(k) if n_pred[i] or n_true[i]]
    micro_p = _div(correct, sum(n_pred))
    micro_r = _div(correct, sum(n_true))
    return {
        "acc": _div(correct, total),
        "micro_precision": micro_p, "micro_recall": micro_r,
        "micro_f1": _div(2 * correct, 2 * correct + (sum(n_pred) - correct) + (sum(n_true) - correct)),
        "macro_precision": sum(prec) / k, "macro_recall": sum(rec) / k, "macro_f1": sum(f1) / k,
        "macro_precision_present": _div(sum(prec[i] for i in present), len(present)),
        "macro_recall_present": _div(sum(rec[i] for i in present), len(present)),
        "macro_f1_present": _div(sum(f1[i] for i in present), len(present)),
        "per_type": {ERROR_TYPES[i]: {"precision": prec[i], "recall": rec[i], "f1": f1[i], "support": n_true[i],
                                      "predicted": n_pred[i]} for i in range(k)},
    }


def description_scores(pairs: Iterable[tuple[str, str]]) -> dict:
    """Mean BLEU, METEOR, ROUGE-1/2/L F over (hyp description, ref description) pairs, character tokens."""
    sums = [0.0] * 5
    n = 0
    for scores in pair_scores_many(("".join(h.split()), "".join(r.split())) for h, r in pairs):
        for i, v in enumerate(scores):
            sums[i] += v
        n += 1
    keys = ("bleu", "meteor", "rouge-1", "rouge-2", "rouge-L")
    return {k: _div(s, n) for k, s in zip(keys, sums)}


def explanation_scores(hyp: Sequence[XSample], ref: Sequence[XSample]) -> dict:
    """Every explanation metric of the hyp samples against the ref samples (aligned; see check_aligned)."""
    hits = match_corpus(hyp, ref)
    y_true = [r.error_type for _, r in hits.pairs]
    y_pred = [h.error_type for h, _ in hits.pairs]
    n = len(hits.pairs)
    out: dict[str, Any] = {
        "num_hyp_edits": hits.num_hyp, "num_ref_edits": hits.num_ref,
        "hit": n, "hit_rate": _div(n, hits.num_hyp),
        "miss": hits.missed, "miss_rate": _div(hits.missed, hits.num_ref),
    }
    out.update(type_scores(y_true, y_pred))
    out["mae"] = _div(sum(abs(h.severity - r.severity) for h, r in hits.pairs), n)
    out.update(description_scores((h.description, r.description) for h, r in hits.pairs))
    return out


# --- correction scores: CLEME and ChERRANT on the source/target pairs ----------------------------------------------

def correction_scores(hyp: Sequence[XSample], ref: Sequence[XSample], annotator, *, merge_distance: int = 1,
                      beta: float = 0.5) -> dict:
    """CLEME (dependent / independent, length-weighted / unweighted) and ChERRANT-style span-correction F_beta of
    the hyp targets against the ref targets, on character edits of each (source, target) pair from ``annotator``
    (a peet_fast.zh.ZhAnnotator; the evaluator's extraction is ChERRANT's char-level one without t2s, so give it
    ``t2s=False`` and ChERRANT's confusion set to reproduce the evaluator). Each distinct pair is annotated once with
    all minimum-cost alignments: CLEME uses the first (the evaluator's aligner keeps only that one), ChERRANT's
    compare pools them all under the annotator, as ChERRANT's default ``-s all`` M2 does.

    ``cleme`` is the evaluator's own score (dependent, length-weighted, merge distance 1) plus every variant."""
    from peet_fast.metrics import cleme as cl
    from peet_fast.metrics.span import NOOP, SpanOptions, compare_edits

    pairs = [(s.source, s.target) for s in hyp] + [(s.source, s.target) for s in ref]
    with remembering(PairMemo()):       # a pair given twice (hyp and ref, or two samples) annotated once
        annotated = annotator.annotate_pairs([s for s, _ in pairs], [t for _, t in pairs])
    n = len(hyp)
    targets = [cl.annotation_target(a) for a in annotated]
    sents = [cl.CSentence(targets[i][0], targets[i][1], (targets[n + i][1],)) for i in range(n)]
    variants = cl.cleme(sents, merge_distance=merge_distance, beta=beta)
    fkey = f"F{beta:g}"
    main = variants["dependent_weighted"].summary()
    cleme_out = {k: main[k] for k in ("P", "R", fkey, "TP", "FP", "FN", "TN")}
    cleme_out.update({name: r.summary() for name, r in variants.items()})
    cleme_out["merge_distance"] = merge_distance

    def pooled(result) -> dict:
        edits = []
        for alignment in result.alignments or [[]]:
            edits.extend(alignment)
            if not alignment:
                edits.append(NOOP)
        return {0: edits}

    result = compare_edits([pooled(a) for a in annotated[:n]], [pooled(a) for a in annotated[n:]],
                           SpanOptions(beta, "cs", **span_rules(annotator.lang)))
    p, r, f = cl.prf(result.tp, result.fp, result.fn, beta)
    cherrant = {"P": p, "R": r, fkey: f, "TP": result.tp, "FP": result.fp, "FN": result.fn}
    return {"cleme": cleme_out, "cherrant": cherrant}


# --- the whole evaluation, its summary and its table ---------------------------------------------------------------

def evaluate(hyp: Sequence[XSample], ref: Sequence[XSample], annotator=None, *, merge_distance: int = 1) -> dict:
    """Every metric, under the summary keys: explanation metrics (see explanation_scores), then ``cleme`` and
    ``cherrant`` (omitted without an annotator)."""
    out = explanation_scores(hyp, ref)
    out["samples"] = len(hyp)
    if annotator is not None:
        out.update(correction_scores(hyp, ref, annotator, merge_distance=merge_distance))
    return out


def format_report(s: dict) -> str:
    """A readable table of a summary (evaluate's dict)."""
    lines = [f"samples {s['samples']}   hyp edits {s['num_hyp_edits']}   ref edits {s['num_ref_edits']}",
             f"hit {s['hit']}   hit rate {s['hit_rate']:.4f}   missed ref edits {s['miss']}   "
             f"miss rate {s['miss_rate']:.4f}", "",
             "explanations (hit edits)      value",
             f"  error type accuracy        {s['acc']:.4f}",
             f"  micro P / R / F1           {s['micro_precision']:.4f} / {s['micro_recall']:.4f} / "
             f"{s['micro_f1']:.4f}",
             f"  macro P / R / F1 (17)      {s['macro_precision']:.4f} / {s['macro_recall']:.4f} / "
             f"{s['macro_f1']:.4f}",
             f"  macro P / R / F1 (present) {s['macro_precision_present']:.4f} / {s['macro_recall_present']:.4f} / "
             f"{s['macro_f1_present']:.4f}",
             f"  severity MAE               {s['mae']:.4f}"]
    for key, label in (("bleu", "BLEU"), ("meteor", "METEOR"), ("rouge-1", "ROUGE-1 F"), ("rouge-2", "ROUGE-2 F"),
                       ("rouge-L", "ROUGE-L F")):
        lines.append(f"  description {label:<14} {s[key]:.4f}")
    lines += ["", "error type              P       R       F1   support  predicted"]
    for name, v in s["per_type"].items():
        pad = " " * (2 * (10 - len(name)))          # CJK characters are two columns wide
        lines.append(f"  {name}{pad}{v['precision']:.4f}  {v['recall']:.4f}  {v['f1']:.4f}  {v['support']:>7}  "
                     f"{v['predicted']:>9}")
    if "cleme" in s:
        c, h = s["cleme"], s["cherrant"]
        lines += ["", f"correction (merge distance {c['merge_distance']})   P       R       F0.5    TP        "
                      "FP        FN"]
        for name in ("dependent_weighted", "dependent_unweighted", "independent_weighted", "independent_unweighted"):
            v = c[name]
            lines.append(f"  CLEME {name:<24} {v['P']:.4f}  {v['R']:.4f}  {v['F0.5']:.4f}  {v['TP']:<8.2f}  "
                         f"{v['FP']:<8.2f}  {v['FN']:<8.2f}")
        lines.append(f"  ChERRANT span correction       {h['P']:.4f}  {h['R']:.4f}  {h['F0.5']:.4f}  {h['TP']:<8}  "
                     f"{h['FP']:<8}  {h['FN']:<8}")
    return "\n".join(lines)
