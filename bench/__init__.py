"""Benchmark helpers: a realistic Continue store generator and the comparison baselines."""
