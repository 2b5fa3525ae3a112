"""One timer and one verdict for every benchmark.

The machine is shared and noisy, so each benchmark times a baseline in the same run with the
same timer and reports ratios; the median says how long a step takes, the min how fast it can be.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    median: float  # ms
    min: float  # ms
    n: int

    def __str__(self) -> str:
        return f"median {self.median:7.1f} ms   min {self.min:7.1f} ms   n={self.n}"


def measure(fn: Callable, *, repeat: int = 10, warmup: int = 1, setup: Callable | None = None) -> Timing:
    """Time `fn()` `repeat` times after `warmup` unmeasured calls. With `setup`, each call is
    `fn(setup())` and only `fn` is timed (e.g. building an AppTest, reading the page's clock)."""
    times = []
    for i in range(warmup + repeat):
        arg = setup() if setup else None
        t0 = time.perf_counter()
        if setup:
            fn(arg)
        else:
            fn()
        if i >= warmup:
            times.append((time.perf_counter() - t0) * 1e3)
    return Timing(statistics.median(times), min(times), len(times))


def verdict(goal: str, misses: list[str], check: bool) -> None:
    """Print the goal and each miss; under --check a miss exits with status 1."""
    print(f"goal: {goal} — {'met' if not misses else 'MISSED'}")
    for miss in misses:
        print(f"  missed: {miss}")
    if check and misses:
        sys.exit(1)
