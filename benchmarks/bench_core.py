"""Speed of the cost model: one sweep of 100,000 context lengths for every model.

Goal: ≤ 20 ms for the sweep (storage, cache and reads, all models). The baseline in the
same run is a plain numpy pass over the same array (n // 4 + min(n, 512)), so the ratio
says how far the cost model is from the cheapest possible vectorised work.
Run: python benchmarks/bench_core.py
"""

import pathlib
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import core  # noqa: E402


def best_of(fn, repeat=20) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def sweep_reads(n):
    return [core.reads(m, n).total for m in core.MODELS]


def sweep_cache(n):
    return [core.cache_at(m, n).total for m in core.MODELS]


def baseline(n):
    for _ in core.MODELS:
        (n // 4 + np.minimum(n, 512)).sum()


if __name__ == "__main__":
    n = np.unique(np.geomspace(1, 10_000_000, 100_000).astype(np.int64))
    n = np.resize(n, 100_000)
    t_read, t_cache = best_of(lambda: sweep_reads(n)), best_of(lambda: sweep_cache(n))
    t_base = best_of(lambda: baseline(n))
    print(f"{n.size:,} contexts × {len(core.MODELS)} models (goal ≤ 20 ms per sweep):")
    print(f"  reads per decode step: {t_read:.2f} ms   cache at N: {t_cache:.2f} ms")
    print(f"numpy baseline (one pass per model): {t_base:.2f} ms → reads ratio {t_read / t_base:.1f}×")
