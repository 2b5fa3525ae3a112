"""How long a context-slider step takes to redraw: the Overview page against a one-chart baseline.

Not a test. Starts `streamlit run` on app.py and on benchmarks/baseline_page.py, and in one
headless Chromium presses ArrowLeft/ArrowRight on the sidebar's context slider; each sample is
the time from the key press until the script state is back to notRunning and the plotly SVG
has changed. Prints medians and the ratio Overview / baseline.

    .venv/bin/python benchmarks/bench_slider.py [--reps 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT / "tests" / "browser"))

import harness  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

PAGES = {"overview": REPO_ROOT / "app.py", "baseline": REPO_ROOT / "benchmarks" / "baseline_page.py"}


def measure(page, url: str, reps: int, warmup: int) -> list[float]:
    """Seconds per slider step, alternating left/right so the value stays in range."""
    page.goto(url)
    harness.wait_ready(page)
    thumb = harness.context_slider(page).get_by_role("slider")
    samples = []
    for i in range(warmup + reps):
        before = page.evaluate(harness.CHARTS_HASH_JS)
        thumb.focus()
        t0 = time.perf_counter()
        thumb.press("ArrowLeft" if i % 2 == 0 else "ArrowRight")
        page.wait_for_function(harness.REDRAWN_JS, arg=before, timeout=60_000)
        elapsed = time.perf_counter() - t0
        if i >= warmup:
            samples.append(elapsed)
    harness.wait_ready(page)  # also asserts that no exception is shown
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10, help="measured steps per page (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured steps first (default 2)")
    args = parser.parse_args()

    results: dict[str, list[float]] = {}
    logs = Path(tempfile.mkdtemp(prefix="bench_slider-"))
    with sync_playwright() as pw:
        browser = harness.launch_chromium(pw)
        for name, script in PAGES.items():
            with harness.streamlit_server(script, logs / f"{name}.log") as url:
                context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR")
                results[name] = measure(context.new_page(), f"{url}/", args.reps, args.warmup)
                context.close()
        browser.close()

    for name, samples in results.items():
        ms = sorted(s * 1000 for s in samples)
        print(f"{name:9s} median {statistics.median(ms):7.1f} ms   min {ms[0]:7.1f}   max {ms[-1]:7.1f}   n={len(ms)}")
    ratio = statistics.median(results["overview"]) / statistics.median(results["baseline"])
    print(f"ratio overview/baseline: {ratio:.2f}   (server logs: {logs})")


if __name__ == "__main__":
    main()
