"""The factors chart: per-token KV as width × layers storing × bytes per element ÷ compression ratio,
each factor against the hypothetical MHA's, model by model."""

from __future__ import annotations

import plotly.graph_objects as go

from core import A1_MODELS, get
from core.factors import factors
from i18n import model_name, t

from ..canvas import NATIVE, Canvas
from ..contrast import INK
from ..style import heading


def build_factors(*, lang: str = "ko", models=A1_MODELS, canvas: Canvas = NATIVE) -> go.Figure:
    """Per-token KV = width × layers storing × bytes per element ÷ compression ratio, each factor
    relative to the hypothetical MHA, model by model."""
    base = factors("mha")
    names = [model_name(m, get(m).name, lang) for m in models]
    rows = [factors(m) for m in models]
    series = {
        "width": [f.width / base.width for f in rows],
        "layers": [f.layers / base.layers for f in rows],
        "bytes": [f.bytes_per_element / base.bytes_per_element for f in rows],
        "ratio": [base.ratio / f.ratio for f in rows],
    }
    colours = {"width": "#2f6fd1", "layers": "#7b4bb7", "bytes": "#e8890c", "ratio": "#16a34a"}
    total = [f.total / base.total for f in rows]
    # the baseline's total (MHA's, 1) is not labelled: its bars' labels say 1 at the same height
    totals = [_times(x) if abs(x - 1) > 1e-9 else "" for x in total]
    ticks = dict(type="log", range=[-4, 0.6], tickvals=[10.0**-k for k in range(5)],
                 ticktext=["1"] + [f"1/{10**k:,}" for k in range(1, 5)])
    if canvas.narrow:  # a phone's column: models down the page, each factor a bar across it, the total by the name
        traces = [go.Bar(y=names, x=v, orientation="h", name=t(f"fx.{k}", lang), marker_color=colours[k],
                         text=[_times(x) for x in v], textposition="outside", textfont=dict(size=11),
                         cliponaxis=False) for k, v in series.items()]
        traces.append(go.Scatter(y=names, x=total, mode="markers", name=t("fx.total", lang),
                                 marker=dict(symbol="diamond", size=12, color=INK)))
        decades = dict(ticks, tickvals=[1e-4, 1e-2, 1], ticktext=["1/10,000", "1/100", "1"], tickangle=0)
        return go.Figure(data=traces, layout=dict(
            template="kv_atlas", barmode="group", height=260 + 110 * len(models), margin=dict(l=10, r=45, t=90, b=10),
            title=heading(t("fx.title", lang), t("fx.sub", lang)),
            xaxis=dict(decades, title=dict(text=t("fx.y", lang))),
            yaxis=dict(autorange="reversed", tickvals=names,
                       ticktext=[f"{n}<br><b>{x}</b>" if x else n for n, x in zip(names, totals)]),
            legend=dict(orientation="h", x=0, y=-0.12, yanchor="top")))
    traces = [go.Bar(x=names, y=v, name=t(f"fx.{k}", lang), marker_color=colours[k],
                     text=[_times(x) for x in v], textposition="outside", textfont=dict(size=10))
              for k, v in series.items()]
    traces.append(go.Scatter(x=names, y=total, mode="markers+text", name=t("fx.total", lang),
                             marker=dict(symbol="diamond", size=12, color=INK),
                             text=totals, textposition="middle right"))
    fig = go.Figure(data=traces)
    fig.update_layout(
        template="kv_atlas", barmode="group", height=460, margin=dict(l=10, r=20, t=90, b=10),
        title=heading(t("fx.title", lang), t("fx.sub", lang)),
        yaxis=dict(ticks, title=dict(text=t("fx.y", lang))),
        legend=dict(orientation="h", x=0, y=-0.12, yanchor="top"))
    return fig


def _times(x: float) -> str:
    """'÷57' for a factor below 1, '×1.02' above, '1' when unchanged."""
    if abs(x - 1) < 1e-9:
        return "1"
    if x < 1:
        return f"÷{round(1 / x):,}" if 1 / x >= 100 else f"÷{1 / x:.3g}"
    return f"×{x:.3g}"
