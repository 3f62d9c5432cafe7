"""Meta-evaluation: human rankings from judgments, and metrics' system-, window- and sentence-level agreement with
them (SEEDA, GJG15)."""
