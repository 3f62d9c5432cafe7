"""Metric meta-evaluation: how well a metric's scores agree with human judgments on SEEDA and GJG15, as gec-metrics
and SEEDA compute it. data loads a dataset (its outputs, gold references, human system scores and judgments, the
latter read by peet_fast.meta_eval.human.judgments); system and sentence give the system-, window- and
sentence-level figures; significance their intervals and tests; evaluator ties them together (`peet-fast
meta-eval`, ``peet_fast.meta_eval(...)``); plots draws them."""
