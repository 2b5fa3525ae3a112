"""What readers see of every chart on every page, per device profile: charts wider than their
column, texts under 11 px on screen, texts over other texts, texts cut by a chart's edge (issue 20's
table). Every chart is scrolled into view and drawn (browser_harness.chart) and read with
browser_harness.measure.

    python -m benchmarks.bench_screens [--devices "iPhone 13" 1400] [--lang en] [--app-dir DIR]

--app-dir measures another checkout's app (e.g. a `git worktree` of an older commit) with this
harness, for a before/after in the same run.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

import browser_harness as bh
from figures import SCREEN_TEXT


def tally(page, url: str, lang: str) -> dict:
    out = dict(charts=0, wider=0, texts=0, small=0, overlaps=0, cut=0, bands=0, widest=0)
    for path in bh.PAGES:
        bh.assert_opens_without_exception(page, f"{url}/{path}?lang={lang}")
        for i in range(page.locator(bh.PLOTLY_CHART).count()):
            m = bh.measure(bh.chart(page, i))
            found = bh.chart_findings(m)
            out["charts"] += 1
            out["texts"] += len(m["sizes"])
            out["wider"] += found["wider"]
            for k in ("small", "overlaps", "cut", "bands"):
                out[k] += len(found[k])
            out["widest"] = max(out["widest"], *(b for b in m["bands"].values() if b is not None), 0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", nargs="+", default=["iPhone 13", "1400"],
                        help="Playwright device names, or a width in px (default: iPhone 13 and 1400)")
    parser.add_argument("--lang", default="en")
    parser.add_argument("--app-dir", type=Path, default=bh.REPO_ROOT)
    args = parser.parse_args()

    logs = Path(tempfile.mkdtemp(prefix="bench_screens-"))
    with sync_playwright() as pw, bh.streamlit_server(args.app_dir / "app.py", logs / "app.log",
                                                      cwd=args.app_dir) as url:
        browser = bh.launch_chromium(pw)
        for device in args.devices:
            profile = pw.devices[device] if device in pw.devices else {"viewport": {"width": int(device),
                                                                                      "height": 1000}}
            context = browser.new_context(**profile)
            t = tally(context.new_page(), url, args.lang)
            context.close()
            print(f"{device:>20} {args.lang}: {t['wider']} of {t['charts']} charts wider than their column; "
                  f"{t['small']} of {t['texts']} texts under {SCREEN_TEXT} px; {t['overlaps']} overlapping pairs; "
                  f"{t['cut']} cut; {t['bands']} empty bands over {bh.BAND_PX} px (widest {t['widest']:.0f} px)")
        browser.close()


if __name__ == "__main__":
    main()
