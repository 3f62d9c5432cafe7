"""GEC metrics, one module per family, each usable on plain Python values (no files, no CLI): the registry
(:mod:`peet_fast.metrics.base`: a Metric by name, ``metric_names()``) holds wer, errant, gleu, m2, sentm2,
senterrant, gotoscorer, green, cleme and cleme2 from here, and peet (registered from peet_fast.peet.metric); beside
them, what they are built on:

- :mod:`peet_fast.metrics.span`: span-based P/R/F of hypothesis edits against reference edits, exactly as
  errant_compare and ChERRANT's compare (modes cs/cse/ds/dt, per-type counts, the tools' report);
- :mod:`peet_fast.metrics.cleme`: CLEME, chunk-level multi-reference scoring (dependent/independent,
  length-weighted or not);
- :mod:`peet_fast.metrics.overlap`: text-overlap metrics on character tokens (BLEU, METEOR, ROUGE-1/2/L), as NLTK
  and rouge_chinese compute them;
- :mod:`peet_fast.metrics.stats`: statistics (paired bootstrap, percentile intervals, paired p-values, Pearson,
  Spearman);
- :mod:`peet_fast.metrics.wer`: word error rate against the closest reference;
- :mod:`peet_fast.metrics.inputs`: compare's edits from M2 blocks or annotated parallel text (the files are read by
  peet_fast.evaluation.inputs).

A corpus-level result of a metric is a :class:`MetricResult`: its ``summary()`` is the JSON-ready dict the commands
write (``--summary``) and the reports print from.

May import the languages (en, zh), the kernels and the ground floor; never peet, jobs or any floor above (PEET is registered by name from peet/metric.py)."""
from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class MetricResult(Protocol):
    """What every corpus-level metric result offers (span.CompareResult, cleme.ClemeResult)."""

    def summary(self) -> dict:
        """The result's figures as a JSON-ready dict (the keys the commands write and print)."""
        ...
