"""Build time of every registered figure with its defaults (goal: mechanism figures ≤ 150 ms).

The baseline in the same run is a one-bar plotly figure, so the ratio is independent of
how busy the machine is. Run: python benchmarks/bench_figures.py
"""

import pathlib
import statistics
import sys
import time

import plotly.graph_objects as go

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from figures import EXTRAS, FIGURES  # noqa: E402


def median_ms(build, repeat=10) -> float:
    build()  # warm
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        build()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


if __name__ == "__main__":
    base = median_ms(lambda: go.Figure(go.Bar(x=[1], y=["a"], orientation="h")))
    print(f"baseline one-bar figure: {base:.1f} ms")
    for fid, build in {**FIGURES, **EXTRAS}.items():
        ms = median_ms(build)
        print(f"{fid:>10}: {ms:6.1f} ms  ({ms / base:4.1f}× baseline)")
