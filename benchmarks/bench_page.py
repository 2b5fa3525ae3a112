"""Page script time, warm, against a one-chart baseline page.

Goal: Overview ≤ 100 ms warm, and every page ≤ 2× the baseline. All run through Streamlit's
AppTest in this process, so the ratio cancels AppTest's own overhead and the machine's noise.
Run: python -m benchmarks.bench_page [--check]
"""

import argparse
import logging
from pathlib import Path

from streamlit.testing.v1 import AppTest

from benchmarks.timing import measure, verdict

ROOT = Path(__file__).resolve().parent.parent
OVERVIEW_MS, RATIO = 100.0, 2.0
BASELINE = '''
import plotly.graph_objects as go
import streamlit as st
n = st.sidebar.select_slider("ctx", [1024, 2048, 131072], value=131072, key="ctx")
st.plotly_chart(go.Figure(go.Bar(x=[n, n / 2], y=["a", "b"], orientation="h")), theme=None)
'''


def time_page(make):
    """Warm time of one script; each run gets a fresh AppTest, built outside the timer."""
    at = make()
    at.run()
    if at.exception:
        raise SystemExit(f"the page raised: {at.exception[0].message}")
    return measure(lambda fresh: fresh.run(), repeat=15, setup=make)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()
    # AppTest logs "missing ScriptRunContext" once per fresh AppTest; it says nothing about the pages.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").disabled = True

    base = time_page(lambda: AppTest.from_string(BASELINE, default_timeout=60))
    print(f"{'one-chart baseline':>20}: {base}")
    scripts = {"Overview (app.py)": ROOT / "app.py"}
    scripts |= {p.name: p for p in sorted((ROOT / "pages").glob("*.py")) if p.name != "overview.py"}
    misses = []
    for name, script in scripts.items():
        t = time_page(lambda s=script: AppTest.from_file(str(s), default_timeout=60))
        ratio = t.median / base.median
        print(f"{name:>20}: {t}   ratio {ratio:.2f}×")
        if ratio > RATIO:
            misses.append(f"{name}: {ratio:.2f}× the baseline")
        if script.name == "app.py" and t.median > OVERVIEW_MS:
            misses.append(f"{name}: {t.median:.1f} ms warm")
    verdict(f"Overview ≤ {OVERVIEW_MS:g} ms warm; every page ≤ {RATIO:g}× the baseline", misses, args.check)
