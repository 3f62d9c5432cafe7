"""Meta-evaluation: human system rankings from annotators' judgments (Expected Wins, TrueSkill, bootstrap rank
clusters) and metrics' agreement with them. May import metrics, evaluation, peet, jobs, io and formats; never cli/api."""
