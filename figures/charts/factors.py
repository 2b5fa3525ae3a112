"""The factors chart (figures/builders/factors.py): each model's per-token KV, kind by kind of the layers that store
it, each kind's numbers over its bar on a log axis. Its model, its layout for a canvas and its drawer.

One layout for every canvas: down the chart, each model's head (its name and, where several kinds of layer store
KV, their sum), then each kind as a line of its numbers over its bar. The lines are broken to the canvas's width at
its text size, and every height is counted in lines of that text, so a phone's column, a desktop's and larger text
lay out alike."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import plotly.graph_objects as go

from ..canvas import LINE, Canvas
from ..style import MUTED, TEMPLATE, Drawn, heading
from ..text import wrapped
from .kind import draw
from .spacing import BAR_COLOUR

PLOTLY_WIDTH = 700  # px: the width a figure drawn without one takes (plotly's default), natively and on a slide
SIDE = 10  # px: the left and right margins
OVER_BAR, BAR, AFTER_BAR, AFTER_MODEL = 0.3, 1.0, 0.7, 0.6  # in ems: the space between a line and its bar,
# a bar's thickness, the space under it and under a model's last bar
BETWEEN = 0.35  # ems between two lines of text drawn apart (a browser's box for a line is taller than the line)
AXIS_LINES = 3  # lines of text under the plot: the axis's labels and its title under them
TOP = 90  # px: a title of one line and a subtitle of one; a screen's layout makes it as tall as their lines
PAD, PAD_SHARE = 0.15, 0.04  # decades the axis reaches past the bars at either end: at least PAD, or PAD_SHARE of
# the bars' span


@dataclass(frozen=True)
class KindBar:
    """One kind of layer that stores KV: the line of its numbers, what it adds per token (B, the bar) and the bar's
    hover."""

    line: str
    per_token: float
    hover: str


@dataclass(frozen=True)
class ModelKinds:
    """One model's rows: its head (its name, and the kinds' sum where there are several), a muted note where no kind
    stores KV (else empty) and a bar per kind."""

    head: str
    note: str
    kinds: tuple[KindBar, ...]


@dataclass(frozen=True)
class FactorsChart:
    """The chart's words and numbers in the reader's language: title, subtitle, the x axis's title, a model's rows
    per model, and the records an export writes."""

    title: str
    subtitle: str
    axis: str
    models: tuple[ModelKinds, ...]
    numbers: tuple[dict, ...]


class Note(NamedTuple):
    """A text's lines (joined by <br>), the px down the plot their top is at, and whether it is muted."""

    y: float
    text: str
    muted: bool


class Placed(NamedTuple):
    """The texts and the bars' middles down the plot (px), the rows' depth, a bar's thickness, the bottom margin
    and the figure's height."""

    notes: tuple[Note, ...]
    bars: tuple[float, ...]
    depth: float
    bar: float
    bottom: float
    height: float


def place(model: FactorsChart, canvas: Canvas) -> Placed:
    """Every text broken to the canvas's width at the reader's text size (the template's size, `canvas.text` times:
    the screen's layout draws it so), every height counted in lines of that text."""
    size = TEMPLATE.layout.font.size * canvas.text
    room = (canvas.screen_width or PLOTLY_WIDTH) - 2 * SIDE
    line = LINE * size
    notes, bars = [], []
    y = 0.0

    def write(text: str, muted: bool = False) -> None:
        nonlocal y
        lines = wrapped(text, room, size)
        notes.append(Note(y, "<br>".join(lines), muted))
        y += len(lines) * line + BETWEEN * size

    for m in model.models:
        write(m.head)
        if m.note:
            write(m.note, muted=True)
        for k in m.kinds:
            write(k.line)
            y += OVER_BAR * size
            bars.append(y + BAR * size / 2)
            y += (BAR + AFTER_BAR) * size
        y += AFTER_MODEL * size
    bottom = AXIS_LINES * line
    return Placed(tuple(notes), tuple(bars), y, BAR * size, bottom, TOP + y + bottom)


def reach(values: list[float]) -> list[float]:
    """The log axis's range (log10): the bars' span and a pad at either end."""
    low, high = (math.log10(min(values)), math.log10(max(values))) if values else (0.0, 1.0)
    pad = max(PAD, (high - low) * PAD_SHARE)
    return [low - pad, high + pad]


@draw.register
def _(model: FactorsChart, canvas: Canvas) -> Drawn:
    return Drawn(drawn(model, place(model, canvas)))


def drawn(model: FactorsChart, placed: Placed) -> go.Figure:
    """A y axis in px places each bar under its line; the texts are annotations at the plot's left edge, at the
    template's size (the screen's layout draws them the reader's text size times that)."""
    body = TEMPLATE.layout.font.size
    notes = [dict(text=note.text, x=0, y=note.y, xref="x domain", yref="y", xanchor="left", yanchor="top",
                  align="left", showarrow=False, font=dict(size=body, **(dict(color=MUTED) if note.muted else {})))
             for note in placed.notes]
    kinds = [k for m in model.models for k in m.kinds]
    xs = [k.per_token for k in kinds]
    bars = go.Bar(x=xs, y=list(placed.bars), orientation="h", width=placed.bar, marker_color=BAR_COLOUR,
                  hovertext=[k.hover for k in kinds], hoverinfo="text", showlegend=False)
    return go.Figure(data=[bars], layout=dict(
        template="kv_atlas", title=heading(model.title, model.subtitle), annotations=notes,
        height=placed.height, margin=dict(l=SIDE, r=SIDE, t=TOP, b=placed.bottom), showlegend=False,
        xaxis=dict(type="log", range=reach(xs), dtick=1, tickformat="~s", automargin=False,
                   title=dict(text=model.axis)),
        yaxis=dict(range=[placed.depth, 0], visible=False, fixedrange=True)))
