"""The featurize stage: feature-set definitions (names and order live here only), the ERRANT label table, and the
conversion of edits into count vectors (the counting itself is compiled: peet_fast._ext.features).

Features of a pair (MO = system output, TRG = its corrected reference) come from the ERRANT edits MO -> TRG; edits of
type noop, UNK and Um are ignored. An edit's weight is its span length in MO tokens (o_end - o_start), 1 for an
insertion.

- small (4): R, M, U = summed weights of replacement / missing / unnecessary edits; NONE = 1 when the pair has no edit
- medium (25): the 24 ERRANT error types + NONE
- large (55): the 54 operation:type labels + NONE
- sentence features: NumWordsS, NumWordsT (whitespace-separated words of MO and TRG; with tokenise (-tok), spaCy's
  tokens of the stripped text), NumEditedWords (summed weights)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from peet_fast._ext.features import count_edits

# Types the classifier can give a one-sided (M:/U:) edit, and a replacement (R:) edit, on whitespace-tokenised input
ONE_SIDED_TYPES = ("ADJ", "ADV", "CONJ", "CONTR", "DET", "NOUN", "NOUN:POSS", "OTHER", "PART", "PREP", "PRON", "PUNCT",
                   "VERB", "VERB:FORM", "VERB:TENSE")
ERROR_TYPES = ("ADJ", "ADJ:FORM", "ADV", "CONJ", "CONTR", "DET", "MORPH", "NOUN", "NOUN:INFL", "NOUN:NUM", "NOUN:POSS",
               "ORTH", "OTHER", "PART", "PREP", "PRON", "PUNCT", "SPELL", "VERB", "VERB:FORM", "VERB:INFL", "VERB:SVA",
               "VERB:TENSE", "WO")
OP_TYPES = tuple([f"M:{t}" for t in ONE_SIDED_TYPES] + [f"R:{t}" for t in ERROR_TYPES] +
                 [f"U:{t}" for t in ONE_SIDED_TYPES])
IGNORED_LABELS = ("noop", "UNK", "Um")
# Labels the classifier emits only for whitespace tokens (spaCy's tokenizer, -tok): they count as R/M/U and as edited
# words, but no medium or large feature has a column for them (featurizing those sets refuses them, naming the pair).
SPACE_LABELS = ("M:SPACE", "R:SPACE", "U:SPACE")
LABELS = IGNORED_LABELS + OP_TYPES + SPACE_LABELS
LABEL_IDS = {lab: k for k, lab in enumerate(LABELS)}

SENTENCE_FEATURES = ("NumWordsS", "NumWordsT", "NumEditedWords")
EDIT_FEATURES = {
    "small": ("R", "M", "U", "NONE"),
    "medium": ERROR_TYPES + ("NONE",),
    "large": OP_TYPES + ("NONE",),
}
FEATURE_SETS = tuple(EDIT_FEATURES)


# Source modes: "mo-trg" (edits MO -> TRG, the features above) or "src-mo-trg": with A = the edits SRC -> MO and
# C = the edits SRC -> TRG, an edit of A not in C is *incorrect* (the tool changed what the editor left or changed
# differently) and an edit of C not in A is *ignored* (the editor's correction the tool missed). Both are edits of SRC,
# so an edit's identity is (o_start, o_end, corrected tokens) on SRC; its label is its own type, its weight its span
# in SRC tokens (1 for an insertion). Per edit feature of the set (NONE excepted): `incorrect:<f>` and `ignored:<f>`,
# then `correct` (1 when there is neither an incorrect nor an ignored edit); the sentence features are NumWordsS
# (words of MO), NumWordsT (words of TRG) and NumEditedWords (summed weights of the incorrect and ignored edits).
SOURCE_MODES = ("mo-trg", "src-mo-trg")
SRC_KINDS = ("incorrect", "ignored")
CORRECT = "correct"
# 0/1 indicator features (explain leaves them unstandardized)
BINARY_FEATURES = ("NONE", CORRECT)


def edit_feature_names(feature_set: str, source_mode: str = "mo-trg") -> tuple[str, ...]:
    """The edit features of a set in a source mode, in canonical order."""
    edits = EDIT_FEATURES[_check_set(feature_set)]
    if _check_mode(source_mode) == "mo-trg":
        return edits
    kinds = [f for f in edits if f != "NONE"]
    return tuple(f"{k}:{f}" for k in SRC_KINDS for f in kinds) + (CORRECT,)


def feature_names(feature_set: str, source_mode: str = "mo-trg") -> tuple[str, ...]:
    """All features of a set, in canonical order: its edit features, then the sentence features."""
    return edit_feature_names(feature_set, source_mode) + SENTENCE_FEATURES


def _check_mode(source_mode: str) -> str:
    if source_mode not in SOURCE_MODES:
        raise ValueError(f"unknown source mode {source_mode!r}; choose from: {', '.join(SOURCE_MODES)}")
    return source_mode


def _check_set(feature_set: str) -> str:
    if feature_set not in EDIT_FEATURES:
        raise ValueError(f"unknown feature set {feature_set!r}; choose from: {', '.join(FEATURE_SETS)}")
    return feature_set


def _label_column(label: str, feature_set: str) -> int:
    cols = EDIT_FEATURES[feature_set]
    if label in IGNORED_LABELS:
        return -1
    op, _, etype = label.partition(":")
    if feature_set == "small":
        return cols.index(op)
    key = etype if feature_set == "medium" else label
    return cols.index(key) if key in cols else -1


_MAPS: dict = {}


def label_maps(feature_set: str) -> tuple[np.ndarray, np.ndarray]:
    """(counted, column) int32 arrays indexed by label id."""
    maps = _MAPS.get(feature_set)
    if maps is None:
        counted = np.array([lab not in IGNORED_LABELS for lab in LABELS], dtype=np.int32)
        column = np.array([_label_column(lab, _check_set(feature_set)) for lab in LABELS], dtype=np.int32)
        maps = _MAPS[feature_set] = (counted, column)
    return maps


class FeatureError(ValueError):
    """An edit label that the chosen feature set cannot represent."""


@dataclass
class EditArrays:
    """The edits of a batch of pairs as flat arrays (one entry per edit)."""
    n_pairs: int
    pair: np.ndarray
    o_start: np.ndarray
    o_end: np.ndarray
    label: np.ndarray


def _count(feature_set: str, edits: EditArrays, none_column: int, what: str = "pair", kind: str = "") -> tuple:
    """count_edits over the set's labels: (X (edits.n_pairs, edit features), edited words per pair); refuses a pair
    with an edit label the set has no column for (FeatureError naming it)."""
    counted, column = label_maps(feature_set)
    names = EDIT_FEATURES[feature_set]
    pair, label = edits.pair, edits.label
    X, edited, unlisted = count_edits(edits.n_pairs, pair, edits.o_start, edits.o_end, label, counted, column,
                                      len(names), none_column)
    if unlisted.any():
        k = int(np.flatnonzero(unlisted)[0])
        labs = sorted({LABELS[lab] for p, lab in zip(pair, label) if p == k and column[lab] < 0 and counted[lab]})
        raise FeatureError(f"{what} {k}: {kind + ' ' if kind else ''}edit label(s) {', '.join(labs)} have no column in the {feature_set!r} "
                           f"feature set (whitespace tokens from spaCy's tokenizer?)")
    return X, edited


def word_counts(annotator, texts: Sequence[str]) -> np.ndarray:
    """Words per text as the annotator's edits count them: whitespace tokens of pre-tokenised text, spaCy's tokens
    of the stripped text when the annotator tokenises raw text (-tok)."""
    if getattr(annotator, "tokenise", False):
        tokens = annotator.token_lists([s.strip() for s in texts])
        return np.fromiter(map(len, tokens), dtype=np.int32, count=len(texts))
    return np.fromiter((len(s.split()) for s in texts), dtype=np.int32, count=len(texts))


def _sentence_columns(cols: dict, mo: Sequence[str], trg: Sequence[str], edited: np.ndarray,
                      annotator=None) -> dict:
    cols["NumWordsS"] = word_counts(annotator, mo)
    cols["NumWordsT"] = word_counts(annotator, trg)
    cols["NumEditedWords"] = edited
    return cols


def _once_per_distinct(fn, *texts: Sequence[str]) -> dict | None:
    """When some rows repeat (systems agreeing on a sentence), fn's columns over the distinct rows, expanded back to
    every row; None when all rows are distinct."""
    index: dict = {}
    inverse = np.fromiter((index.setdefault(t, len(index)) for t in zip(*texts)), dtype=np.int64,
                          count=len(texts[0]))
    if len(index) == len(texts[0]):
        return None
    cols = fn(*([row[i] for row in index] for i in range(len(texts))))
    return {name: col[inverse] for name, col in cols.items()}


def count_features(edits: EditArrays, feature_set: str, mo: Sequence[str], trg: Sequence[str],
                   annotator=None) -> dict:
    """Feature columns (name -> int32 array, canonical order) for the pairs (mo[k], trg[k]) whose edits are given
    (sentence lengths in the annotator's words: see word_counts)."""
    names = EDIT_FEATURES[feature_set]
    X, edited = _count(feature_set, edits, names.index("NONE"))
    return _sentence_columns({name: X[:, j] for j, name in enumerate(names)}, mo, trg, edited, annotator)


def featurize(annotator, mo: Sequence[str], trg: Sequence[str], feature_set: str = "small") -> dict:
    """Feature columns (name -> int32 array) for the pairs (mo[k], trg[k]): ERRANT edits MO -> TRG, then counts."""
    _check_set(feature_set)
    # a (MO, TRG) pair that occurs several times (systems agreeing on a sentence) is annotated once
    cols = _once_per_distinct(lambda m, t: featurize(annotator, m, t, feature_set), mo, trg)
    if cols is not None:
        return cols
    pair, o_start, o_end, label = annotator.edit_arrays(mo, trg, LABEL_IDS)
    return count_features(EditArrays(len(mo), pair, o_start, o_end, label), feature_set, mo, trg, annotator)


def featurize_src(annotator, src: Sequence[str], mo: Sequence[str], trg: Sequence[str],
                  feature_set: str = "small") -> dict:
    """Feature columns (name -> int32 array, canonical order) of the src-mo-trg mode for the triples
    (src[k], mo[k], trg[k]): incorrect edits (SRC -> MO, not SRC -> TRG), ignored edits (SRC -> TRG, not SRC -> MO),
    `correct`, and the sentence features (see SOURCE_MODES). Every distinct sentence is parsed once."""
    _check_set(feature_set)
    if not len(src) == len(mo) == len(trg):
        raise ValueError(f"src, mo and trg differ in length ({len(src)}, {len(mo)}, {len(trg)})")
    cols = _once_per_distinct(lambda s, m, t: featurize_src(annotator, s, m, t, feature_set), src, mo, trg)
    if cols is not None:
        return cols
    n = len(mo)
    _, edits = annotator.annotate_raw(list(src) + list(src), list(mo) + list(trg))
    found = {kind: ([], [], [], []) for kind in SRC_KINDS}
    for k in range(n):
        a, c = edits[k], edits[n + k]
        for kind, mine, other in (("incorrect", a, c), ("ignored", c, a)):
            other_keys = {(e[0], e[1], e[5]) for e in other}
            arrs = found[kind]
            for e in mine:
                if (e[0], e[1], e[5]) not in other_keys:
                    for arr, v in zip(arrs, (k, e[0], e[1], LABEL_IDS[e[6]])):
                        arr.append(v)
    names = EDIT_FEATURES[feature_set]
    cols: dict = {}
    edited_total = np.zeros(n, dtype=np.int32)
    for kind in SRC_KINDS:
        arrays = EditArrays(n, *(np.array(a, dtype=np.int32) for a in found[kind]))
        X, edited = _count(feature_set, arrays, -1, "triple", kind)
        for j, f in enumerate(names):
            if f != "NONE":
                cols[f"{kind}:{f}"] = X[:, j]
        edited_total += edited
    cols[CORRECT] = (edited_total == 0).astype(np.int32)
    _sentence_columns(cols, mo, trg, edited_total, annotator)
    return {name: cols[name] for name in feature_names(feature_set, "src-mo-trg")}


SCHEMA_VERSION = "1"


def feature_table_schema(feature_set: str):
    """Arrow schema of a features file: sentence (int64), then every feature of the set (int32), canonical order."""
    import pyarrow as pa

    fields = [pa.field("sentence", pa.int64())] + [pa.field(n, pa.int32()) for n in feature_names(feature_set)]
    return pa.schema(fields, metadata={"peet_fast.feature_set": feature_set,
                                       "peet_fast.schema_version": SCHEMA_VERSION})


def featurize_table(annotator, mo: Sequence[str], trg: Sequence[str], feature_set: str = "small", start: int = 0):
    """featurize() as an Arrow table with feature_table_schema; sentence numbers start at `start`."""
    import pyarrow as pa

    cols = featurize(annotator, mo, trg, feature_set)
    arrays = [pa.array(np.arange(start, start + len(mo), dtype=np.int64))]
    arrays += [pa.array(cols[n]) for n in feature_names(feature_set)]
    return pa.Table.from_arrays(arrays, schema=feature_table_schema(feature_set))
