"""All 31 figures to SVG: one warm kaleido server (figures.export) vs the naive way, where
every `fig.to_image` starts its own browser. Goal: ≥ 8× faster. Same process, same run.
Run: python benchmarks/bench_export.py
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
from figures import FIGURES  # noqa: E402
from figures.export import image  # noqa: E402

if __name__ == "__main__":
    figs = [FIGURES[f](lang="en") for f in FIGURES]
    t0 = time.perf_counter()
    for fig in figs:
        fig.to_image(format="svg")  # no server running: a browser per image
    naive = time.perf_counter() - t0
    t0 = time.perf_counter()
    for fig in figs:
        image(fig, "svg")
    warm = time.perf_counter() - t0
    print(f"{len(figs)} SVGs: naive {naive:.1f} s, warm server {warm:.1f} s → {naive / warm:.1f}× faster")
