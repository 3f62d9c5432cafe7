"""System scores: per-sentence PEET (minimum over references), system means, ranking.

For each sentence of each system, the predicted post-editing time is computed against every reference and the
minimum is kept (its reference index is recorded; the first on ties). A system's PEET is the mean over all its
sentences, empty lines included. All systems and references of a chunk go through one annotation batch, so every
distinct sentence is parsed once however many systems share a reference.

Per-word effort, two figures (MO words: whitespace-separated words of the system's output, the NumWordsS feature):
``seconds_per_word`` = the system's total predicted seconds / its total MO words (every sentence counts, a 0-word
sentence's seconds included); ``mean_seconds_per_word`` = the mean over sentences of seconds / MO words, over the
sentences with at least one MO word (a 0-word sentence has no ratio: null in the per-sentence column
``seconds_per_word``, left out of the mean). Either is NaN (null in JSON) when there is nothing to divide by."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from peet_fast.en.features import feature_names, featurize
from peet_fast.formats.systems import system_name
from peet_fast.peet.model import Model, check_source_mode

DEFAULT_CHUNK = 2048


@dataclass
class SystemScore:
    name: str
    file: str
    peet: float
    sentences: int
    words: int = 0                                  # total MO words
    seconds_per_word: float = float("nan")          # total seconds / total MO words
    mean_seconds_per_word: float = float("nan")     # mean of seconds / MO words over sentences with words


@dataclass
class Chunk:
    """Per-sentence results of lines [start, stop) for every system."""
    start: int
    stop: int
    seconds: np.ndarray      # (systems, lines) float64: minimum over references
    reference: np.ndarray    # (systems, lines) int32: index of the reference giving the minimum
    features: dict           # name -> (systems, lines) int32: features of the pair with that reference
    edits: list | None = None    # with edits: per system, per line, the pair's M2 ``A`` lines (annotator id: reference)


def score_chunks(annotator, model: Model, hyps: Sequence[Sequence[str]], refs: Sequence[Sequence[str]],
                 chunk: int = DEFAULT_CHUNK, offset: int = 0, edits: bool = False) -> Iterator[Chunk]:
    """Per-sentence results, chunk by chunk; sentence numbers start at `offset`. With edits, each chunk also holds the
    edits MO -> TRG of the reference giving the minimum (pair_edits)."""
    check_source_mode(model, "mo-trg", "score (MO -> TRG pairs)")
    n = len(refs[0]) if refs else 0
    S, R = len(hyps), len(refs)
    names = feature_names(model.feature_set)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        L = hi - lo
        mo = [h for s in range(S) for r in range(R) for h in hyps[s][lo:hi]]
        trg = [t for s in range(S) for r in range(R) for t in refs[r][lo:hi]]
        cols = featurize(annotator, mo, trg, model.feature_set)
        pred = model.predict(cols).reshape(S, R, L)
        best = np.argmin(pred, axis=1)                     # first minimum on ties
        take = best[:, None, :]
        seconds = np.take_along_axis(pred, take, axis=1)[:, 0, :]
        feats = {k: np.take_along_axis(cols[k].reshape(S, R, L), take, axis=1)[:, 0, :] for k in names}
        found = None
        if edits:
            found = [pair_edits(annotator, hyps[s][lo:hi], [refs[r][lo + i] for i, r in enumerate(best[s])], best[s])
                     for s in range(S)]
        yield Chunk(offset + lo, offset + hi, seconds, best.astype(np.int32), feats, found)


def pair_edits(annotator, mo: Sequence[str], trg: Sequence[str], ref_ids: Sequence[int]) -> list[list[str]]:
    """The edits of each pair (mo[k], trg[k]) as the M2 ``A`` lines `peet-fast m2` writes for them, with annotator id
    ref_ids[k] (the reference's index); a pair without edits has none (no noop line)."""
    from peet_fast.formats.m2 import edit_line

    out = []
    for ann, ref in zip(annotator.annotate_pairs(mo, trg), ref_ids):
        lines = [] if ann.kind == "noop" else [edit_line(e.start, e.end, e.type, e.cor, int(ref))
                                                for e in ann.alignments[0]]
        out.append(lines)
    return out


def score_systems(annotator, model: Model, hyp_files: Sequence[str], hyps: Sequence[Sequence[str]],
                  refs: Sequence[Sequence[str]], chunk: int = DEFAULT_CHUNK,
                  on_chunk: Callable[[Chunk], None] | None = None, *, edits: bool = False) -> list[SystemScore]:
    """PEET of each system (unsorted, in input order; named after their files, formats.systems.system_name: a
    caller with names of its own gives them with dataclasses.replace); on_chunk sees each chunk's per-sentence
    results (with their edits if `edits`)."""
    parts: list[list[np.ndarray]] = [[] for _ in hyps]
    words: list[list[np.ndarray]] = [[] for _ in hyps]
    for ch in score_chunks(annotator, model, hyps, refs, chunk, edits=edits):
        for s in range(len(hyps)):
            parts[s].append(ch.seconds[s])
            words[s].append(ch.features["NumWordsS"][s])
        if on_chunk is not None:
            on_chunk(ch)
    n = len(refs[0]) if refs else 0
    names = [system_name(f) for f in hyp_files]     # no check for two alike: a caller's own names may differ
    return [system_score(names[s], f, parts[s], words[s], n) for s, f in enumerate(hyp_files)]


def system_score(name: str, file: str, seconds: Sequence[np.ndarray], words: Sequence[np.ndarray],
                 sentences: int) -> SystemScore:
    """A system's SystemScore from its per-sentence seconds and MO word counts given in pieces (same cuts)."""
    sec = np.concatenate(seconds) if len(seconds) else np.zeros(0)
    w = np.concatenate(words).astype(np.int64) if len(words) else np.zeros(0, np.int64)
    total = int(w.sum())
    per_word = math.fsum(sec.tolist()) / total if total else float("nan")
    ratios = seconds_per_word(sec, w)
    ratios = ratios[~np.isnan(ratios)]
    mean = math.fsum(ratios.tolist()) / len(ratios) if len(ratios) else float("nan")
    return SystemScore(name, file, system_mean(seconds), sentences, total, per_word, mean)


def seconds_per_word(seconds: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Per-sentence seconds / MO words; NaN for a sentence without MO words."""
    out = np.full(len(seconds), np.nan)
    has = words > 0
    out[has] = seconds[has] / words[has]
    return out


def json_number(x: float) -> float | None:
    """A float for a JSON file: None for NaN (JSON has no NaN)."""
    return None if x != x else x


def system_mean(parts: Sequence[np.ndarray]) -> float:
    """Mean of per-sentence seconds given in pieces, correctly rounded (math.fsum): the same number however the
    corpus was cut into chunks or shards, and in whatever order they finished."""
    n = sum(len(p) for p in parts)
    if n == 0:
        return float("nan")
    return math.fsum(np.concatenate(parts).tolist()) / n


def rank(scores: Sequence[SystemScore]) -> list[SystemScore]:
    """Ascending PEET (less editing time is better); ties by name."""
    return sorted(scores, key=lambda s: (s.peet, s.name))


def sentence_schema(model: Model, contributions: bool = False, edits: bool = False):
    """Columns: system, sentence, reference, the set's features, seconds, seconds_per_word (null for a sentence
    without MO words); with contributions, then one `contrib:<feature>` (float64) per model feature: its share of
    seconds (seconds = intercept + their sum); with edits, last, `edits` (list of strings): the pair's M2 ``A``
    lines (pair_edits)."""
    import pyarrow as pa

    fields = [pa.field("system", pa.string()), pa.field("sentence", pa.int64()), pa.field("reference", pa.int32())]
    fields += [pa.field(name, pa.int32()) for name in feature_names(model.feature_set)]
    fields += [pa.field("seconds", pa.float64()), pa.field("seconds_per_word", pa.float64())]
    if contributions:
        fields += [pa.field(f"contrib:{name}", pa.float64()) for name in model.features]
    if edits:
        fields += [pa.field("edits", pa.list_(pa.string()))]
    return pa.schema(fields, metadata={"peet_fast.feature_set": model.feature_set, "peet_fast.peet.model": model.name})


def sentence_table(model: Model, names: Sequence[str], ch: Chunk, contributions: bool = False):
    """The per-sentence rows of a chunk as an Arrow table (system-major order); with an `edits` column when the chunk
    holds edits."""
    import pyarrow as pa

    S, L = ch.seconds.shape
    cols = {
        "system": pa.array(np.repeat(np.array(names, dtype=object), L), pa.string()),
        "sentence": pa.array(np.tile(np.arange(ch.start, ch.stop, dtype=np.int64), S)),
        "reference": pa.array(ch.reference.reshape(-1)),
    }
    for name in feature_names(model.feature_set):
        cols[name] = pa.array(ch.features[name].reshape(-1))
    cols["seconds"] = pa.array(ch.seconds.reshape(-1))
    ratio = seconds_per_word(ch.seconds.reshape(-1), ch.features["NumWordsS"].reshape(-1))
    cols["seconds_per_word"] = pa.array(ratio, mask=np.isnan(ratio))
    if contributions:
        shares = model.contributions({name: ch.features[name].reshape(-1) for name in model.features})
        for name in model.features:
            cols[f"contrib:{name}"] = pa.array(shares[name])
    if ch.edits is not None:
        cols["edits"] = pa.array([lines for per_system in ch.edits for lines in per_system], pa.list_(pa.string()))
    return pa.table(cols, schema=sentence_schema(model, contributions, ch.edits is not None))
