"""Build time of every registered figure with its defaults, natively (its data drawn by the layout pass).

Goal: every figure ≤ 150 ms (median). The baseline in the same run is a one-bar plotly
figure, so the ratio is independent of how busy the machine is.
Run: python -m benchmarks.bench_figures [--check]
"""

import argparse

import plotly.graph_objects as go

from benchmarks.timing import measure, verdict
from figures import EXTRAS, FIGURES, NATIVE

GOAL_MS = 150.0

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()

    base = measure(lambda: go.Figure(go.Bar(x=[1], y=["a"], orientation="h")))
    print(f"{'one-bar baseline':>16}: {base}")
    misses = []
    for fid, spec in {**FIGURES, **EXTRAS}.items():
        t = measure(lambda spec=spec: spec.build({}, NATIVE))
        print(f"{fid:>16}: {t}   ratio {t.median / base.median:5.1f}×")
        if t.median > GOAL_MS:
            misses.append(f"{fid}: {t.median:.1f} ms")
    verdict(f"every figure ≤ {GOAL_MS:g} ms", misses, args.check)
