"""GoToScorer (Gotou et al. 2020, "Taking the Correction Difficulty into Account in GEC Evaluation"): chunk-level
TP/FP/FN/TN weighted by how hard each reference chunk is, as GTS's gotoscorer.py computes them (github
gotutiyan/GTS). Metric "gotoscorer" of the registry; higher is better; needs the sources and a reference.

The reference is one annotator (ref_id, default 0): its edits in the gold M2 when the references come from one
(GTS's -ref M2 and -ref_id; GTS's published CoNLL-14 weight files are chunked on the official M2's annotator 0), else
the errant edits of reference set ref_id. The systems' edits are the ``errant`` metric's (what errant_parallel writes
for GTS's -hyp). Each sentence is cut into chunks as GTS's chunker does (every edit but noop/UNK/Um a chunk, every
other token a chunk, an empty insertion slot before each chunk that does not follow an insertion, one at the end);
each reference chunk is judged against a system's chunks as GTS's alignmenter does (ext/gotoscorer.pyx states the
rule), giving (correct, modified). A chunk's weight is a - (n + b) / (N + c) (``chunk_weight``, a ChunkWeight:
defaults 1, 0, 0, the share of N systems that got it wrong), n the systems that got it right, from (in this order of
precedence): ``no_weight`` (every chunk 1: GTS -no_weight); ``weight_file`` (a GTS weight file: -w_file; N from its
first line, n per chunk); ``weight_systems`` (other outputs, given as line lists or paths); else the systems scored
together (system_stats: the systems GTS's hyp M2 holds; a single system alone weighs every chunk it got right 0, as
GTS does).
Per chunk and system: modified and correct -> TP; modified and wrong -> FP, and FN too when the reference edits the
chunk; unmodified and correct -> TN; unmodified and wrong -> FN. P = TP / (TP + FP), R = TP / (TP + FN), F_beta, and
accuracy (TP + TN) / total weight, each 0 where its denominator is 0 (GTS's Score).

Checked against GTS's gotoscorer.py run here (its demo's printed figures; M2 files of the CoNLL-14 test set written by
errant 3.0.2's errant_parallel for the 27 CoNLL-14 / SEEDA outputs, the official M2 as reference, weights from the 15
SEEDA outputs and from GTS's weight_files/conll14_8sys.txt) and against gec-metrics' test value
(tests/metrics/test_gotoscorer.py; fixtures in tests/fixtures/gotoscorer/). Where gec-metrics' gotoscorer.py
differs from GTS this follows GTS: gec-metrics' gen_gotoscorer_weight.py compares a reference chunk's span with
itself (a chunk counts as corrected by a system that has its text anywhere in the sentence); its scorer counts a
reference insertion that falls inside a multi-token system edit (no slot to compare) as a TN where GTS counts an FN,
and takes a same-span chunk's modified flag alone where GTS ORs it with the system's insertion just before; its
P and R are 1 without FP / FN. Sentence scores (sentence_scores) are gec-metrics' score_sentence figures (its P = 1
without FP, R = 1 without FN: a sentence rightly left alone scores 1); GTS has none.

Departures (bad input GTS crashes on or ignores): a weight file whose sentence count, or a line whose chunk count,
differs from the test set's is refused (InputError naming the file and line; GTS ignores extra lines and chunks);
a reference annotator without any edit line is refused (GTS: "The -ref_id is invalid"); a blank source line
(errant_parallel skips it) is refused.

``convention="gec-metrics"`` is GoToScorer as gec-metrics 0.1.2 computes it with its default Config (what its
MetaEvalSEEDA / MetaEvalGJG meta-evaluate): every chunk of weight 1, the reference's edits errant's of reference set
ref_id, its chunker, alignment and P / R (metrics/gotoscorer_gecm.py says how they differ); it takes no weights.

Per-sentence statistics, shape (n, 5): the weighted TP, FP, FN, TN and total weight of the sentence's chunks."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from peet_fast.io import InputError, integer, plural
from peet_fast.metrics.base import EvalSet, Metric, register
from peet_fast.metrics.config import Config, option

SKIPPED_TYPES = frozenset(("noop", "UNK", "Um"))
COLUMNS = ("TP", "FP", "FN", "TN", "weight")
CONVENTIONS = ("gts", "gec-metrics")


class Chunks(NamedTuple):
    """Chunks of every sentence (ext/gotoscorer.make_chunks): per-sentence offsets, span, text id, modified."""
    off: np.ndarray
    start: np.ndarray
    end: np.ndarray
    text: np.ndarray
    mod: np.ndarray


class _Texts:
    """Interned chunk texts ('' is 0)."""

    def __init__(self):
        self.ids: dict[str, int] = {"": 0}

    def __call__(self, text: str) -> int:
        got = self.ids.get(text)
        if got is None:
            got = self.ids[text] = len(self.ids)
        return got


def gts_prf(tp: float, fp: float, fn: float, tn: float, weight: float, beta: float = 0.5) -> dict:
    """GTS's Score.get_PRFA: precision, recall, F (beta 1), F_beta and accuracy, 0 where undefined."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    b2 = beta * beta
    fb = (1 + b2) * p * r / (b2 * p + r) if b2 * p + r else 0.0
    acc = (tp + tn) / weight if weight else 0.0
    return {"TP": tp, "FP": fp, "FN": fn, "TN": tn, "P": p, "R": r, "F": f1, f"F{beta:g}": fb, "Accuracy": acc}


def read_weight_file(path: str, sentences: int) -> tuple[int, list[list[int]]]:
    """A GTS weight file (-gen_w_file): the number of systems N, then per sentence the number of systems that got
    each reference chunk right. Refuses (InputError naming the file and line) a non-integer, a count outside 0..N and
    a sentence count other than `sentences`."""
    from peet_fast.io import read_lines

    lines = read_lines(path)
    while lines and not lines[-1].strip():
        lines.pop()
    n_systems = integer(lines[0], signed=False) if lines else None        # ASCII digits only (peet_fast.io.numbers)
    if n_systems is None or n_systems < 1:
        raise InputError(path, "not a GoToScorer weight file: the first line must be the number of systems", 1)
    rows = []
    for no, line in enumerate(lines[1:], 2):
        row = [integer(x) for x in line.split()]
        if None in row:
            raise InputError(path, f"expected integers (systems correcting each chunk), got {line[:40]!r}", no)
        if any(not 0 <= x <= n_systems for x in row):
            raise InputError(path, f"a count outside 0..{n_systems}", no)
        rows.append(row)
    if len(rows) != sentences:
        raise InputError(path, f"weights for {plural(len(rows), 'sentence')}, but the test set has {sentences}")
    return n_systems, rows


def weight_file_text(n_systems: int, counts: np.ndarray, off: np.ndarray) -> str:
    """A GTS weight file (what gotoscorer.py -gen_w_file writes) from per-chunk counts of correct systems."""
    lines = [str(n_systems)]
    for k in range(len(off) - 1):
        lines.append(" ".join(map(str, counts[off[k]:off[k + 1]].tolist())))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ChunkWeight:
    """The weight of a reference chunk that n of N systems got right: a - (n + b) / (N + c) (the defaults give the
    share of the N systems that got it wrong)."""
    a: float = 1.0
    b: float = 0.0
    c: float = 0.0

    def __post_init__(self):
        for name in ("a", "b", "c"):
            object.__setattr__(self, name, float(getattr(self, name)))


@register
class GoToScorer(Metric):
    name = "gotoscorer"
    parses = True
    title = "GoToScorer F0.5"
    label = "GoToScorer F0.5"
    higher_is_better = True
    needs_sources = True
    fmt = ".4f"
    config = {"gotoscorer_weight_file": "weight_file", "gotoscorer_systems": "weight_systems",
              "gotoscorer_no_weight": "no_weight"}

    @dataclass(frozen=True)
    class Config(Config):
        beta: float = option(0.5, "the F-measure's beta", low=0)
        ref_id: int = option(0, low=0)                      # the reference whose chunks are scored (GTS -ref_id)
        weight_file: str | None = option(None, kind="path")       # a GTS weight file (-gen_w_file's)
        weight_systems: tuple | None = option(None, kind="paths")  # outputs whose corrections give the weights
        no_weight: bool = option(False)                     # every chunk weighs 1 (GTS -no_weight)
        convention: str = option("gts", choices=CONVENTIONS)

    def __init__(self, beta: float = 0.5, ref_id: int = 0, weight_file: str | None = None,
                 weight_systems: Sequence | None = None, no_weight: bool = False,
                 chunk_weight: ChunkWeight = ChunkWeight(), convention: str = "gts"):
        from peet_fast.metrics.errant import Errant

        if convention not in CONVENTIONS:
            raise ValueError(f"unknown GoToScorer convention {convention!r}; choose from {', '.join(CONVENTIONS)}")
        if convention == "gec-metrics" and (weight_file is not None or weight_systems is not None):
            raise ValueError("the gec-metrics convention weighs every chunk 1 (gec-metrics' default no_weight=True); "
                             "it takes no weight_file or weight_systems")
        self.convention = convention

        self.beta = float(beta)
        self.ref_id = int(ref_id)
        self.weight_file = None if weight_file is None else os.fspath(weight_file)
        self.weight_systems = None if weight_systems is None else list(weight_systems)
        self.no_weight = bool(no_weight)
        self.chunk_weight = chunk_weight
        if beta != 0.5:
            self.title = self.label = f"GoToScorer F{beta:g}"
        self._errant = Errant()
        self.weights: np.ndarray | None = None        # per reference chunk, of the last system_stats
        self.correct_counts: tuple | None = None      # (N, per-chunk systems correct) behind self.weights

    # --- chunks ----------------------------------------------------------------------------------------------------

    def _prepare(self, data: EvalSet):
        """(texts, token arrays, reference chunks) of an EvalSet, computed once."""
        return self.prepared(data, self._chunks)

    def _chunks(self, data: EvalSet):
        from peet_fast._ext.gotoscorer import make_chunks

        if data.sources is None:
            raise ValueError("the gotoscorer metric needs the source sentences (EvalSet.sources)")
        blank = next((k for k, s in enumerate(data.sources) if not s.strip()), None)
        if blank is not None:
            raise InputError("gotoscorer", f"source line {blank + 1} is blank: errant_parallel skips it, so GTS "
                                           "cannot score this test set")
        texts = _Texts()
        tokens = [s.split() for s in data.sources]
        n_tok = np.array([len(t) for t in tokens], dtype=np.int32)
        tok_off = np.zeros(len(tokens) + 1, dtype=np.int64)
        np.cumsum(n_tok, out=tok_off[1:])
        tok_ids = np.fromiter((texts(t) for sent in tokens for t in sent), dtype=np.int32, count=int(tok_off[-1]))
        toks = (n_tok, tok_off, tok_ids)
        gold = make_chunks(*toks, *self._edit_arrays(self._reference_edits(data), texts), 0)
        return texts, toks, Chunks(*gold)

    def _reference_edits(self, data: EvalSet) -> list[list[tuple]]:
        """Per sentence the reference annotator's edits (start, end, type, cor) in file order."""
        if data.gold is not None:
            if not any(e.annotator == self.ref_id for b in data.gold for e in b.edits):
                raise InputError(data.gold_path or "gold", f"no edit of annotator {self.ref_id} (GoToScorer's "
                                                           "reference annotator, ref_id)")
            return [[(e.start, e.end, e.type, e.cor) for e in b.edits if e.annotator == self.ref_id]
                    for b in data.gold]
        if not 0 <= self.ref_id < len(data.references):
            raise InputError("gotoscorer", f"ref_id {self.ref_id}: there are {len(data.references)} reference sets")
        return [list(sent.get(self.ref_id, ())) for sent in self._errant.reference_sentences(data)]

    @staticmethod
    def _edit_arrays(edits: Sequence[Sequence[tuple]], texts: _Texts):
        off = np.zeros(len(edits) + 1, dtype=np.int64)
        start, end, text = [], [], []
        for k, sent in enumerate(edits):
            for s, e, etype, cor in sent:
                if etype in SKIPPED_TYPES:
                    continue
                start.append(s)
                end.append(e)
                text.append(texts(cor))
            off[k + 1] = len(start)
        return (off, np.array(start, dtype=np.int32), np.array(end, dtype=np.int32), np.array(text, dtype=np.int32))

    def evaluations(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per system, per reference chunk: (correct, modified) as GTS's alignmenter judges them (uint8 arrays)."""
        from peet_fast._ext.gotoscorer import evaluate, make_chunks

        texts, toks, gold = self._prepare(data)
        n = len(data.sources)
        for k, h in enumerate(hyps):
            if len(h) != n:
                raise InputError("gotoscorer", f"system {k + 1} has {plural(len(h), 'line')}, the test set {n}")
        out = []
        if not hyps:
            return out
        for system in self._errant.hypothesis_sentences(hyps, data):
            edits = [list(sent.get(0, ())) for sent in system]
            chunks = make_chunks(*toks, *self._edit_arrays(edits, texts), 0)
            out.append(evaluate(*gold, *chunks))
        return out

    # --- weights and statistics ------------------------------------------------------------------------------------

    def _counts(self, data: EvalSet, evaluations) -> tuple[int, np.ndarray]:
        """(N, systems correct per reference chunk) from the weight source (see the module docstring)."""
        gold = self._prepare(data)[2]
        if self.weight_file is not None:
            n_systems, rows = read_weight_file(self.weight_file, len(data.sources))
            for k, row in enumerate(rows):
                want = int(gold.off[k + 1] - gold.off[k])
                if len(row) != want:
                    raise InputError(self.weight_file, f"{len(row)} weights for sentence {k + 1}, which has {want} "
                                                       "chunks (a weight file of another reference?)", k + 2)
            return n_systems, np.array([x for row in rows for x in row], dtype=np.int64)
        if self.weight_systems is not None:
            from peet_fast.io import read_lines

            systems = []
            for s in self.weight_systems:
                lines = read_lines(s) if isinstance(s, (str, os.PathLike)) else list(s)
                if len(lines) != len(data.sources):
                    where = os.fspath(s) if isinstance(s, (str, os.PathLike)) else "weight_systems"
                    raise InputError(where, f"{plural(len(lines), 'line')}, but the test set has {len(data.sources)}")
                systems.append(lines)
            evaluations = self.evaluations(systems, data)
        if not evaluations:
            raise InputError("gotoscorer", "no system to compute the chunk weights from")
        return len(evaluations), np.sum([c.astype(np.int64) for c, _ in evaluations], axis=0)

    def system_stats(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[np.ndarray]:
        if self.convention == "gec-metrics":
            return self._gecm_stats(hyps, data)
        if self.weight_file is not None:            # a wrong sentence count is refused before any annotation
            read_weight_file(self.weight_file, len(data.sources or ()))
        evaluations = self.evaluations(hyps, data)
        gold = self._prepare(data)[2]
        if self.no_weight:
            weights = np.ones(len(gold.start), dtype=np.float64)
        else:
            n_systems, counts = self._counts(data, evaluations)
            w = self.chunk_weight
            if n_systems + w.c == 0:
                raise InputError("gotoscorer", "N + c is 0: the weight a - (n + b) / (N + c) is undefined")
            weights = w.a - (counts + w.b) / (n_systems + w.c)
            self.correct_counts = (n_systems, counts)
        self.weights = weights
        starts = gold.off[:-1]
        gold_mod = gold.mod.astype(bool)
        out = []
        for correct, modified in evaluations:
            cor, mod = correct.astype(bool), modified.astype(bool)
            cols = [mod & cor, mod & ~cor, (mod & ~cor & gold_mod) | (~mod & ~cor), ~mod & cor]
            per_chunk = np.stack([np.where(m, weights, 0.0) for m in cols] + [weights], axis=1)
            out.append(np.add.reduceat(per_chunk, starts, axis=0))
        return out

    def _gecm_stats(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[np.ndarray]:
        """gec-metrics' convention (metrics/gotoscorer_gecm.py): the reference's edits are errant's of reference
        set ref_id (even where a gold M2 is given), every chunk weighs 1."""
        from peet_fast.metrics import gotoscorer_gecm as G

        if data.sources is None:
            raise ValueError("the gotoscorer metric needs the source sentences (EvalSet.sources)")
        n = len(data.sources)
        for k, h in enumerate(hyps):
            if len(h) != n:
                raise InputError("gotoscorer", f"system {k + 1} has {plural(len(h), 'line')}, the test set {n}")
        if not 0 <= self.ref_id < len(data.references):
            raise InputError("gotoscorer", f"ref_id {self.ref_id}: there are {len(data.references)} reference sets")
        refs = [list(sent.get(self.ref_id, ())) for sent in self._errant.reference_sentences(data)]
        systems = [[list(sent.get(0, ())) for sent in system]
                   for system in self._errant.hypothesis_sentences(hyps, data)]
        self.weights = None
        self.correct_counts = None
        return G.system_stats(refs, systems, data.sources)

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        return self.system_stats([hyp], data)[0]

    def weight_file_text(self) -> str:
        """The weight file (GTS -gen_w_file) of the weights the last system_stats used."""
        latest = self.last_prepared(self._chunks)            # the last EvalSet's (texts, token arrays, chunks)
        if self.correct_counts is None or latest is None:
            raise ValueError("no weights computed yet (or no_weight)")
        return weight_file_text(self.correct_counts[0], self.correct_counts[1], latest[2].off)

    # --- scores ----------------------------------------------------------------------------------------------------

    def scores(self, stats: np.ndarray) -> dict:
        """GTS's figures of the summed statistics (its -v line): TP, FP, FN, TN, P, R, F, F<beta>, Accuracy."""
        tp, fp, fn, tn, w = np.asarray(stats, dtype=np.float64).reshape(-1, 5).sum(axis=0).tolist()
        out = gts_prf(tp, fp, fn, tn, w, self.beta)
        if self.convention == "gec-metrics":        # gec-metrics' Score: P = 1 without FP, R = 1 without FN
            p, r = (1.0 if fp == 0 else tp / (tp + fp)), (1.0 if fn == 0 else tp / (tp + fn))
            out.update(P=p, R=r, F=2 * p * r / (p + r) if p + r else 0.0)
            out[f"F{self.beta:g}"] = float(self._gecm().f_beta(tp, fp, fn, self.beta))
        return out

    @staticmethod
    def _gecm():
        from peet_fast.metrics import gotoscorer_gecm

        return gotoscorer_gecm

    def corpus_score(self, stats: np.ndarray) -> float:
        return self.scores(stats)[f"F{self.beta:g}"]

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """gec-metrics' GoToScorer.score_sentence: per sentence F_beta with P = 1 without FP, R = 1 without FN."""
        st = np.asarray(stats, dtype=np.float64).reshape(-1, 5)
        tp, fp, fn = st[:, 0], st[:, 1], st[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(fp == 0, 1.0, tp / (tp + fp))
            r = np.where(fn == 0, 1.0, tp / (tp + fn))
            b2 = self.beta ** 2
            f = np.where(p + r > 0, (1 + b2) * p * r / (b2 * p + r), 0.0)
        return f

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self.bootstrap_systems([stats], idx)[:, 0]

    def bootstrap_systems(self, stats: Sequence[np.ndarray], idx: np.ndarray) -> np.ndarray:
        k = idx.shape[0]
        out = np.empty((k, len(stats)), dtype=np.float64)
        if not len(stats):
            return out
        from peet_fast.metrics.stats import resample_counts

        counts = resample_counts(idx, len(stats[0]))
        b2 = self.beta ** 2
        for s, st in enumerate(stats):
            tp, fp, fn = (counts @ np.asarray(st, dtype=np.float64).reshape(-1, 5)[:, :3]).T
            if self.convention == "gec-metrics":
                out[:, s] = self._gecm().f_beta(tp, fp, fn, self.beta)
                continue
            with np.errstate(divide="ignore", invalid="ignore"):
                p = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
                r = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
                out[:, s] = np.where(b2 * p + r > 0, (1 + b2) * p * r / (b2 * p + r), 0.0)
        return out
