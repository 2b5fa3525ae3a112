"""The cost of MLA's computation orders (figures/builders/mla.py, build_mla_cost): the multiply-adds of one head's
content score against context, a line per order (expand, absorb) and phase (decode, prefill). Its model, its
layout for a canvas (where the legend goes) and its drawer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go

from ..canvas import Canvas
from ..style import ROLE_COLOURS, Drawn, heading
from .kind import draw
from .read_floor import LEGEND_INSIDE, LEGEND_UNDER, LINE_WIDTH

COLOURS = {"expand": ROLE_COLOURS["main_kv"], "absorb": ROLE_COLOURS["weight"]}  # a line's colour by its order
DASHES = {"decode": "solid", "prefill": "dash"}  # a line's dash by its phase
HEIGHT, PHONE_HEIGHT = 440, 400  # px: natively and on a page column; on a phone's column
MARGIN = dict(l=10, r=20, t=80, b=10)  # px
PHONE_MARGIN = dict(l=10, r=10, t=80, b=10)  # px: a phone's column (the screen pass grows the bottom for the legend)


@dataclass(frozen=True)
class CostLine:
    """One order in one phase: its name (the legend), its order and phase (its colour and dash: COLOURS, DASHES),
    and its multiply-adds at each context (tokens)."""

    name: str
    order: str
    phase: str
    tokens: np.ndarray
    macs: np.ndarray


@dataclass(frozen=True)
class OrderCostChart:
    """The chart's words and numbers in the reader's language: title, subtitle, the axes' titles, a line per order
    and phase, and the records an export writes."""

    title: str
    subtitle: str
    x_title: str
    y_title: str
    lines: tuple[CostLine, ...]
    numbers: tuple[dict, ...]


class Placed(NamedTuple):
    """The legend (over the lines' empty corner, or under the plot on a phone's column), the height, the margins."""

    legend: dict
    height: int
    margin: dict


def place(canvas: Canvas) -> Placed:
    if canvas.narrow:  # a phone's column, for its text: the screen pass places the legend under the axis
        return Placed(dict(LEGEND_UNDER), PHONE_HEIGHT, dict(PHONE_MARGIN))
    return Placed(dict(LEGEND_INSIDE), HEIGHT, dict(MARGIN))


@draw.register
def _(model: OrderCostChart, canvas: Canvas) -> Drawn:
    placed = place(canvas)
    traces = [dict(type="scatter", x=line.tokens, y=line.macs, mode="lines", name=line.name,
                   line=dict(color=COLOURS[line.order], dash=DASHES[line.phase], width=LINE_WIDTH),
                   hovertemplate="T=%{x:,}<br>%{y:.3s} MAC<extra>%{fullData.name}</extra>")
              for line in model.lines]
    return Drawn(go.Figure(data=traces, layout=dict(
        template="kv_atlas", title=heading(model.title, model.subtitle),
        xaxis=dict(type="log", title=dict(text=model.x_title), exponentformat="SI"),
        yaxis=dict(type="log", title=dict(text=model.y_title), exponentformat="SI"),
        height=placed.height, margin=placed.margin, legend=placed.legend)))
