"""Speed scripts, run by hand from the repo root: `python -m benchmarks.bench_core --check`.

Each states its goal in its docstring, prints it, and with --check exits 1 when it is missed.
"""
