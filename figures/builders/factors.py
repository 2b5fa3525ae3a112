"""The factors chart: each model's per-token KV, kind by kind of the layers that store it, with
the numbers each kind really has (core.factors: layers, width, bytes per value, m) and
what it adds per token as a bar on a log axis.

One layout for every canvas: down the chart, each model's name (and, where several kinds of
layer store KV, their sum), then each kind as a line of its numbers over its bar. The lines are
broken to the canvas's width at its text size, and every height is counted in lines of that
text, so a phone's column, a desktop's and larger text lay out alike."""

from __future__ import annotations

import math
from fractions import Fraction

import plotly.graph_objects as go

from core import A1_MODELS, Storing, get, storing
from i18n import model_name, t

from ..canvas import LINE, NATIVE, Canvas
from ..made import Chart
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, heading
from ..text import wrapped

WIDE = 700  # px: the width a figure drawn without one takes (plotly's default), natively and on a slide
SIDE = 10  # px: the left and right margins
OVER_BAR, BAR, AFTER_BAR, AFTER_MODEL = 0.3, 1.0, 0.7, 0.6  # in ems: the space between a line and its bar,
# a bar's thickness, the space under it and under a model's last bar
BETWEEN = 0.35  # ems between two lines of text drawn apart (a browser's box for a line is taller than the line)


def build_factors(*, lang: str = "ko", models=A1_MODELS, canvas: Canvas = NATIVE) -> Chart:
    """Per model, each kind of layer that stores KV (core.factors.storing): layers, width (an
    entry's dims with its index key's), bytes per value (scales and padding included) and m, and
    what it adds per token, layers × entry bytes ÷ m, as a bar on a log axis; a model of several
    kinds also gets their sum."""
    # the text is set at the template's size; on a page column the screen's layout draws it the
    # reader's text size times that (Canvas.text), so lines are broken and spaced for that size
    body = TEMPLATE.layout.font.size
    size = body * canvas.text
    room = (canvas.screen_width or WIDE) - 2 * SIDE
    line = LINE * size
    notes, ys, xs, hover, records = [], [], [], [], []
    y = 0.0

    def write(text: str, **font) -> None:
        nonlocal y
        lines = wrapped(text, room, size)
        notes.append(dict(text="<br>".join(lines), x=0, y=y, xref="x domain", yref="y", xanchor="left",
                          yanchor="top", align="left", showarrow=False, font=dict(size=body, **font)))
        y += len(lines) * line + BETWEEN * size

    for m in map(get, models):  # an id, or an imported model's Model
        name, kinds = model_name(m.id, m.name, lang), storing(m)
        total = sum((k.per_token for k in kinds), Fraction(0))
        head = f"<b>{name}</b>"
        if len(kinds) > 1:
            head += " · " + t("fx.sum", lang, terms=" + ".join(_bytes(k.per_token) for k in kinds), total=_bytes(total))
        write(head)
        if not kinds:
            write(t("fx.none", lang), color=MUTED)
        for k in kinds:
            write(_row(k, lang))
            y += OVER_BAR * size
            ys.append(y + BAR * size / 2)
            xs.append(float(k.per_token))
            hover.append(f"{_kind(k)}: {k.layers:,} × {k.entry:,} B ÷ {k.ratio:,} = {_bytes(k.per_token)}")
            records.append({"model": m.id, "kind": k.kind, "stack": k.stack, "layers": k.layers, "width": k.width,
                            "entry_bytes": k.entry, "bytes_per_value": float(k.bytes_per_value), "ratio": k.ratio,
                            "per_token": float(k.per_token), "model_per_token": float(total)})
            y += (BAR + AFTER_BAR) * size
        y += AFTER_MODEL * size
    low, high = (math.log10(min(xs)), math.log10(max(xs))) if xs else (0.0, 1.0)
    pad = max(0.15, (high - low) * 0.04)
    bottom = 3 * line  # the axis's labels and its title under them
    top = 90  # a title of one line and a subtitle of one; a screen's layout makes it as tall as their lines
    bars = go.Bar(x=xs, y=ys, orientation="h", width=BAR * size, marker_color=ROLE_COLOURS["main_kv"],
                  hovertext=hover, hoverinfo="text", showlegend=False)
    fig = go.Figure(data=[bars], layout=dict(
        template="kv_atlas", title=heading(t("fx.title", lang), t("fx.sub", lang)), annotations=notes,
        height=top + y + bottom, margin=dict(l=SIDE, r=SIDE, t=top, b=bottom), showlegend=False,
        xaxis=dict(type="log", range=[low - pad, high + pad], dtick=1, tickformat="~s", automargin=False,
                   title=dict(text=t("fx.x", lang))),
        yaxis=dict(range=[y, 0], visible=False, fixedrange=True)))
    return Chart(fig, tuple(records), t("fx.title", lang), t("fx.sub", lang))


def _kind(k: Storing) -> str:
    """'CSA', 'CSA2 · encoder'."""
    return f"{k.kind} · {k.stack}" if k.stack else k.kind


def _row(k: Storing, lang: str) -> str:
    """A kind's numbers: 'CSA: 21 layers · width 640 · 1.02 B per value · m = 4 → 3,423 B'."""
    return t("fx.row", lang, kind=_kind(k), layers=t("fx.layers" if k.layers > 1 else "fx.layer", lang, n=k.layers),
             width=f"{k.width:,}", b=_value(k.bytes_per_value), m=k.ratio, per=_bytes(k.per_token))


def _value(x: Fraction) -> str:
    """Bytes per value, to three significant digits: '2', '1.12', '0.556'."""
    return f"{float(x):.3g}"


def _bytes(x: Fraction) -> str:
    """An exact byte count: '3,423 B', '91.25 B' (a fraction of a byte per token written out)."""
    return f"{int(x):,} B" if x.denominator == 1 else f"{float(x):,g} B"
