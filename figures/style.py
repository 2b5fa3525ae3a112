"""One look for screen and export: role colours, the shared template, modebar config."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

# Colours by role, as the article uses them.
ROLE_COLOURS = {
    "main_kv": "#2f6fd1",  # blue: KV read by attention
    "index_key": "#d63b3b",  # red: indexer (retrieval) key
    "local_kv": "#e8890c",  # orange: local KV (SWA, recent positions)
    "weight": "#7b4bb7",  # purple: learned weight
}
MUTED = "#6b7280"
FONT = "Noto Sans CJK KR, Noto Sans KR, Apple SD Gothic Neo, Malgun Gothic, Arial, sans-serif"

TEMPLATE = go.layout.Template(pio.templates["plotly_white"])
TEMPLATE.layout.font = dict(family=FONT, size=13, color="#1f2937")
TEMPLATE.layout.title = dict(x=0.0, xanchor="left", font=dict(size=17))
TEMPLATE.layout.paper_bgcolor = "white"
TEMPLATE.layout.plot_bgcolor = "white"
TEMPLATE.layout.hoverlabel = dict(font=dict(family=FONT))
pio.templates["kv_atlas"] = TEMPLATE


def plotly_config(figure_id: str) -> dict:
    """Modebar: download as SVG named after the figure; no plotly logo."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "svg", "filename": f"kv-atlas-{figure_id}", "scale": 1},
    }
