"""Scoring a corpus as the official batch_multi_pre_rec_f1: per sentence the annotator that maximises the running
corpus F, the corpus precision, recall and F_beta, the -v report's lines and the three summary lines; m2score (the
API) and the registry's M2 metric."""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from peet_fast.io import InputError, plural
from peet_fast.metrics.base import EvalSet, Metric, register
from peet_fast.metrics.config import Config, option
from peet_fast.metrics.m2.gold import Gold, gold_from_blocks, gold_from_text_or_path, parse_gold, read_gold
from peet_fast.metrics.m2.py2 import _strip, py2_repr, py2_str
from peet_fast.metrics.m2.search import (LatticeTooLarge, _match_seq, _Sentence, _shrink, _ws_case_only,
                                         edit_seqs)


def comp_p(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        return 1.0


def comp_f(c: float, e: float, g: float, b: float) -> float:
    """The official comp_f1 (used to choose the annotator)."""
    try:
        return (1 + b * b) * c / (b * b * g + e)
    except ZeroDivisionError:
        return 1.0 if c == 0.0 else 0.0


def check_options(beta, max_unchanged_words, names: tuple[str, str] = ("beta", "max_unchanged_words")) -> None:
    """Refuse (InputError naming the option) a beta that is not a finite number of at least 0 (F_0 is the
    precision) and a max_unchanged_words that is not an integer of at least 0 (a value past a sentence's length is
    that length: no edit holds more unchanged tokens than the source has)."""
    if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not math.isfinite(beta) or beta < 0:
        raise InputError(names[0], f"the F-measure's beta must be a finite number of at least 0, not {beta!r}")
    if isinstance(max_unchanged_words, bool) or not isinstance(max_unchanged_words, numbers.Integral) or \
            max_unchanged_words < 0:
        raise InputError(names[1], f"must be an integer of at least 0, not {max_unchanged_words!r}")


def final_prf(correct: float, proposed: float, gold: float, beta: float) -> tuple[float, float, float]:
    """The official corpus precision, recall and F_beta from the summed counts."""
    try:
        p = correct / proposed
    except ZeroDivisionError:
        p = 1.0
    try:
        r = correct / gold
    except ZeroDivisionError:
        r = 1.0
    try:
        f = (1.0 + beta * beta) * p * r / (beta * beta * p + r)
    except ZeroDivisionError:
        f = 0.0
    return p, r, f


@dataclass
class M2Result:
    """What m2score returns: corpus precision, recall and F_beta (the official's printed figures, unrounded) and
    per sentence the chosen annotator's (tp, fp, fn) (stats; fp = proposed - correct) and annotator id."""
    precision: float
    recall: float
    f: float
    beta: float
    stats: np.ndarray
    annotators: list = field(default_factory=list)


def score_corpus(candidates: Sequence[str], gold: Gold, max_unchanged_words: int = 2, beta: float = 0.5,
                 ignore_whitespace_casing: bool = False, verbose: list | None = None,
                 system_path: str | None = None) -> M2Result:
    """The official batch_multi_pre_rec_f1. verbose: a list receiving the -v report's lines, or None. A sentence
    whose lattice is too large is an InputError naming system_path and its line; without system_path, the
    LatticeTooLarge itself (a LineTooLong, which the caller places: rank names the system file's line)."""
    if len(candidates) != len(gold.sources):
        raise InputError(system_path or "<system>", f"{plural(len(candidates), 'line')}, but the gold {gold.path} has "
                                      f"{len(gold.sources)} sentences")
    sqbeta = beta * beta
    stat_correct = stat_proposed = stat_gold = 0.0
    stats = np.zeros((len(candidates), 3), dtype=np.int64)
    chosen_ids = []
    out = verbose
    for i, (candidate, source, golds_set) in enumerate(zip(candidates, gold.sources, gold.edits), 1):
        try:
            seqs = edit_seqs(candidate, source, max_unchanged_words, golds_set)
        except LatticeTooLarge as exc:
            if system_path is None:
                raise
            raise InputError(system_path, exc.reason, i) from None
        chosen = -1
        f_max = -1.0
        max_correct = -1.0
        min_proposed = min_gold = float("inf")
        arg = (0, 0, 0)
        for (annotator, g), seq in zip(golds_set, seqs):
            if out is not None:
                out.append(f">> Annotator: {annotator}")
            if ignore_whitespace_casing:
                seq = [x for x in seq if not _ws_case_only(x[2], x[3])]
            correct = _match_seq(seq, g, out)
            c_local = stat_correct + len(correct)
            p_local_n = stat_proposed + len(seq)
            g_local = stat_gold + len(g)
            f_local = comp_f(c_local, p_local_n, g_local, beta)
            if f_max < f_local or (f_max == f_local and max_correct < c_local) or \
                    (f_max == f_local and max_correct == c_local
                     and min_proposed + sqbeta * min_gold > p_local_n + sqbeta * g_local):
                chosen = annotator
                f_max = f_local
                max_correct = c_local
                min_proposed = p_local_n
                min_gold = g_local
                arg = (len(correct), len(seq), len(g))
            if out is not None:
                out.append(f"SOURCE        : {source}")
                out.append(f"HYPOTHESIS    : {candidate}")
                out.append(f"EDIT SEQ      : {py2_repr([_shrink(ed) for ed in reversed(seq)])}")
                out.append(f"GOLD EDITS    : {py2_repr(g)}")
                out.append(f"CORRECT EDITS : {py2_repr(correct)}")
                out.append(f"# correct     : {int(c_local)}")
                out.append(f"# proposed    : {int(p_local_n)}")
                out.append(f"# gold        : {int(g_local)}")
                out.append(f"precision     : {py2_str(comp_p(c_local, p_local_n))}")
                out.append(f"recall        : {py2_str(comp_p(c_local, g_local))}")
                out.append(f"f_{beta:.1f}         : {py2_str(f_local)}")
                out.append("-------------------------------------------")
        if out is not None:
            out.append(f">> Chosen Annotator for line {i} : {chosen}")
            out.append("")
        stat_correct += arg[0]
        stat_proposed += arg[1]
        stat_gold += arg[2]
        stats[i - 1] = (arg[0], arg[1] - arg[0], arg[2] - arg[0])
        chosen_ids.append(chosen)
    p, r, f = final_prf(stat_correct, stat_proposed, stat_gold, beta)
    if out is not None:
        out.append(f"CORRECT EDITS  : {int(stat_correct)}")
        out.append(f"PROPOSED EDITS : {int(stat_proposed)}")
        out.append(f"GOLD EDITS     : {int(stat_gold)}")
        out.append(f"P = {py2_str(p)}")
        out.append(f"R = {py2_str(r)}")
        out.append(f"F_{beta:.1f} = {py2_str(f)}")
    return M2Result(p, r, f, beta, stats, chosen_ids)


def summary_lines(result: M2Result) -> list[str]:
    """The three lines the official prints last."""
    return [f"Precision   : {result.precision:.4f}", f"Recall      : {result.recall:.4f}",
            f"F_{result.beta:.1f}       : {result.f:.4f}"]


def m2score(hyp_lines: Sequence[str], gold: str | os.PathLike, beta: float = 0.5, max_unchanged_words: int = 2,
            ignore_whitespace_casing: bool = False) -> M2Result:
    """The official M2 scores of hypotheses (one string per sentence) against a gold M2 (a path, or the M2 text
    itself: a string holding a newline)."""
    if isinstance(hyp_lines, str) or not all(isinstance(s, str) for s in hyp_lines):
        raise InputError("hyp_lines", "must be a list of strings (one sentence each)")
    check_options(beta, max_unchanged_words)
    g = gold_from_text_or_path(gold)
    return score_corpus([_strip(h) for h in hyp_lines], g, max_unchanged_words, beta, ignore_whitespace_casing,
                        system_path="hyp_lines")


def _gold_of_blocks(data: EvalSet) -> Gold:
    return gold_from_blocks(data.gold)


@register
class M2Metric(Metric):
    """M2 F_beta (the official's figure); per-sentence statistics: the chosen annotator's (tp, fp, fn) as the
    official chooses it over the whole corpus in order (so a subset's figure sums those). The gold is read as the
    official reads it from the EvalSet's options["gold_text"] (M2 text) or gold_path, else rebuilt from its
    strict-reader blocks."""
    name = "m2"
    title = "M2 F0.5"
    higher_is_better = True
    needs_gold = True

    @dataclass(frozen=True)
    class Config(Config):
        beta: float = option(0.5, "the F-measure's beta", low=0)
        max_unchanged_words: int = option(2, low=0)
        ignore_whitespace_casing: bool = option(False)

    def __init__(self, beta: float = 0.5, max_unchanged_words: int = 2, ignore_whitespace_casing: bool = False):
        check_options(beta, max_unchanged_words)
        self.beta = float(beta)
        self.max_unchanged_words = int(max_unchanged_words)
        self.ignore_whitespace_casing = bool(ignore_whitespace_casing)
        self.title = f"M2 F{self.beta:g}"

    def _gold(self, data: EvalSet) -> Gold:
        text = data.options.get("gold_text")            # the M2 text itself (peet_fast.evaluate(gold=TEXT))
        if text is not None:
            return self.prepared(data, lambda _: parse_gold(text, "<gold>"), ("text", text))
        if data.gold_path:
            return self.prepared(data, lambda d: read_gold(d.gold_path), os.path.abspath(data.gold_path))
        if data.gold is None:
            raise InputError("m2", "needs a gold M2 (give the gold M2 file as the reference)")
        return self.prepared(data, _gold_of_blocks)     # once per EvalSet, not once per system

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        gold = self._gold(data)
        result = score_corpus([_strip(h) for h in hyp], gold, self.max_unchanged_words, self.beta,
                              self.ignore_whitespace_casing)
        self._remember(result.stats, (list(hyp), gold, data, result.annotators))
        return result.stats

    def breakdown(self, stats: np.ndarray) -> dict | None:
        """Recall per gold error type, {type: {"gold", "TP", "FN", "R"}}, with the annotators chosen for these
        statistics (peet_fast.metrics.m2_types)."""
        from peet_fast.formats.m2 import read_m2
        from peet_fast.metrics.m2_types import recall_by_type, typed_gold

        kept = self._recalled(stats)
        if kept is None:
            return None
        hyp, gold, data, annotators = kept
        blocks = data.gold if data.gold is not None else read_m2(data.gold_path)
        sequences = []
        for h, source, golds_set, chosen in zip(hyp, gold.sources, gold.edits, annotators):
            g = dict(golds_set).get(chosen, [])
            seq = _Sentence(_strip(h), source, self.max_unchanged_words).edit_seq(g) if g else []
            if self.ignore_whitespace_casing:
                seq = [x for x in seq if not _ws_case_only(x[2], x[3])]
            sequences.append(seq)
        return recall_by_type(gold, typed_gold(blocks, gold), annotators, sequences)

    def corpus_score(self, stats: np.ndarray) -> float:
        stats = np.asarray(stats)
        tp, fp, fn = (float(x) for x in stats.reshape(-1, 3).sum(axis=0)) if len(stats) else (0.0, 0.0, 0.0)
        return final_prf(tp, tp + fp, tp + fn, self.beta)[2]

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        sums = np.asarray(stats, dtype=np.float64)[idx].sum(axis=1)       # (resamples, 3)
        return np.array([final_prf(tp, tp + fp, tp + fn, self.beta)[2] for tp, fp, fn in sums.tolist()],
                        dtype=np.float64)
