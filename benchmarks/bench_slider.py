"""How long a context-slider step takes to redraw: the Overview page against a one-chart baseline.

Goal: Overview / baseline median ratio ≤ 1.2. Starts `streamlit run` on app.py, on
benchmarks/baseline_page.py and on benchmarks/floor_a1.py (A1 alone, as the app shows it: the
floor for an Overview step, reported, not a goal) and, in one headless Chromium, presses
ArrowLeft/ArrowRight on each page's context slider, the pages in turn (interleaved, so a busy
moment of this shared machine slows them all). A sample runs from the key press to the last change inside the page's
charts once the script is done (one MutationObserver per page stamps each change; the wait
ends after a quiet spell, which is not counted).

    python -m benchmarks.bench_slider [--reps 20] [--check] [--no-floor] [--pages app.py other.py] [--path /v4-flash]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
from contextlib import ExitStack
from pathlib import Path

from playwright.sync_api import sync_playwright

import browser_harness as bh
from benchmarks.timing import Timing, verdict

BASELINE = "benchmarks/baseline_page.py"
FLOOR = "benchmarks/floor_a1.py"  # A1 alone: reported beside the pages, not a goal
RATIO = 1.2


def open_page(browser, url: str):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR").new_page()
    page.goto(url)
    bh.assert_ready_without_exception(page)
    bh.watch_charts(page)
    return page, bh.context_slider(page).get_by_role("slider"), itertools.cycle(["ArrowLeft", "ArrowRight"])


def step(page, thumb, keys) -> float:
    """One slider step: ms from the key press to the last chart change (page clock)."""
    thumb.focus()
    page.wait_for_timeout(100)
    since = bh.page_clock(page)
    thumb.press(next(keys))
    return bh.wait_charts_settled(page, since) - since


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="+", default=["app.py"], help="pages to compare with the baseline")
    parser.add_argument("--reps", type=int, default=20, help="measured steps per page (default 20)")
    parser.add_argument("--warmup", type=int, default=3, help="unmeasured steps first (default 3)")
    parser.add_argument("--path", default="/", help="the URL path opened on the pages compared (default /)")
    parser.add_argument("--no-floor", action="store_true", help="leave out the A1-alone floor page")
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()

    scripts = [BASELINE, *([] if args.no_floor else [FLOOR]), *args.pages]
    logs = Path(tempfile.mkdtemp(prefix="bench_slider-"))
    samples: dict[str, list[float]] = {s: [] for s in scripts}
    with sync_playwright() as pw, ExitStack() as servers:
        browser = bh.launch_chromium(pw)
        urls = {s: servers.enter_context(bh.streamlit_server(bh.REPO_ROOT / s, logs / f"{Path(s).stem}.log"))
                + (args.path if s in args.pages else "/") for s in scripts}
        pages = {s: open_page(browser, url) for s, url in urls.items()}
        for i in range(args.warmup + args.reps):
            for s, (page, thumb, keys) in pages.items():
                ms = step(page, thumb, keys)
                if i >= args.warmup:
                    samples[s].append(ms)
        for page, *_ in pages.values():
            bh.assert_ready_without_exception(page)
        browser.close()

    timings = {s: Timing(statistics.median(v), min(v), len(v)) for s, v in samples.items()}
    for s, timing in timings.items():
        print(f"{s:>28}: {timing}")
    misses = []
    for s in scripts[1:]:
        ratio = timings[s].median / timings[BASELINE].median
        print(f"ratio {s} / baseline: {ratio:.2f}")
        if s in args.pages and ratio > RATIO:
            misses.append(f"{s}: ratio {ratio:.2f}")
    print(f"(server logs: {logs})")
    verdict(f"page / baseline ≤ {RATIO:g} per slider step", misses, args.check)


if __name__ == "__main__":
    main()
