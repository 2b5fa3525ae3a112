"""Global KV (growth per token × N) against the fixed local KV, and where they meet.

The article approximates global KV linearly (≈900 tokens for V4-Flash, ≈3,038 for
V4.1-Flash); the local KV is drawn as it really is, min(window, N) positions per layer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from core import DEPLOYED, Precision, crossover, crossover_tokens, get, local_kv, storage_per_token
from core.cost import fitted
from core.units import fmt_bytes
from i18n import t

from ..canvas import NATIVE, Canvas
from ..style import MUTED, ROLE_COLOURS, heading

DASHES = ("solid", "dash", "dot", "dashdot")


def build_crossover(
    *,
    models: Sequence[str] = ("v4-flash", "v4.1-flash"),
    precision: Precision = DEPLOYED,
    context: int | None = 131072,
    lang: str = "ko",
    units: str = "decimal",
    canvas: Canvas = NATIVE,
) -> go.Figure:
    """Log-log lines per model; a marker and label where global KV equals local KV."""
    models = [m for m in models if local_kv(m, fitted(m, precision))]
    if not models:
        raise ValueError("none of these models keeps a local KV")
    top = max(1 << 21, context or 0)
    # both curves are straight on log-log axes between these points: growth × N is linear,
    # local KV is linear up to the window and flat after it
    n = np.array(sorted({16, *(get(m).window for m in models), top}), dtype=np.int64)
    hover = "N=%{x:,}<br>%{y:,.0f} B<extra>%{fullData.name}</extra>"
    traces, notes, shapes = [], [], []
    for i, mid in enumerate(models):
        name, dash, p = get(mid).name, DASHES[i % len(DASHES)], fitted(mid, precision)
        growth = storage_per_token(mid, p).total
        full, meet = local_kv(mid, p), crossover(mid, p)
        lines = (("main_kv", growth * n, "x.global"), ("local_kv", local_kv(mid, p, n), "x.local"))
        for role, y, label in lines:
            traces.append(dict(type="scatter", x=n, y=y, mode="lines", name=t(label, lang, m=name),
                               line=dict(color=ROLE_COLOURS[role], dash=dash, width=2.5), hovertemplate=hover))
        traces.append(dict(
            type="scatter", x=[meet], y=[full], mode="markers+text", showlegend=False,
            marker=dict(size=11, color="black", symbol="circle-open", line=dict(width=2)),
            text=[f"{name}{'<br>' if canvas.narrow else ' '}{t('x.meet', lang, n=f'{crossover_tokens(mid, p):,}')}"],
            # on a phone's column to the right (left of the point are the axis's labels)
            textposition=("top right", "bottom right")[i % 2] if canvas.narrow else ("top left", "bottom right")[i % 2],
            hovertemplate=f"{name}: N≈{meet:,.1f}<br>{fmt_bytes(full, units)}<extra></extra>"))
    if context:
        shapes.append(dict(type="line", x0=context, x1=context, y0=0, y1=1, yref="paper",
                           line=dict(color=MUTED, dash="dot", width=1)))
        # annotation x on a log axis is in log10 units
        notes.append(dict(x=math.log10(context), y=1, yref="paper", yanchor="bottom", showarrow=False,
                          text=f"{t('x.now', lang)} = {context:,}", font=dict(color=MUTED, size=11)))
    layout = dict(
        template="kv_atlas", title=heading(t("x.title", lang)), height=460,
        margin=dict(l=10, r=20, t=70, b=10), annotations=notes, shapes=shapes,
        xaxis=dict(type="log", title=dict(text=t("x.axis.x", lang)), exponentformat="SI"),
        yaxis=dict(type="log", title=dict(text=t("x.axis.y", lang)), exponentformat="SI"),
        legend=dict(orientation="v", x=0.01, y=0.99, bgcolor="rgba(255,255,255,0.8)"),
    )
    if canvas.narrow:  # a phone's column: the legend under the chart, not over half of it
        layout.update(legend=dict(orientation="h", x=0, y=-0.24, yanchor="top"), height=560,
                      margin=dict(l=10, r=10, t=70, b=10))
    return go.Figure(data=traces, layout=layout)
