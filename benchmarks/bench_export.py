"""All figures to SVG: one warm kaleido server (publish.export) against the naive way, where
every `fig.to_image` starts its own browser, measured in the same run.

Goal: the warm server is ≥ 8× faster. Run: python -m benchmarks.bench_export [--check]
"""

import argparse

from benchmarks.timing import measure, verdict
from figures import FIGURES, NATIVE
from publish import image

SPEED_UP = 8.0

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()

    figs = [FIGURES[f].build({"lang": "en"}, NATIVE).figure for f in FIGURES]
    # naive first: with no server running, each image launches a browser (one pass is long enough)
    naive = measure(lambda: [fig.to_image(format="svg") for fig in figs], repeat=1, warmup=0)
    warm = measure(lambda: [image(fig, "svg") for fig in figs], repeat=3)  # the warm-up pass starts the server
    speed_up = naive.median / warm.median
    print(f"{len(figs)} SVGs per pass")
    print(f"{'naive':>12}: {naive}")
    print(f"{'warm server':>12}: {warm}   speed-up {speed_up:.1f}×")
    verdict(f"warm server ≥ {SPEED_UP:g}× faster than naive",
            [f"speed-up {speed_up:.1f}×"] if speed_up < SPEED_UP else [], args.check)
