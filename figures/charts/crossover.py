"""Global KV (growth per token × N) against the fixed local KV on log-log axes, a mark where they meet and a line at
the context read now: the model (`Crossover`), its layout for a canvas (where the meeting points' labels and the
"now" note go, the legend beside the lines or under the chart on a phone's column) and its drawer."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go

from ..canvas import LINE, TITLE_FOOT, Canvas, title_top
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, Drawn, heading
from ..text import text_px, wrapped
from .kind import draw

DASHES = ("solid", "dash", "dot", "dashdot")  # each model's two lines, in the models' order
HOVER = "N=%{x:,}<br>%{y:,.0f} B<extra>%{fullData.name}</extra>"  # a line's hover: the context, its bytes

# the "now" note, in fractions of the x axis (log scale)
NEAR_END = 0.3  # within this of an end of the axis, the note reaches in from that end (else centred on its line)

# px (before the reader's text size where a line says so)
NOW_TEXT = 11  # the "now" note's text
LEFT, RIGHT = 10, 20  # the plot's margins beside it (a phone's right one is LEFT too)
BOTTOM = 10  # under the plot (its x axis's labels and title are inside the figure's own room)
Y_LABELS = "100M"  # the y axis's widest tick label, left of the plot with the axis's title and its gap (2 lines)
HEIGHT = 460  # the figure's height at 1×; every further 1× of the reader's text size adds GROW
GROW = 70  # px a further 1× of text adds to the height; the top margin is this times the text size
TITLE_GAP = 12  # a phone's: under the title's foot, over the "now" note
NOW_GAP = 6  # a phone's: under the "now" note, over the plot
PHONE_PLOT = 400  # a phone's: the plot with its axes and its legend under it, under the top margin


@dataclass(frozen=True)
class Meeting:
    """One model's two lines (global KV growing with N, its local KV), in the reader's words, and the point where
    they meet: N there, local KV's bytes, its label (N rounded up) and what hovering it says (N and the bytes)."""

    name: str
    global_name: str
    local_name: str
    global_kv: np.ndarray
    local_kv: np.ndarray
    meet: float
    full: float
    label: str
    hover: str


@dataclass(frozen=True)
class Crossover:
    """The crossover chart: the contexts `n` every line is drawn at (straight between them on log-log axes), each
    model's lines and meeting point, the context read now and its note (none: no line), the axes' titles, and
    what it says beside the drawing."""

    title: str
    numbers: tuple[dict, ...]
    n: np.ndarray
    meetings: tuple[Meeting, ...]
    context: int | None
    now: str
    x_title: str
    y_title: str
    subtitle: str = ""


class Point(NamedTuple):
    """Where a meeting point's label goes: beside the point (`position`, its name and label on one line or
    `broken` over two), or in the legend (no room beside it)."""

    in_legend: bool
    broken: bool
    position: str


class Now(NamedTuple):
    """The "now" note over the plot at the context's line: its text (broken where it would not fit) and which of
    its ends is at the line."""

    text: str
    anchor: str


class Frame(NamedTuple):
    """Round the plot: the figure's height, its margins, where the legend goes."""

    height: float
    margin: dict
    legend: dict


def point(i: int, canvas: Canvas) -> Point:
    """The i-th model's meeting label: on a phone's column right of the point (left of it are the axis's labels),
    alternately over and under it, its words under its name; with larger text on a phone no room beside the point
    (in the legend); on a wider one left over the first, right under the second."""
    if canvas.narrow:
        return Point(canvas.text > 1, True, ("top right", "bottom right")[i % 2])
    return Point(False, False, ("top left", "bottom right")[i % 2])


def now(model: Crossover, canvas: Canvas) -> Now:
    """The "now" note: near an end of the axis it reaches in from that end; on a page column it reaches where it
    fits, broken on the side with more room where it fits neither way."""
    n = model.n
    at = (math.log10(model.context) - math.log10(n[0])) / (math.log10(n[-1]) - math.log10(n[0]))
    text = model.now
    anchor = "right" if at > 1 - NEAR_END else "left" if at < NEAR_END else "center"
    if canvas.screen_width:
        size = canvas.text * TEMPLATE.layout.font.size
        plot = canvas.screen_width - (LEFT + RIGHT) - text_px(Y_LABELS, size) - 2 * LINE * size
        wide = text_px(text, NOW_TEXT * canvas.text)
        anchor = "right" if at * plot >= wide else "left" if (1 - at) * plot >= wide else anchor
        if max(at, 1 - at) * plot < wide:  # no room for a line
            anchor = "right" if at > 0.5 else "left"
            text = "<br>".join(wrapped(text, max(at, 1 - at) * plot, NOW_TEXT * canvas.text))
    return Now(text, anchor)


def frame(note: Now | None, canvas: Canvas) -> Frame:
    """Natively and on a wider column the legend inside the plot's top-left corner; on a phone's column under the
    chart (the screen pass places it under the axis), over the plot the title, then the "now" note."""
    if not canvas.narrow:
        return Frame(HEIGHT + GROW * (canvas.text - 1), dict(l=LEFT, r=RIGHT, t=GROW * canvas.text, b=BOTTOM),
                     dict(orientation="v", x=0.01, y=0.99, bgcolor="rgba(255,255,255,0.8)"))
    size = TEMPLATE.layout.title.font.size * canvas.text
    lines = note.text.count("<br>") + 1 if note else 0
    top = title_top(size) + TITLE_FOOT * size + TITLE_GAP + \
        (lines * LINE * NOW_TEXT * canvas.text + NOW_GAP if note else 0)
    return Frame(PHONE_PLOT + top, dict(l=LEFT, r=LEFT, t=top, b=BOTTOM),
                 dict(orientation="h", x=0, y=-0.2, yanchor="top"))


@draw.register
def draw_crossover(model: Crossover, canvas: Canvas) -> Drawn:
    note = now(model, canvas) if model.context else None
    traces = [trace for i, m in enumerate(model.meetings) for trace in model_traces(model, m, i, canvas)]
    shapes = [dict(type="line", x0=model.context, x1=model.context, y0=0, y1=1, yref="paper",
                   line=dict(color=MUTED, dash="dot", width=1))] if note else []
    # annotation x on a log axis is in log10 units
    notes = [dict(x=math.log10(model.context), y=1, yref="paper", yanchor="bottom", showarrow=False,
                  xanchor=note.anchor, text=note.text, font=dict(color=MUTED, size=NOW_TEXT))] if note else []
    f = frame(note, canvas)
    layout = dict(
        template="kv_atlas", title=heading(model.title, model.subtitle), height=f.height, margin=f.margin,
        annotations=notes, shapes=shapes,
        xaxis=dict(type="log", title=dict(text=model.x_title), exponentformat="SI"),
        yaxis=dict(type="log", title=dict(text=model.y_title), exponentformat="SI"),
        legend=f.legend,
    )
    return Drawn(go.Figure(data=traces, layout=layout))


def model_traces(model: Crossover, m: Meeting, i: int, canvas: Canvas) -> list[dict]:
    """A model's global and local KV lines (dashed alike), and its meeting point with its label."""
    dash = DASHES[i % len(DASHES)]
    lines = [dict(type="scatter", x=model.n, y=y, mode="lines", name=name,
                  line=dict(color=ROLE_COLOURS[role], dash=dash, width=2.5), hovertemplate=HOVER)
             for role, y, name in (("main_kv", m.global_kv, m.global_name), ("local_kv", m.local_kv, m.local_name))]
    dot = dict(type="scatter", x=[m.meet], y=[m.full], marker=dict(size=11, color="black", symbol="circle-open",
                                                                   line=dict(width=2)),
               hovertemplate=f"{m.hover}<extra></extra>")
    p = point(i, canvas)
    if p.in_legend:
        return [*lines, dict(dot, mode="markers", name=f"{m.name} {m.label}")]
    return [*lines, dict(dot, mode="markers+text", showlegend=False,
                         text=[f"{m.name}{'<br>' if p.broken else ' '}{m.label}"], textposition=p.position)]
