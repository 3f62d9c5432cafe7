"""Many systems at once, on the metrics: rank (bootstrap intervals, p-values, human correlations), report (HTML),
agreement between annotators, edit-wise ensembles, and EXCGEC's Chinese evaluation.

May import peet, jobs, metrics, the languages and the ground floor; never meta_eval, api or cli."""
