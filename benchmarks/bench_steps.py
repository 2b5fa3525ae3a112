"""An animation's steps laid out alike for a phone's column, against the same steps each laid out
for it alone, in the same run.

Laying steps out alike chooses one text size and packing for all of them (figures.matrix.fit) and
draws each once: it costs the choice, not a second build of every step (which the renderer paid
while it gathered the steps through a context variable). Goal: alike ≤ 1.5× the steps alone.
Run: python -m benchmarks.bench_steps [--check]
"""

import argparse

from benchmarks.timing import measure, verdict
from figures import PLAYS, Canvas, steps

RATIO = 1.5
PHONE = Canvas(column=360)


def alone(spec, values) -> list:
    return [spec.build(v, PHONE).figure for v in values]


def alike(spec, values) -> list:
    return [b.figure for b in spec.build_alike(values, PHONE)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    misses = []
    for fid, spec in PLAYS.items():
        values = [{**spec.defaults, "lang": "en", spec.play.knob: v} for v in steps(spec)]
        one = measure(lambda spec=spec, values=values: alone(spec, values), repeat=args.repeat)
        all_ = measure(lambda spec=spec, values=values: alike(spec, values), repeat=args.repeat)
        ratio = all_.median / one.median
        print(f"{fid:>4} ({len(values)} steps)  alone: {one}\n{'':>15}alike: {all_}   ratio {ratio:.2f}×")
        if ratio > RATIO:
            misses.append(f"{fid}: {ratio:.2f}×")
    verdict(f"steps alike ≤ {RATIO:g}× the steps alone", misses, args.check)
