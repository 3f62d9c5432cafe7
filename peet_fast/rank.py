"""System ranking with uncertainty (`peet-fast rank`): PEET per system with bootstrap confidence intervals and paired
p-values, WER as the technical-effort baseline, and correlation with human system scores.

The statistics are peet_fast.metrics.stats' (one paired bootstrap for all systems, 95 % percentile CIs, the paired
p-value of each system against the next one in the ranking, Pearson's r and Spearman's rho) and WER is
peet_fast.metrics.wer's; their definitions are documented there and in docs/commands.md (`rank`). Correlations
with human scores (higher is better) are computed over the systems that have a human score. PEET and WER are
lower-is-better, so a good metric correlates *negatively*; the raw sign is reported.
"""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, NamedTuple, Sequence

import numpy as np

from peet_fast.io import InputError, read_bytes
from peet_fast.metrics.stats import CI_LEVEL, bootstrap_means, correlations, paired_p_value, percentile_ci
from peet_fast.metrics.wer import sentence_wer

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
MIN_CORRELATION_SYSTEMS = 3


# --- human scores --------------------------------------------------------------------------------------------------

class HumanScores(NamedTuple):
    """The human scores of the ranked systems, and the CSV's other systems, left out (`subset`)."""
    scores: dict
    skipped: list


def read_human_scores(path: str, systems: Sequence[str], ignore: Sequence[str] = ()) -> dict[str, float]:
    """A `system,score` CSV (header line required; higher is better) -> {system: score} (read_human_csv, every
    row naming one of `systems` or a name in `ignore`)."""
    return read_human_csv(path, systems, ignore).scores


def read_human_csv(path: str, systems: Sequence[str], ignore: Sequence[str] = (), subset: bool = False) -> HumanScores:
    """A `system,score` CSV (header line required; higher is better) -> HumanScores.

    Rows naming a system in `ignore` are skipped on request. Rows naming none of `systems` (the ranked systems'
    names) are listed in one InputError (file and the first such line) unless `subset`, which skips them and lists
    them in .skipped. A repeated system, a missing or non-finite score, or a malformed row raises InputError naming
    the file and line, and so do fewer than MIN_CORRELATION_SYSTEMS scored systems."""
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, "invalid UTF-8") from None
    rows = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        scores, unknown = _human_rows(path, rows, set(systems), set(ignore))
    except csv.Error as exc:
        raise InputError(path, f"malformed CSV: {exc}", line=rows.line_num) from None
    if unknown and not subset:
        listed = ", ".join(f"{name!r} (line {line})" for name, line in unknown)
        raise InputError(path, f"unknown system{'s' if len(unknown) > 1 else ''} {listed}: not among the ranked "
                               f"systems ({', '.join(sorted(systems))}); leave out such rows with --human-subset, or "
                               "name them with --human-ignore", line=unknown[0][1])
    if len(scores) < MIN_CORRELATION_SYSTEMS:
        raise InputError(path, f"a correlation needs at least {MIN_CORRELATION_SYSTEMS} ranked systems with a human "
                               f"score; this file scores {len(scores)}")
    return HumanScores(scores, [name for name, _ in unknown])


def _human_rows(path: str, rows, known: set, skip: set) -> tuple[dict[str, float], list[tuple[str, int]]]:
    """({ranked system: score}, [(unknown name, line)]) of the CSV rows after the header."""
    scores: dict[str, float] = {}
    unknown: list[tuple[str, int]] = []
    header = next(rows, None)
    if header is None or [h.strip().lower() for h in header] != ["system", "score"]:
        raise InputError(path, f"the header must be 'system,score', got {','.join(header or [])!r}", line=1)
    for row in rows:
        line = rows.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 2:
            raise InputError(path, f"expected 2 fields (system,score), got {len(row)}", line=line)
        name, value = row[0].strip(), row[1].strip()
        if name in skip:
            continue
        if name in scores or name in (u for u, _ in unknown):
            raise InputError(path, f"system {name!r} appears twice", line=line)
        try:
            score = float(value)
        except ValueError:
            raise InputError(path, f"score {value!r} is not a number", line=line) from None
        if not math.isfinite(score):
            raise InputError(path, f"score {value!r} is not finite", line=line)
        if name in known:
            scores[name] = score
        else:
            unknown.append((name, line))
    return scores, unknown


# --- the ranking ---------------------------------------------------------------------------------------------------

@dataclass
class RankedSystem:
    name: str
    file: str
    peet: float
    ci_low: float
    ci_high: float
    wer: float
    sentences: int
    p_next: float | None        # paired p-value against the next system in the ranking (None for the last)
    human: float | None
    words: int = 0                                  # total MO words
    seconds_per_word: float = float("nan")          # total seconds / total MO words (peet_fast.scoring)
    mean_seconds_per_word: float = float("nan")     # mean over sentences with MO words of seconds / MO words


@dataclass
class Ranking:
    """The result of `rank_systems`, systems in rank order; per-sentence arrays are in that order too."""
    systems: list[RankedSystem]
    resamples: int
    seed: int
    seconds: np.ndarray                  # (S, n) predicted seconds per sentence
    wer: np.ndarray                      # (S, n) sentence WER
    features: dict[str, np.ndarray]      # feature -> (S, n) value for the reference giving the minimum
    correlation: dict | None             # {"systems": k, "peet": {"spearman", "pearson"}, "wer": {...}}
    boot: np.ndarray = field(repr=False, default=None)   # (B, S) bootstrap means

    def summary(self) -> dict:
        """The `--summary` JSON body (without model/references, which the caller adds)."""
        return {
            "bootstrap": {"resamples": self.resamples, "seed": self.seed, "ci": CI_LEVEL,
                          "p_value": "share of resamples where the higher-ranked system is not strictly better "
                                     "than the next one"},
            "systems": [{"name": s.name, "file": s.file, "peet": s.peet, "ci_low": s.ci_low, "ci_high": s.ci_high,
                         "wer": s.wer, "sentences": s.sentences, "p_next": s.p_next, "human": s.human,
                         "words": s.words, "seconds_per_word": _json_safe(s.seconds_per_word),
                         "mean_seconds_per_word": _json_safe(s.mean_seconds_per_word)}
                        for s in self.systems],
            "correlation": _json_safe(self.correlation),
        }


def _json_safe(x):
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def rank_systems(annotator, model, hyp_files: Sequence[str], hyps: Sequence[Sequence[str]],
                 refs: Sequence[Sequence[str]], resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                 human: Mapping[str, float] | None = None,
                 on_chunk: Callable | None = None, timings: dict | None = None,
                 names: Sequence[str] | None = None) -> Ranking:
    """Score every system (the `score` path: one annotation batch per chunk for all systems x references), then
    bootstrap CIs, paired p-values of adjacent systems, WER and (with human scores) correlations. `timings`, when
    given, receives the seconds spent in each phase: "score", "wer", "bootstrap" (bootstrap, CIs, p-values,
    correlations). Systems are named `names` (one per file) or after their files."""
    import time

    from peet_fast.scoring import rank, score_systems

    parts: list[np.ndarray] = []
    feats: dict[str, list[np.ndarray]] = {}

    def keep(ch) -> None:
        parts.append(ch.seconds)
        for k, v in ch.features.items():
            feats.setdefault(k, []).append(v)
        if on_chunk is not None:
            on_chunk(ch)

    t0 = time.perf_counter()
    scores = score_systems(annotator, model, hyp_files, hyps, refs, on_chunk=keep, names=names)
    seconds = np.concatenate(parts, axis=1)
    features = {k: np.concatenate(v, axis=1) for k, v in feats.items()}
    t1 = time.perf_counter()
    wer, _ = sentence_wer(hyps, refs)
    t2 = time.perf_counter()
    out = assemble(scores, seconds, wer, features, resamples, seed, human, rank)
    if timings is not None:
        timings.update(score=t1 - t0, wer=t2 - t1, bootstrap=time.perf_counter() - t2)
    return out


def assemble(scores, seconds: np.ndarray, wer: np.ndarray, features: Mapping[str, np.ndarray], resamples: int,
             seed: int, human: Mapping[str, float] | None, order: Callable) -> Ranking:
    """The Ranking from per-system scores (input order) and per-sentence arrays (same order); `order` sorts
    scores into rank order (scoring.rank)."""
    ranked = order(scores)
    pos = [next(k for k, s in enumerate(scores) if s is r) for r in ranked]
    seconds, wer = seconds[pos], wer[pos]
    features = {k: v[pos] for k, v in features.items()}
    boot = bootstrap_means(seconds, resamples, seed)
    low, high = percentile_ci(boot)
    n = seconds.shape[1]
    systems = []
    for k, s in enumerate(ranked):
        p = paired_p_value(boot[:, k], boot[:, k + 1]) if k + 1 < len(ranked) else None
        systems.append(RankedSystem(s.name, s.file, s.peet, float(low[k]), float(high[k]),
                                    math.fsum(wer[k].tolist()) / n, n, p,
                                    None if human is None else human.get(s.name), s.words, s.seconds_per_word,
                                    s.mean_seconds_per_word))
    corr = None
    if human is not None:
        have = [s for s in systems if s.human is not None]
        corr = correlations({"peet": [s.peet for s in have], "wer": [s.wer for s in have]},
                            [s.human for s in have])
    return Ranking(systems, resamples, seed, seconds, wer, features, corr, boot)
