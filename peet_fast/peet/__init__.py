"""The PEET model: the JSON model format and its predictor, per-sentence and system scores, training and
explanation, the published model (models/), and PEET as a metric of the registry (metric).

Imports nothing of jobs (the floor above, which runs the model; the caller hands peet the rows it reads or the
reader of a job's directory). May import the metrics, the languages (en) and the ground
floor (io, cache, formats); never evaluation, meta_eval, api or cli."""
