"""How long a context-slider step takes to redraw: the Overview page against a one-chart baseline.

Goal: Overview / baseline median ratio ≤ 1.2. Starts `streamlit run` on app.py and on
benchmarks/baseline_page.py and, in one headless Chromium, presses ArrowLeft/ArrowRight on the
sidebar's context slider; a sample is the time from the key press until the script state is
back to notRunning and a chart has changed since the press (one MutationObserver per page,
so measuring does not slow the page). The ratio cancels the machine's noise.

    python -m benchmarks.bench_slider [--reps 10] [--check]
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

import browser_harness as bh
from benchmarks.timing import Timing, measure, verdict

PAGES = {"overview": bh.REPO_ROOT / "app.py", "baseline": bh.REPO_ROOT / "benchmarks" / "baseline_page.py"}
RATIO = 1.2


def time_steps(page, url: str, reps: int, warmup: int) -> Timing:
    """Slider steps, alternating left/right so the value stays in range."""
    page.goto(url)
    bh.assert_ready_without_exception(page)
    bh.watch_charts(page)
    thumb = bh.context_slider(page).get_by_role("slider")
    keys = itertools.cycle(["ArrowLeft", "ArrowRight"])

    def press_from_now():
        thumb.focus()
        return bh.page_clock(page)

    def step(since):
        thumb.press(next(keys))
        bh.wait_charts_redrawn(page, since)

    timing = measure(step, repeat=reps, warmup=warmup, setup=press_from_now)
    bh.assert_ready_without_exception(page)
    return timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10, help="measured steps per page (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured steps first (default 2)")
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()

    results: dict[str, Timing] = {}
    logs = Path(tempfile.mkdtemp(prefix="bench_slider-"))
    with sync_playwright() as pw:
        browser = bh.launch_chromium(pw)
        for name, script in PAGES.items():
            with bh.streamlit_server(script, logs / f"{name}.log") as url:
                context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR")
                results[name] = time_steps(context.new_page(), f"{url}/", args.reps, args.warmup)
                context.close()
        browser.close()

    for name, timing in results.items():
        print(f"{name:>9}: {timing}")
    ratio = results["overview"].median / results["baseline"].median
    print(f"ratio overview/baseline: {ratio:.2f}   (server logs: {logs})")
    verdict(f"overview/baseline ≤ {RATIO:g}", [f"ratio {ratio:.2f}"] if ratio > RATIO else [], args.check)


if __name__ == "__main__":
    main()
