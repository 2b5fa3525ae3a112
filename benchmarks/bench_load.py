"""How long each page takes to load in a fresh browser tab (server warm), against the
one-chart baseline page.

Goal: every page ≤ 2× the baseline. A sample runs from navigation start to the moment the
script is done and every chart in the first viewport is drawn (charts further down draw as
they come near it, so first paint does not pay for them). Pages are loaded in turn, each in a
new tab of one browser (its HTTP cache warm, as a returning reader's), median of `--reps`.

    python -m benchmarks.bench_load [--reps 5] [--check]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from contextlib import ExitStack
from pathlib import Path

from playwright.sync_api import sync_playwright

import browser_harness as bh
from benchmarks.timing import Timing, verdict

PAGES = bh.PAGES
RATIO = 2.0
# done: script finished, nothing still loading, and every chart that overlaps the viewport drawn
_DRAWN_JS = f"""() => {{
  if (!document.querySelector('{bh.APP_READY}') || document.querySelector('{bh.SKELETON}')) return false;
  const charts = [...document.querySelectorAll('{bh.PLOTLY_CHART}')];
  const seen = charts.filter(c => {{ const r = c.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight && r.height > 0; }});
  return (charts.length === 0 || seen.length > 0) && seen.every(c => c.matches(`{bh.DRAWN}`));
}}"""


def load(context, url: str) -> float:
    """ms from navigation start to the first viewport drawn, in a new tab."""
    page = context.new_page()
    page.goto(url, wait_until="commit")
    page.wait_for_function(_DRAWN_JS, timeout=60_000)
    ms = page.evaluate("performance.now()")
    bh.assert_ready_without_exception(page)
    page.close()
    return ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="loads per page (default 5)")
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()

    logs = Path(tempfile.mkdtemp(prefix="bench_load-"))
    samples: dict[str, list[float]] = {}
    with sync_playwright() as pw, ExitStack() as servers:
        browser = bh.launch_chromium(pw)
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR")
        app = servers.enter_context(bh.streamlit_server(bh.REPO_ROOT / "app.py", logs / "app.log"))
        base = servers.enter_context(bh.streamlit_server(bh.REPO_ROOT / "benchmarks" / "baseline_page.py",
                                                         logs / "baseline.log"))
        urls = {"baseline": f"{base}/", **{f"/{p}": f"{app}/{p}" for p in PAGES}}
        for url in urls.values():  # warm the server: first runs import and fill caches
            load(context, url)
        for _ in range(args.reps):
            for name, url in urls.items():
                samples.setdefault(name, []).append(load(context, url))
        browser.close()

    timings = {n: Timing(statistics.median(v), min(v), len(v)) for n, v in samples.items()}
    misses = []
    for name, timing in timings.items():
        ratio = timing.median / timings["baseline"].median
        print(f"{name:>12}: {timing}   ratio {ratio:4.2f}×")
        if ratio > RATIO:
            misses.append(f"{name}: {ratio:.2f}×")
    print(f"(server logs: {logs})")
    verdict(f"every page ≤ {RATIO:g}× the one-chart page to its first viewport drawn", misses, args.check)


if __name__ == "__main__":
    main()
