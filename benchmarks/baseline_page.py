"""Minimal one-chart page: the floor for a context-slider rerun (see bench_slider.py).

Same widget as the app's sidebar (select_slider, key "ctx", bound to the URL) and one
small plotly bar chart that depends on it. Run: streamlit run benchmarks/baseline_page.py
"""

import plotly.graph_objects as go
import streamlit as st

CONTEXTS = [1_000, 1_500, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000,
            128_000, 256_000, 512_000, 1_000_000, 1_500_000, 2_000_000]  # fmt: skip


def short(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n / 1e3:g}K"


with st.sidebar:
    ctx = st.select_slider("Context", CONTEXTS, value=128_000, format_func=short, key="ctx", bind="query-params")

fig = go.Figure(go.Bar(x=["a", "b", "c"], y=[3 * ctx, 2 * ctx, ctx]))
fig.update_layout(height=300, margin=dict(l=40, r=10, t=10, b=30))
st.plotly_chart(fig, theme=None)
