"""The largest figure a link can ask for: every knob of every figure at each end of its range
(and its hostile values: huge, negative, inf, nan, text), read through the registry and built.

Goal: every build ≤ 1 s (median of 3) and ≤ 64 MB at its peak (tracemalloc, a separate
pass: tracing slows Python down). The baseline in the same run is the same figure at its
defaults, so a ratio far above 1 marks a knob whose range is too wide.
Run: python -m benchmarks.bench_links [--check]
"""

import argparse
import tracemalloc

from benchmarks.timing import measure, verdict
from figures import NATIVE, SPECS, Incompatible

GOAL_MS, GOAL_MB = 1000.0, 64.0
HOSTILE = ("-1", "0", str(2**63), "inf", "-inf", "nan", "1e400", "text")


def link_values(spec) -> list[tuple[str, dict]]:
    """(what, values) for each knob's ends and hostile values, as the registry reads them."""
    out = {}
    for knob in spec.knobs:
        for leaf in knob.parts or (knob,):
            ends = [str(leaf.lo), str(leaf.hi)] if leaf.kind in ("int", "float") else []
            for raw in (*ends, *HOSTILE):
                values, _ = spec.read({leaf.key: raw})
                out.setdefault(repr(sorted(values.items())), (f"{leaf.key}={raw}", values))
    return list(out.values())


def peak_mb(build) -> float:
    tracemalloc.start()
    build()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return peak


def safe(spec, values):
    """A build of these values; values that do not combine raise Incompatible, and a link then
    shows the defaults with a note (that path is the defaults' cost)."""
    def build():
        try:
            spec.build(values, NATIVE)
        except Incompatible:
            pass
    return build


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()

    misses, worst_ms, worst_mb = [], (0.0, ""), (0.0, "")
    for fid, spec in SPECS.items():
        base = measure(spec, repeat=3)
        for what, values in link_values(spec):
            t = measure(safe(spec, values), repeat=3, warmup=0)
            mb = peak_mb(safe(spec, values))
            worst_ms = max(worst_ms, (t.median, f"{fid} {what} ({t.median / base.median:.1f}× its defaults)"))
            worst_mb = max(worst_mb, (mb, f"{fid} {what}"))
            if t.median > GOAL_MS or mb > GOAL_MB:
                misses.append(f"{fid} {what}: {t.median:.0f} ms, {mb:.1f} MB")
    print(f"slowest link build:   {worst_ms[0]:7.1f} ms  {worst_ms[1]}")
    print(f"most memory at peak:  {worst_mb[0]:7.1f} MB  {worst_mb[1]}")
    verdict(f"every link build ≤ {GOAL_MS:g} ms and ≤ {GOAL_MB:g} MB", misses, args.check)
