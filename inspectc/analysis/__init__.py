"""Analysis: pure functions from the report model to results (breaks, diff, ranks, check...)."""
