"""The read floor (figures/builders/planner.py): the least time a decode step can spend reading the cache over HBM
bandwidth, a line per model against context. Its model, its layout for a canvas (where the legend and the "a
lower bound" note go) and its drawer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go

from ..canvas import Canvas
from ..style import MUTED, Drawn, heading
from .kind import draw

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")  # a line's dash by its place, repeating
LINE_WIDTH = 2.5  # px
HEIGHT, PHONE_HEIGHT = 480, 440  # px: natively and on a page column; on a phone's column
MARGIN = dict(l=10, r=20, t=90, b=10)  # px
NOTE_SIZE = 11  # px: the "a lower bound" note in the plot's corner
# the legend: in the plot's top-left corner over the lines' empty end; on a phone's column under the plot
# (the screen pass places it under the axis), not over its lines
LEGEND_INSIDE = dict(x=0.01, y=0.99, bgcolor="rgba(255,255,255,0.8)")
LEGEND_UNDER = dict(orientation="h", x=0, y=-0.2, yanchor="top")


@dataclass(frozen=True)
class FloorLine:
    """One model's line: its name and its floor in µs at each of the chart's contexts."""

    name: str
    floors_us: np.ndarray


@dataclass(frozen=True)
class ReadFloorChart:
    """The chart's words and numbers in the reader's language: its title, the subtitle's first line (the GPU,
    the batch, what is read), the note that the floor is a bound, the axes' titles, the contexts (tokens) every
    line is drawn at, a line per model, and the records an export writes."""

    title: str
    lead: str
    bound: str
    x_title: str
    y_title: str
    contexts: np.ndarray
    lines: tuple[FloorLine, ...]
    numbers: tuple[dict, ...]

    @property
    def subtitle(self) -> str:
        """Said on every canvas: under the title on a phone, else the bound in the plot's corner."""
        return f"{self.lead}<br>{self.bound}"


class Placed(NamedTuple):
    """Where the bound is said (in the plot's corner, or as the subtitle's last line: the screen pass breaks it
    to the width, which a note beside the y axis's labels cannot know), the legend and the height."""

    bound_in_corner: bool
    legend: dict
    height: int


def place(canvas: Canvas) -> Placed:
    if canvas.narrow:  # a phone's column, for its text
        return Placed(False, dict(LEGEND_UNDER), PHONE_HEIGHT)
    return Placed(True, dict(LEGEND_INSIDE), HEIGHT)


@draw.register
def _(model: ReadFloorChart, canvas: Canvas) -> Drawn:
    placed = place(canvas)
    traces = [dict(type="scatter", x=model.contexts, y=line.floors_us, mode="lines", name=line.name,
                   line=dict(width=LINE_WIDTH, dash=DASHES[i % len(DASHES)]),
                   hovertemplate="N=%{x:,}<br>%{y:,.1f} µs<extra>%{fullData.name}</extra>")
              for i, line in enumerate(model.lines)]
    notes = [dict(text=model.bound, x=1, y=0, xref="paper", yref="paper", xanchor="right", yanchor="bottom",
                  showarrow=False, font=dict(size=NOTE_SIZE, color=MUTED))] if placed.bound_in_corner else []
    return Drawn(go.Figure(data=traces, layout=dict(
        template="kv_atlas", title=heading(model.title, model.lead if placed.bound_in_corner else model.subtitle),
        height=placed.height, margin=dict(MARGIN),
        xaxis=dict(type="log", title=dict(text=model.x_title), exponentformat="SI"),
        yaxis=dict(type="log", title=dict(text=model.y_title), exponentformat="SI"),
        legend=placed.legend, annotations=notes)))
