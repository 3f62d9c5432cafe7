"""The PEET model: the JSON model format and its predictor, per-sentence and system scores, training and
explanation, the published model (models/), and PEET as a metric of the registry (metric).

May import the metrics, the languages (en) and the ground floor (io, cache, formats); never evaluation, meta_eval, jobs
above it ... except jobs at its own floor (peet.scoring runs in-process; jobs runs it sharded), api or cli."""
