"""PEET as a metric of the registry (name "peet"): predicted post-editing seconds per sentence, the minimum over the
references, and a system's PEET is their mean (peet_fast.peet.scoring; lower is better).

Per-sentence statistics, shape (n, 1 + F): column 0 the predicted seconds (the minimum over the references), then
the F features of the model's feature set (peet_fast.en.features.feature_names order) of the pair giving that
minimum, NumWordsS among them (the MO words the per-word figures divide by). The corpus score is the mean of column 0
(math.fsum, as `score` and `rank` compute it); the bootstrap is the mean over each resample
(peet_fast.metrics.stats.resample_means, so a (S, n) batch of systems is resampled exactly as `rank` always has).
A sentence's score (sentence_scores) is its column 0: the predicted seconds, lower is better.

EvalSet use: references (the post-edits), annotator (the English annotator), options["model"] (a
peet_fast.peet.model.Model; the published model when absent) and options["on_chunk"] (called with each
peet_fast.peet.scoring.Chunk, e.g. for progress)."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from peet_fast.metrics.base import EvalSet, Metric, register


@register
class PEET(Metric):
    name = "peet"
    title = "PEET (s)"
    label = "PEET"
    higher_is_better = False
    fmt = ".3f"
    shown_figures = {"seconds_per_word": ("s/word", "the system's total predicted seconds / its total MO words "
                                                    "(whitespace-separated)"),
                     "mean_seconds_per_word": ("mean s/word", "the mean over sentences of seconds / MO words "
                                                              "(sentences without MO words left out)")}
    needs_annotator = True
    needs_model = True
    phase = "score"

    def __init__(self, model=None):
        self.model = model

    def model_for(self, data: EvalSet):
        """The model: the metric's own, else data.options["model"], else the published one."""
        from peet_fast.peet.model import load_model

        model = self.model if self.model is not None else data.options.get("model")
        return model if model is not None else load_model()

    def signed(self, data: EvalSet) -> dict:
        """The model: the first 8 hex digits of the SHA-256 of its JSON (keys sorted)."""
        import json

        from peet_fast.metrics.signature import digest

        model = self.model_for(data) if data is not None else self.model
        if model is None:
            from peet_fast.peet.model import load_model

            model = load_model()
        return {"model": digest(json.dumps(model.to_json(), sort_keys=True).encode())}

    def columns(self, data: EvalSet) -> list[str]:
        """The names of the statistics' columns: "seconds", then the model's features."""
        from peet_fast.en.features import feature_names

        return ["seconds", *feature_names(self.model_for(data).feature_set)]

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        return self.system_stats([hyp], data)[0]

    def system_stats(self, hyps: Sequence[Sequence[str]], data: EvalSet) -> list[np.ndarray]:
        """All systems x references of a chunk in one annotation batch (peet_fast.peet.scoring.score_chunks)."""
        from peet_fast.peet.scoring import score_chunks

        if data.annotator is None:
            raise ValueError("the peet metric needs an annotator (EvalSet.annotator)")
        model = self.model_for(data)
        names = self.columns(data)[1:]
        on_chunk = data.options.get("on_chunk")
        parts: list[np.ndarray] = []
        for ch in score_chunks(data.annotator(), model, hyps, data.references):
            parts.append(np.concatenate([ch.seconds[:, :, None],
                                         np.stack([ch.features[k] for k in names], axis=2)], axis=2))
            if on_chunk is not None:
                on_chunk(ch)
        if not parts:
            return [np.zeros((0, 1 + len(names))) for _ in hyps]
        whole = np.concatenate(parts, axis=1)
        out = [np.ascontiguousarray(whole[s]) for s in range(len(hyps))]
        for s in out:
            self._remember(s, model)
        return out

    def system_figures(self, stats: np.ndarray, data: EvalSet) -> dict:
        """PEET, the MO words and the per-word figures of one system (peet_fast.peet.scoring.system_score)."""
        from peet_fast.peet.scoring import system_score

        st = np.asarray(stats, dtype=np.float64)
        words = st[:, self.columns(data).index("NumWordsS")].astype(np.int32)
        got = system_score("", "", [np.ascontiguousarray(st[:, 0])], [words], len(st))
        return {"peet": got.peet, "words": got.words, "seconds_per_word": got.seconds_per_word,
                "mean_seconds_per_word": got.mean_seconds_per_word}

    def sentence_arrays(self, stats: Sequence[np.ndarray], data: EvalSet) -> dict:
        """"seconds": (S, n) predicted seconds; then each feature of the model, (S, n) int32 (the values of the
        reference giving the minimum)."""
        both = np.stack([np.asarray(s, dtype=np.float64) for s in stats])          # (S, n, 1 + F)
        out = {"seconds": np.ascontiguousarray(both[:, :, 0])}
        out.update({k: both[:, :, j].astype(np.int32) for j, k in enumerate(self.columns(data)) if j})
        return out

    def breakdown(self, stats: np.ndarray) -> dict | None:
        """PEET's seconds by term of the model, for one system (stats as system_stats returned them, all its
        sentences): {"intercept": {...}, FEATURE: {...}}, each with "seconds" (the term's mean over the sentences,
        coefficient x feature, Model.contributions) and "share" (seconds / PEET); a feature also has "mean" (its mean
        value). The terms' seconds add up to PEET. None for statistics this instance did not compute."""
        model = self._recalled(stats)
        if model is None:
            return None
        st = np.asarray(stats, dtype=np.float64)
        n = len(st)
        peet = self.corpus_score(st)
        from peet_fast.en.features import feature_names

        cols = {k: st[:, j + 1] for j, k in enumerate(feature_names(model.feature_set))}   # columns' order
        terms = {"intercept": float(model.intercept) if n else float("nan")}
        terms.update({k: math.fsum(v.tolist()) / n if n else float("nan")
                      for k, v in model.contributions(cols).items()})
        out = {}
        for k, sec in terms.items():
            entry = {} if k == "intercept" else {"mean": math.fsum(cols[k].tolist()) / n if n else float("nan")}
            entry.update(seconds=sec, share=sec / peet if peet else float("nan"))
            out[k] = entry
        return out

    def corpus_score(self, stats: np.ndarray) -> float:
        stats = np.asarray(stats, dtype=np.float64)
        if len(stats) == 0:
            return float("nan")
        return math.fsum(stats[:, 0].tolist()) / len(stats)

    def sentence_scores(self, stats: np.ndarray) -> np.ndarray:
        """Each sentence's predicted seconds (column 0; lower is better, as the corpus score)."""
        return np.asarray(stats, dtype=np.float64).reshape(len(stats), -1)[:, 0].copy()

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self.bootstrap_systems([stats], idx)[:, 0]

    def bootstrap_systems(self, stats: Sequence[np.ndarray], idx: np.ndarray) -> np.ndarray:
        from peet_fast.metrics.stats import resample_means

        return resample_means(np.stack([np.asarray(s, dtype=np.float64)[:, 0] for s in stats]), idx)
