"""The static site against the app, in one run: its build, its pages' weight over the wire, the
first screen drawn and a context step on the Overview.

Goals (issue 21): the heaviest page, gzip, plotly.js included, ≤ 2 MB; the site's first screen and
its context step (A1 and the numbers redrawn) each ≤ 0.5 × the app's, medians of the same run.
Issue 25: on an iPhone 13 the header and the controls take ≤ 25 % of the first screen. The build
time includes the link-preview pictures (one warm kaleido, beside the language processes).
Builds the site with `python -m publish site` (timed), serves it on loopback beside `streamlit run
app.py`, and in one headless Chromium (1400 × 1000) loads each Overview in a new tab and steps
each context slider with the arrow keys, the two in turn (a busy moment of this shared machine
slows both). A load runs from navigation to every chart in the viewport drawn; a step from the key
press to the last change inside the charts (the app's script done), after a quiet spell that is
not counted.

    python -m benchmarks.bench_site [--reps 10] [--check] [--out site/]
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from playwright.sync_api import sync_playwright

import browser_harness as bh
from benchmarks.bench_load import load as app_load
from benchmarks.bench_slider import open_page as open_app
from benchmarks.bench_slider import step as app_step
from benchmarks.timing import Timing, verdict

RATIO, HEAVIEST_MB, PHONE_TOP = 0.5, 2.0, 0.25
SHARED = ("plotly.min.js", "site.js", "site.css")  # every page loads them
# every chart that overlaps the viewport drawn
_VIEW_DRAWN_JS = f"""() => {{
  const seen = [...document.querySelectorAll('figure.chart > .plot')].filter(c => {{
    const r = c.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; }});
  return seen.length > 0 && seen.every(c => c.matches('{bh.DRAWN}'));
}}"""
_SETTLED_JS = f"""([since, quiet]) => window.__chartsChangedAt > since
  && performance.now() - window.__chartsChangedAt > quiet && ({_VIEW_DRAWN_JS})()"""


def gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


def weights(out: Path) -> dict[str, int]:
    """Each page's bytes over the wire, gzip: its HTML and what every page shares."""
    shared = sum(gz(out / name) for name in SHARED)
    return {str(p.relative_to(out)): gz(p) + shared for p in sorted(out.glob("*/*.html")) if p.name != "index.html"}


def phone_top(browser, device: dict, url: str) -> tuple[float, float]:
    """On a phone, how far down the header and the controls reach, and the first screen's height (px)."""
    context = browser.new_context(**device)
    page = context.new_page()
    page.goto(url)
    bottom = page.evaluate("document.querySelector('form.controls').getBoundingClientRect().bottom")
    context.close()
    return bottom, device["viewport"]["height"]


def site_load(context, url: str) -> float:
    page = context.new_page()
    page.goto(url, wait_until="commit")
    page.wait_for_function(_VIEW_DRAWN_JS, timeout=60_000)
    ms = page.evaluate("performance.now()")
    page.close()
    return ms


def open_site(browser, url: str):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR").new_page()
    page.goto(url)
    page.wait_for_function(_VIEW_DRAWN_JS, timeout=60_000)
    bh.watch_charts(page)
    return page, page.locator("#context"), itertools.cycle(["ArrowLeft", "ArrowRight"])


def site_step(page, thumb, keys) -> float:
    thumb.focus()
    since = bh.page_clock(page)
    thumb.press(next(keys))
    page.wait_for_function(_SETTLED_JS, arg=[since, 150], timeout=60_000)
    return page.evaluate("window.__chartsChangedAt") - since


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10, help="measured loads and steps each (default 10)")
    parser.add_argument("--warmup", type=int, default=2, help="unmeasured ones first (default 2)")
    parser.add_argument("--out", type=Path, help="build the site here (default: a temporary folder)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args()

    out = args.out or Path(tempfile.mkdtemp(prefix="bench_site-"))
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "publish", "site", "--out", str(out)], cwd=bh.REPO_ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    print(f"build: {time.perf_counter() - t0:.1f} s → {out}")
    pages = weights(out)
    heaviest = max(pages, key=pages.get)
    for name, size in pages.items():
        print(f"{name:>24}: {size / 1e6:.2f} MB gzip with {', '.join(SHARED)}")

    samples: dict[str, list[float]] = {k: [] for k in ("site load", "app load", "site step", "app step")}
    with sync_playwright() as pw, ExitStack() as servers:
        browser = bh.launch_chromium(pw)
        site = servers.enter_context(bh.static_server(out, out.parent / f"{out.name}-http.log")) + "/ko/overview.html"
        app = servers.enter_context(bh.streamlit_server(bh.REPO_ROOT / "app.py", out.parent / f"{out.name}-app.log"))
        top, screen = phone_top(browser, pw.devices["iPhone 13"], site)
        print(f"iPhone 13: header and controls {top:.0f} px of {screen} ({top / screen:.0%})")
        tabs = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR")
        stepping = {"site": (site_step, open_site(browser, site)), "app": (app_step, open_app(browser, app))}
        for i in range(args.warmup + args.reps):
            for name, loaded in (("site", site_load(tabs, site)), ("app", app_load(tabs, app))):
                step, opened = stepping[name]
                ms = step(*opened)
                if i >= args.warmup:
                    samples[f"{name} load"].append(loaded)
                    samples[f"{name} step"].append(ms)
        browser.close()

    timings = {k: Timing(statistics.median(v), min(v), len(v)) for k, v in samples.items()}
    for k, timing in timings.items():
        print(f"{k:>10}: {timing}")
    misses = [] if pages[heaviest] <= HEAVIEST_MB * 1e6 else [f"{heaviest}: {pages[heaviest] / 1e6:.2f} MB"]
    misses += [f"phone: header and controls {top:.0f} px"] if top > PHONE_TOP * screen else []
    for what in ("load", "step"):
        ratio = timings[f"site {what}"].median / timings[f"app {what}"].median
        print(f"ratio site / app, {what}: {ratio:.2f}")
        misses += [f"{what}: ratio {ratio:.2f}"] if ratio > RATIO else []
    verdict(f"heaviest page ≤ {HEAVIEST_MB:g} MB; site / app ≤ {RATIO:g} per load and per step; a phone's header "
            f"and controls ≤ {PHONE_TOP:.0%} of its first screen", misses, args.check)


if __name__ == "__main__":
    main()
