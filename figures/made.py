"""What a builder makes, and what a build returns.

A builder makes a chart — a `Chart`: a plotly figure with the records it draws (the rows an export
writes as CSV/JSON), its title and subtitle — or a diagram (figures.matrix.Diagram: data the layout
pass draws). `FigureSpec.build` returns a `Built`: the figure drawn and fitted to its canvas, with
what it says beside the drawing typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import plotly.graph_objects as go

from .charts import ChartModel
from .matrix import Diagram


class Incompatible(ValueError):
    """Knob values that do not go together (a highlight that is not among the models, a chart with nothing to
    draw): what a reader asked for, said in a note beside the defaults. Any other exception from a builder is its
    own bug, and raises."""


class Chart(NamedTuple):
    """A chart, the records it draws (a dict per row: what a CSV export writes), and its title and subtitle as
    its builder wrote them into the chart's heading (figures.style.heading)."""

    figure: go.Figure
    numbers: tuple[dict, ...]
    title: str
    subtitle: str = ""


Made = Chart | Diagram | ChartModel  # a chart drawn by its builder, or data the layout pass draws


@dataclass(frozen=True)
class Built:
    """A figure built for a canvas: the drawing, whether it is a diagram, its title and subtitle as
    plain one-line text (as its builder wrote them: a canvas's own line breaks do not count), a
    diagram's captions, its records (a chart's as its builder gave them, a diagram's every value box
    cell by cell) and their columns, and the font scale its text was laid out for (a slide's or a page
    column's; None natively: the builder's own sizes, which a look may still scale). Everything but
    the drawing comes from what the builder made, never read back out of the plotly figure."""

    figure: go.Figure
    diagram: bool
    title: str
    subtitle: str = ""
    captions: tuple[str, ...] = ()
    numbers: tuple[dict, ...] = ()
    columns: tuple[str, ...] = ()
    font_scale: float | None = None
