"""The PEET model: the JSON model format and its predictor, per-sentence and system scores, training and
explanation, the published model (models/), and PEET as a metric of the registry (metric).

May import jobs (its own floor: the job directory a model reads), the metrics, the languages (en) and the ground
floor (io, cache, formats); never evaluation, meta_eval, api or cli."""
