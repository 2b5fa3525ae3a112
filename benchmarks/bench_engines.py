"""The planner with the engines and the three ways of spreading a node, against the theory's planner.

The capacity chart now plans every model three times (TP, DP attention, PP) to say on each bar when another
way changes its count more than 2×. Goal: the chart with an engine ≤ 150 ms (median), like every figure.
Baselines in the same run: one theory plan of one model, and the chart with the theory.
Run: python -m benchmarks.bench_engines [--check]
"""

import argparse

from benchmarks.timing import measure, verdict
from core import ENGINES, Parallel, allocation, plan
from figures import EXTRAS, NATIVE

GOAL_MS = 150.0
MODELS = ("v3.2", "v4-flash", "gpt-oss-120b", "qwen3-next-80b-a3b", "nemotron-h-56b", "gemma-3n-e2b")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()

    one = measure(lambda: plan("v3.2", 131_072, "h200", 671 * 10**9, parallel=Parallel(tp=8)), repeat=50)
    print(f"{'one theory plan':>28}: {one}")
    for engine in ENGINES[1:]:
        t = measure(lambda e=engine: [allocation(m, 131_072, engine=e) for m in MODELS], repeat=20)
        print(f"{engine + ' allocation ×6 models':>28}: {t}   ratio {t.median / one.median:5.1f}×")
    capacity = EXTRAS["capacity"]
    base = measure(lambda: capacity.build({**capacity.defaults, "engine": "theory"}, NATIVE))
    print(f"{'chart, theory':>28}: {base}")
    misses = []
    for engine in ENGINES[1:]:
        t = measure(lambda e=engine: capacity.build({**capacity.defaults, "engine": e}, NATIVE))
        print(f"{'chart, ' + engine:>28}: {t}   ratio {t.median / base.median:5.1f}×")
        if t.median > GOAL_MS:
            misses.append(f"{engine}: {t.median:.1f} ms")
    verdict(f"the capacity chart with an engine ≤ {GOAL_MS:g} ms", misses, args.check)
