"""The floor for an Overview step: the baseline's sidebar slider and A1 alone, shown as the app
shows it (ui.chart: the plot component and its download popover, in a fragment the slider's
callback reruns). No other element. See bench_slider.py, which reports it beside the Overview.
Run: streamlit run benchmarks/floor_a1.py

benchmarks/static links to the app's static folder: Streamlit serves static files from beside
the main script, and the chart component loads plotly.js from there.
"""

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # streamlit puts benchmarks/ first

import ui  # noqa: E402
from figures import CONTEXT  # noqa: E402


@st.fragment(key="a1")
def a1() -> None:
    ui.chart("A1", context=st.session_state.ctx)


with st.sidebar:
    st.select_slider("Context", CONTEXT.stops, value=CONTEXT.default, key="ctx", bind="query-params",
                     on_change=lambda: st.rerun("a1"))
a1()
