"""Build time of every figure for a phone's column at each text size the app offers (issue 35: the
text size is part of the canvas, so a larger text is a layout of its own, not a rescale).

The baseline in the same run is each figure built for the same column at 1×; the ratio is what the
larger text costs. Run: python -m benchmarks.bench_text_size [--column 360]
"""

import argparse

from benchmarks.timing import measure
from figures import FONT_SCALE, SPECS, Canvas

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--column", type=int, default=360, help="the page column's width class, px")
    args = parser.parse_args()
    scales = FONT_SCALE.choices
    totals = dict.fromkeys(scales, 0.0)
    print(f"{'figure':>16}  " + "  ".join(f"{s:>5}×" for s in scales))
    for fid, spec in SPECS.items():
        times = [measure(lambda s=s, spec=spec: spec.build({}, Canvas(column=args.column, font_scale=s))).median
                 for s in scales]
        for s, ms in zip(scales, times):
            totals[s] += ms
        print(f"{fid:>16}  " + "  ".join(f"{ms:5.0f}ms" for ms in times) + f"   2× / 1×: {times[-1] / times[0]:.2f}")
    print(f"{'all figures':>16}  " + "  ".join(f"{totals[s]:5.0f}ms" for s in scales)
          + f"   2× / 1×: {totals[scales[-1]] / totals[scales[0]]:.2f}")
