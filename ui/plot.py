"""A plotly chart that updates in place.

Streamlit's chart element makes the figure part of the element's identity, so a new figure
(one slider step) re-creates the plot from scratch: for A1 that cost tens of ms more than
updating it (benchmarks/RESULTS.md). This small component (`plot.js`) keeps one plot per
key and applies a new figure with `Plotly.react`, skips an unchanged one, and draws a chart
below the fold only when it comes near the viewport. It loads plotly.js from Streamlit's static
file serving (.streamlit/config.toml): the partial bundle when fetched, else the plotly package's
(publish/plotly_js.py).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from publish import bundle

PLOTLY_URL = f"app/static/{bundle().name}"  # relative: works under any base URL path
COMPONENT = "kv_atlas.plot"

_mount = st.components.v2.component(COMPONENT, js=(Path(__file__).with_name("plot.js")).read_text(),
                                    isolate_styles=False)


def plot(spec: str, *, key: str, config: dict, width: str = "stretch", label: str = "", description: str = "") -> None:
    """Show a figure's JSON (`plotly.io.to_json`) under a stable key, named `label` for assistive
    technology and described by `description` (its text alternative). A link whose # names the
    figure (the key's part after its first '-': chart-A5, play-A5) scrolls to it."""
    _mount(key=key, data={"spec": spec, "config": config, "src": PLOTLY_URL, "label": label,
                          "description": description, "anchor": key.partition("-")[2]},  # chart-A5 → A5
           width=width, height="content")
