"""GLEU exactly as the official ``compute_gleu`` of cnap/gec-ranking computes it (the 2016 update for several
references, with its 2017 brevity-penalty fix: ``scripts/compute_gleu`` and ``scripts/gleu.py``).

What the official does, and what this module reproduces:

- Tokens: each line split on ASCII whitespace (Python 2's ``str.split()`` on bytes: space, ``\\t \\n \\r \\v \\f``);
  lines end at ``\\n`` only (Python 2's file iteration).
- Statistics of one hypothesis sentence against one reference: hypothesis length c, reference length r, and for
  n-gram orders 1-4: ``max(|h & r| - |h & (s - r)|, 0)`` (clipped counts: n-grams of the hypothesis matching the
  reference, minus those matching source n-grams the reference does not have) and ``max(c + 1 - n, 0)``. The order
  is always 4: the official's GLEU class ignores its ``n`` argument.
- Several references: iteration j (``--iter``, 500 by default; 1 when there is one reference) draws one reference
  per sentence, with Python 2's ``random.seed(j * 101)`` then ``random.randint(0, R - 1)`` for each sentence in
  order, which is ``int(random() * R)`` (Python 2's randrange; Python 3's randint draws otherwise). Seeding an int
  is MT19937's ``init_by_array`` over its 32-bit words, which numpy's legacy RandomState does when given a list;
  ``random()`` is the 53-bit ``genrand_res53`` in both. The statistics of each (sentence, reference) pair are
  computed once; an iteration's corpus statistics are sums selected by its draws (a matrix product, not a pass).
- Corpus GLEU of one iteration: 0 when any statistic is 0, else ``exp(min(0, 1 - r/c) + sum(log(num_n/den_n))/4)``
  over the first ``2n + 2`` statistics (the official sums its per-iteration statistics into a list of length
  ``2n + 2``, so ``-n 1..3`` keeps only the first n precisions, still divided by 4; ``-n`` over 4 is 4).
- Printed: ``'%f'`` of numpy's mean over the iterations; with ``-d``, per sentence the mean, population standard
  deviation and ``'(%.3f,%.3f)'`` normal 95% interval (scipy's ``norm.interval``: nan when the deviation is 0) of
  the smoothed sentence GLEU against each reference (zero statistics replaced by 1), then the same three figures of
  the iterations' corpus GLEU.

Differences, on purpose: files whose line counts differ are refused (the official crashes, or silently scores a
shorter hypothesis file's first lines); a UTF-8 byte order mark at a file's start is dropped (the official makes it
part of the first token); invalid UTF-8 and NUL bytes are refused; ``-n`` and ``--iter`` must be at least 1, and
``--iter`` at most MAX_ITERATIONS (1,000,000), whose draws are made and summed in chunks of DRAW_CELLS cells (memory
that does not grow with the iterations).

The package, along its seams: read (the files as compute_gleu reads them), ngrams (References: the n-gram
statistics of every sentence and reference), reference_draws (the reference draws of the iterations), score (the
figures, one system's result), metric (GleuMetric, the registry's interface). Every name is re-exported here."""
from __future__ import annotations

from peet_fast.metrics.gleu.read import (
    read_gleu_lines,
    split_lines,
    tokens_of,
)
from peet_fast.metrics.gleu.ngrams import (
    K,
    ORDER,
    _clipped,
    pair_stats,
    References,
)
from peet_fast.metrics.gleu.reference_draws import (
    DRAW_CELLS,
    SEED_STEP,
    chunk_iterations,
    draw_chunks,
    draws,
    held_draws,
    iteration_sums,
    iterations_for,
    python2_randint_stream,
    seed_key,
    selection_matrix,
)
from peet_fast.metrics.gleu.score import (
    MAX_ITERATIONS,
    Z_HIGH,
    Z_LOW,
    check_options,
    corpus_values,
    format_summary,
    gleu_of,
    GleuResult,
    kept_columns,
    score_system,
    sentence_summaries,
    summary,
)
from peet_fast.metrics.gleu.metric import (
    MAX_STATS_CELLS,
    _gleu_array,
    GleuMetric,
)
