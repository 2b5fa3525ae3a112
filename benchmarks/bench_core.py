"""Speed of the cost model: one sweep of 100,000 context lengths for every model, and the MLA
mechanism's default run.

Goal: ≤ 20 ms per sweep (reads per decode step; cache at N), medians; ≤ 50 ms for a default MLA
run with its FP8 score and output orders (≈1.5 ms measured when the figures were first drawn).
The baseline in the same run is a plain numpy pass over the same array (n // 4 + min(n, 512))
per model, so the ratio says how far the cost model is from the cheapest possible vectorised work.
Run: python -m benchmarks.bench_core [--check]
"""

import argparse

import numpy as np

import core
from benchmarks.timing import measure, verdict
from core.mechanisms import content_score_orders, output_orders, run_mla

GOAL_MS, MLA_GOAL_MS = 20.0, 50.0


def sweep_reads(n):
    return [core.reads(m, n).total for m in core.MODELS]


def sweep_cache(n):
    return [core.cache_at(m, n).total for m in core.MODELS]


def mla_run():
    r = run_mla()
    content_score_orders(r, precision="fp8")
    output_orders(r, precision="fp8")


def baseline(n):
    for _ in core.MODELS:
        (n // 4 + np.minimum(n, 512)).sum()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()

    n = np.resize(np.unique(np.geomspace(1, 10_000_000, 100_000).astype(np.int64)), 100_000)
    base = measure(lambda: baseline(n), repeat=20)
    sweeps = {"reads per decode step": measure(lambda: sweep_reads(n), repeat=20),
              "cache at N": measure(lambda: sweep_cache(n), repeat=20)}
    run = measure(mla_run, repeat=20)
    print(f"{n.size:,} contexts × {len(core.MODELS)} models")
    print(f"{'numpy baseline':>22}: {base}")
    for name, t in sweeps.items():
        print(f"{name:>22}: {t}   ratio {t.median / base.median:.1f}×")
    print(f"{'MLA default run':>22}: {run}")
    verdict(f"≤ {GOAL_MS:g} ms per sweep of {n.size:,} contexts × {len(core.MODELS)} models, "
            f"≤ {MLA_GOAL_MS:g} ms per MLA run",
            [f"{name}: {t.median:.1f} ms" for name, t in sweeps.items() if t.median > GOAL_MS]
            + ([f"MLA run: {run.median:.1f} ms"] if run.median > MLA_GOAL_MS else []), args.check)
