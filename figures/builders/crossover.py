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

from ..canvas import LINE, NATIVE, TITLE_FOOT, Canvas, title_top
from ..made import Chart, Incompatible
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, heading
from ..text import text_px, wrapped

DASHES = ("solid", "dash", "dot", "dashdot")


def build_crossover(
    *,
    models: Sequence[str] = ("v4-flash", "v4.1-flash"),
    precision: Precision = DEPLOYED,
    context: int | None = 131072,
    lang: str = "ko",
    units: str = "decimal",
    canvas: Canvas = NATIVE,
) -> Chart:
    """Log-log lines per model; a marker and label where global KV equals local KV."""
    models = [m for m in models if local_kv(m, fitted(m, precision))]
    if not models:
        raise Incompatible("none of these models keeps a local KV")
    top = max(1 << 21, context or 0)
    # both curves are straight on log-log axes between these points: growth × N is linear,
    # local KV is linear up to the window and flat after it
    n = np.array(sorted({16, *(get(m).window for m in models), top}), dtype=np.int64)
    hover = "N=%{x:,}<br>%{y:,.0f} B<extra>%{fullData.name}</extra>"
    traces, notes, shapes, records = [], [], [], []
    for i, mid in enumerate(models):
        name, dash, p = get(mid).name, DASHES[i % len(DASHES)], fitted(mid, precision)
        growth = storage_per_token(mid, p).total
        full, meet = local_kv(mid, p), crossover(mid, p)
        records.append({"model": get(mid).id, "global_kv_bytes_per_token": growth, "local_kv_bytes": full,
                        "crossover_tokens": crossover_tokens(mid, p), "crossover_exact": meet})
        lines = (("main_kv", growth * n, "x.global"), ("local_kv", local_kv(mid, p, n), "x.local"))
        for role, y, label in lines:
            traces.append(dict(type="scatter", x=n, y=y, mode="lines", name=t(label, lang, m=name),
                               line=dict(color=ROLE_COLOURS[role], dash=dash, width=2.5), hovertemplate=hover))
        label = t("x.meet", lang, n=f"{crossover_tokens(mid, p):,}")
        point = dict(type="scatter", x=[meet], y=[full], marker=dict(size=11, color="black", symbol="circle-open",
                                                                    line=dict(width=2)),
                     hovertemplate=f"{name}: N≈{meet:,.1f}<br>{fmt_bytes(full, units)}<extra></extra>")
        if canvas.narrow and canvas.text > 1:  # larger text on a phone: no room beside the point; in the legend
            traces.append(dict(point, mode="markers", name=f"{name} {label}"))
        else:
            traces.append(dict(point, mode="markers+text", showlegend=False,
                               text=[f"{name}{'<br>' if canvas.narrow else ' '}{label}"],
                               # on a phone's column to the right (left of the point are the axis's labels)
                               textposition=("top right", "bottom right")[i % 2] if canvas.narrow else
                               ("top left", "bottom right")[i % 2]))
    if context:
        shapes.append(dict(type="line", x0=context, x1=context, y0=0, y1=1, yref="paper",
                           line=dict(color=MUTED, dash="dot", width=1)))
        # annotation x on a log axis is in log10 units
        # near an end of the axis, the note reaches in from that end; on a page column, it reaches where it fits
        at = (math.log10(context) - math.log10(n[0])) / (math.log10(n[-1]) - math.log10(n[0]))
        text = f"{t('x.now', lang)} = {context:,}"
        anchor = "right" if at > 0.7 else "left" if at < 0.3 else "center"
        if canvas.screen_width:
            size = canvas.text * TEMPLATE.layout.font.size
            plot = canvas.screen_width - 30 - text_px("100M", size) - 2 * LINE * size  # less the y axis's labels
            wide = text_px(text, 11 * canvas.text)
            anchor = "right" if at * plot >= wide else "left" if (1 - at) * plot >= wide else anchor
            if max(at, 1 - at) * plot < wide:  # no room for a line: broken on the side with more room
                anchor = "right" if at > 0.5 else "left"
                text = "<br>".join(wrapped(text, max(at, 1 - at) * plot, 11 * canvas.text))
        notes.append(dict(x=math.log10(context), y=1, yref="paper", yanchor="bottom", showarrow=False, xanchor=anchor,
                          text=text, font=dict(color=MUTED, size=11)))
    layout = dict(
        template="kv_atlas", title=heading(t("x.title", lang)), height=460 + 70 * (canvas.text - 1),
        margin=dict(l=10, r=20, t=70 * canvas.text, b=10), annotations=notes, shapes=shapes,
        xaxis=dict(type="log", title=dict(text=t("x.axis.x", lang)), exponentformat="SI"),
        yaxis=dict(type="log", title=dict(text=t("x.axis.y", lang)), exponentformat="SI"),
        legend=dict(orientation="v", x=0.01, y=0.99, bgcolor="rgba(255,255,255,0.8)"),
    )
    if canvas.narrow:  # a phone's column: the legend under the chart (the screen pass places it under the axis)
        size = TEMPLATE.layout.title.font.size * canvas.text  # over the plot: the title, then the "now" line
        now = notes[0]["text"].count("<br>") + 1 if notes else 0
        top = title_top(size) + TITLE_FOOT * size + 12 + (now * LINE * 11 * canvas.text + 6 if context else 0)
        layout.update(legend=dict(orientation="h", x=0, y=-0.2, yanchor="top"), height=400 + top,
                      margin=dict(l=10, r=10, t=top, b=10))
    return Chart(go.Figure(data=traces, layout=layout), tuple(records), t("x.title", lang))
