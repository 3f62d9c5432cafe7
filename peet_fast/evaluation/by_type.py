"""Per-type figures of many systems at once (`rank` / `report --by-type LEVEL`, issue 44).

Each system is scored *alone*, exactly as `compare -cat LEVEL` (errant_compare -cat, ChERRANT's compare for
Chinese) scores it: its edits and the references' edits go through peet_fast.metrics.span.compare_edits, and its
per-type TP, FP, FN, P, R and F are that result's (CompareResult.summary(LEVEL)); LEVEL 1 groups the types by
operation (M/R/U), 2 by main type (NOUN), 3 keeps the full ``operation:type``. Nothing of the per-type arithmetic is
redone here.

From text (`rank`, `report`): the system's edits source -> output and each reference's edits source -> reference
are extracted as the errant metric extracts them (peet_fast.metrics.errant: what `peet-fast m2` / errant_parallel
writes), so a system's figures equal ``errant_compare -hyp SYS.m2 -ref REF.m2 -cat LEVEL`` on those two M2 files.

Intervals: per sentence, the (hypothesis, reference) pair compare_edits chose is scored alone by compare_edits, its
per-type counts kept (they sum to the corpus figures); the paired bootstrap resamples those counts with the same
resamples as the ranking (metrics.stats.bootstrap_blocks, same seed: one index matrix for every system and type),
and a type's 95 % interval is the percentile interval of its F_beta (unrounded) over the resamples in which the
system has an edit of that type (a resample without any leaves the type out, as compare leaves out a type it has
no edit of). As for the errant metric, the choice of reference is not redone per resample. A difference A - B of two
systems' F per type is resampled the same way (paired), over the resamples where both have an edit of the type.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

LEVELS = (1, 2, 3)
MIN_SUPPORT = 10        # below this many reference edits (TP + FN) a type's figures are marked as thin


@dataclass
class SystemTypes:
    """One system's per-type figures: figures {type: {"TP", "FP", "FN", "P", "R", "F<beta>"}} as `compare -cat`
    reports them (only the types it has), the totals (TP, FP, FN), per sentence the chosen (hypothesis candidate,
    reference candidate) or None (a skipped NA sentence), and counts: (sentences, types, 3) per-sentence TP/FP/FN
    of the chosen pair over ByType.types."""
    name: str
    figures: dict
    totals: tuple
    choices: list
    counts: np.ndarray = field(repr=False)
    ci: dict = field(default_factory=dict)      # type -> (low, high) of F over the resamples


@dataclass
class ByType:
    """Per-type figures of several systems (in the order given: the ranking's). types: every type any system has,
    sorted; boot: (resamples, systems, types) F of each resample (None without resamples); hyp / ref: the scored
    edits (per system its sentences; the references' sentences), kept for the report's sentence browser."""
    level: int
    beta: float
    types: list
    systems: list
    resamples: int = 0
    seed: int = 0
    boot: np.ndarray | None = field(repr=False, default=None)      # nan where a system has no edit of the type
    hyp: list = field(repr=False, default_factory=list)
    ref: list = field(repr=False, default_factory=list)
    sources: list = field(repr=False, default_factory=list)        # the texts, where the caller keeps them
    references: list = field(repr=False, default_factory=list)

    @property
    def f_key(self) -> str:
        return "F" + str(self.beta)

    def system(self, name: str) -> SystemTypes:
        return next(s for s in self.systems if s.name == name)

    def difference(self, a: str, b: str) -> dict:
        """{type: (F_a - F_b, low, high)} over every type, F unrounded from the corpus counts, the interval the
        percentile interval of the paired resamples' differences over the resamples where both systems have an edit
        of the type (nan where there is none, or without resamples; nan too where A or B has no edit of it)."""
        ia, ib = (next(k for k, s in enumerate(self.systems) if s.name == n) for n in (a, b))
        fa, fb = (_f_or_nan(self.systems[k].counts.sum(axis=0), self.beta) for k in (ia, ib))
        out = {}
        if self.boot is not None and self.resamples:
            low, high = _nan_ci(self.boot[:, ia, :] - self.boot[:, ib, :])
        else:
            low = high = np.full(len(self.types), np.nan)
        for t, name in enumerate(self.types):
            out[name] = (float(fa[t] - fb[t]), float(low[t]), float(high[t]))
        return out

    def summary(self) -> dict:
        """The `--summary` entry "by_type": the level, beta, the bootstrap, and per system (the ranking's order) its
        totals and per-type figures (compare -cat LEVEL's), each with the 95 % interval of F where resampled."""
        fk = self.f_key
        systems = []
        for s in self.systems:
            types = {}
            for t, row in s.figures.items():
                entry = dict(row)
                if t in s.ci:
                    lo, hi = s.ci[t]
                    entry["ci_low"], entry["ci_high"] = _finite(lo), _finite(hi)
                entry["support"] = row["TP"] + row["FN"]
                types[t] = entry
            tp, fp, fn = s.totals
            systems.append({"name": s.name, "TP": tp, "FP": fp, "FN": fn, "types": types})
        return {"level": self.level, "beta": self.beta, "f": fk, "min_support": MIN_SUPPORT,
                "resamples": self.resamples, "seed": self.seed, "types": list(self.types), "systems": systems}


def _finite(x: float):
    return float(x) if np.isfinite(x) else None


def f_values(counts: np.ndarray, beta: float) -> np.ndarray:
    """F_beta of (..., 3) TP/FP/FN counts, elementwise and unrounded, as metrics.span.prf computes one: P = 1 when
    FP = 0, R = 1 when FN = 0, F = 0 when P + R = 0."""
    c = np.asarray(counts, dtype=np.float64)
    tp, fp, fn = c[..., 0], c[..., 1], c[..., 2]
    p = np.where(fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1.0), 1.0)
    r = np.where(fn > 0, tp / np.where(tp + fn > 0, tp + fn, 1.0), 1.0)
    b2 = beta ** 2
    den = b2 * p + r
    return np.where(p + r > 0, (1 + b2) * p * r / np.where(den > 0, den, 1.0), 0.0)


def _f_or_nan(counts: np.ndarray, beta: float) -> np.ndarray:
    """f_values, nan where a type has no edit at all (no TP, FP or FN: compare does not list it)."""
    c = np.asarray(counts)
    return np.where(c.sum(axis=-1) > 0, f_values(c, beta), np.nan)


def _nan_ci(boot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """metrics.stats.percentile_ci over the finite values of each column (nan where a column has none)."""
    import warnings

    from peet_fast.metrics.stats import CI_LEVEL

    a = (1.0 - CI_LEVEL) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)        # an all-nan column: nan, as documented
        low, high = np.nanquantile(boot, [a, 1.0 - a], axis=0)
    return low, high


def chosen_pair_types(hyp: dict, ref: dict, choice, options, level: int) -> dict:
    """{type: [TP, FP, FN]} of one sentence's chosen pair (compare_edits' choice: (hyp candidate, ref candidate), or
    None for a skipped sentence), that pair scored alone by compare_edits and grouped at the level."""
    from peet_fast.metrics.span import compare_edits, group_types

    if choice is None:
        return {}
    h, r = choice
    one_h = {h: hyp[h]} if hyp else {}
    one_r = {r: ref[r]} if ref else {}
    return group_types(compare_edits([one_h], [one_r], options).per_type, level)


def score_types(names: Sequence[str], hyp: Sequence[Sequence[dict]], ref: Sequence[dict], level: int = 3,
                options=None, resamples: int = 0, seed: int = 0) -> ByType:
    """Per-type figures of each system (names[s], its sentences hyp[s]: compare_edits' format) against the
    reference sentences, at the level (1, 2, 3), with options a metrics.span.SpanOptions (beta, mode, the
    language's rules); with resamples, each type's F interval from the paired bootstrap (module docstring)."""
    from peet_fast.metrics.span import SpanOptions, compare_edits

    if level not in LEVELS:
        raise ValueError(f"the type level must be 1, 2 or 3, not {level!r}")
    options = options if options is not None else SpanOptions()
    results, per_sentence = [], []
    for sents in hyp:
        if len(sents) != len(ref):
            raise ValueError(f"{len(sents)} hypothesis sentences for {len(ref)} reference sentences")
        res = compare_edits(sents, ref, options)
        results.append(res)
        per_sentence.append([chosen_pair_types(h, r, c, options, level)
                             for h, r, c in zip(sents, ref, res.choices)])
    types = sorted({t for res in results for t in res.categories(level)})
    index = {t: k for k, t in enumerate(types)}
    n = len(ref)
    systems = []
    for name, res, rows in zip(names, results, per_sentence):
        counts = np.zeros((n, len(types), 3), dtype=np.int64)
        for i, row in enumerate(rows):
            for t, c in row.items():
                counts[i, index[t]] = c
        summary = res.summary(level)
        systems.append(SystemTypes(name, summary["per_type"], (res.tp, res.fp, res.fn), list(res.choices), counts))
    out = ByType(level, options.beta, types, systems, resamples, seed, hyp=list(hyp), ref=list(ref))
    if resamples and n:
        _bootstrap(out)
    return out


def _bootstrap(bt: ByType) -> None:
    """Each resample's F per system and type (bt.boot) and each system's per-type intervals (SystemTypes.ci)."""
    from peet_fast.metrics.stats import bootstrap_blocks, resample_counts

    n, T = bt.systems[0].counts.shape[:2]
    bt.boot = np.empty((bt.resamples, len(bt.systems), T), dtype=np.float64)
    flat = [s.counts.reshape(n, T * 3).astype(np.float64) for s in bt.systems]
    for lo, hi, idx in bootstrap_blocks(n, bt.resamples, bt.seed):
        rc = resample_counts(idx, n)
        for k, f in enumerate(flat):
            bt.boot[lo:hi, k, :] = _f_or_nan((rc @ f).reshape(-1, T, 3), bt.beta)
    for k, s in enumerate(bt.systems):
        low, high = _nan_ci(bt.boot[:, k, :])
        s.ci = {t: (float(low[j]), float(high[j])) for j, t in enumerate(bt.types) if t in s.figures}


def edits_from_texts(hyps: Sequence[Sequence[str]], data) -> tuple[list, list]:
    """(per system its sentences, the references' sentences) of texts, extracted as the errant metric extracts them
    (data: a metrics.base.EvalSet with the sources, the references and the annotator)."""
    from peet_fast.metrics.errant import Errant

    metric = Errant()
    return metric.hypothesis_sentences(hyps, data), metric.reference_sentences(data)


def edit_outcomes(hyp: Sequence[tuple], ref: Sequence[tuple], strip_cor_spaces: bool = False) -> tuple[list, list]:
    """Each edit of one chosen pair marked as compare_edits counts it (span correction: start, end, correction):
    (hypothesis edits as (edit, "TP" or "FP"), reference edits as (edit, "TP" or "FN")); noop edits and UNK edits,
    which are never counted, are left out."""
    def key(e):
        cor = e[3].replace(" ", "") if strip_cor_spaces else e[3]
        return e[0], e[1], cor

    def counted(e):
        return e[2] not in ("noop", "UNK")

    h_keys = {key(e) for e in hyp if counted(e)}
    r_keys = {key(e) for e in ref if counted(e)}
    return ([(e, "TP" if key(e) in r_keys else "FP") for e in hyp if counted(e)],
            [(e, "TP" if key(e) in h_keys else "FN") for e in ref if counted(e)])


def format_table(bt: ByType) -> str:
    """The per-type figures as one long table (system, type, TP, FP, FN, P, R, F, its 95 % interval), the systems
    in the ranking's order, the types sorted; a thin type (fewer than MIN_SUPPORT reference edits) marked '*'."""
    rows = []
    for s in bt.systems:
        for t, row in sorted(s.figures.items()):
            ci = s.ci.get(t)
            shown = "-" if ci is None else f"[{ci[0]:.4f}, {ci[1]:.4f}]"
            thin = "*" if row["TP"] + row["FN"] < MIN_SUPPORT else ""
            rows.append((s.name, t + thin, str(row["TP"]), str(row["FP"]), str(row["FN"]), f"{row['P']:.4f}",
                         f"{row['R']:.4f}", f"{row[bt.f_key]:.4f}", shown))
    head = ("system", "type", "TP", "FP", "FN", "P", "R", bt.f_key, "95% CI")
    widths = [max(len(head[k]), *(len(r[k]) for r in rows)) if rows else len(head[k]) for k in range(len(head))]
    lines = ["  ".join(c.ljust(w) if k < 2 else c.rjust(w) for k, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in [head, *rows]]
    return "\n".join(lines) + "\n"
