"""Human rankings of systems from annotators' judgments (Appraise ranking XML, as SEEDA and GJG15 release them):
the one reader of those files and its ranking items (judgments), Expected Wins (expected_wins), TrueSkill
(trueskill: the compiled update, checked against the `trueskill` package), bootstrap rank ranges and clusters
(clusters) and GJG15's Table 3 procedure on top of them (ranking: `peet-fast human-rank`). Nothing here imports the
metric meta-evaluation (peet_fast.meta_eval.metric), which builds on it."""
