"""A plotly chart that updates in place.

Streamlit's chart element makes the figure part of the element's identity, so a new figure
(one slider step) re-creates the plot from scratch: for A1 that cost tens of ms more than
updating it (benchmarks/RESULTS.md). This small component (`plot.js`) keeps one plot per
key and applies a new figure with `Plotly.react`, skips an unchanged one, and draws a chart
below the fold only when it comes near the viewport. It loads the plotly.js that ships with
the plotly package, served by Streamlit's static file serving (.streamlit/config.toml).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import plotly
import streamlit as st
from plotly.offline import get_plotlyjs

ROOT = Path(__file__).resolve().parent.parent
# versioned, so a browser never runs an older plotly.js from its cache against a newer figure
PLOTLY_JS = ROOT / "static" / f"plotly-{plotly.__version__}.min.js"
PLOTLY_URL = f"app/static/{PLOTLY_JS.name}"  # relative: works under any base URL path
COMPONENT = "kv_atlas.plot"


def _ensure_plotly_js() -> None:
    if not PLOTLY_JS.exists():
        PLOTLY_JS.parent.mkdir(exist_ok=True)
        # a name of its own: processes sharing the app directory start together
        fd, partial = tempfile.mkstemp(dir=PLOTLY_JS.parent, suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(get_plotlyjs())
        os.chmod(partial, 0o644)
        os.replace(partial, PLOTLY_JS)  # atomic: a concurrent request never sees half a file


_ensure_plotly_js()
_mount = st.components.v2.component(COMPONENT, js=(Path(__file__).with_name("plot.js")).read_text(),
                                    isolate_styles=False)


def plot(spec: str, *, key: str, config: dict, width: str = "stretch") -> None:
    """Show a figure's JSON (`plotly.io.to_json`) under a stable key."""
    _mount(key=key, data={"spec": spec, "config": config, "src": PLOTLY_URL}, width=width, height="content")
