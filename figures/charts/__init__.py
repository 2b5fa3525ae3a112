"""Charts as typed models, laid out for a canvas and drawn with plotly, as figures.matrix does for diagrams.

A builder makes a chart's model: frozen dataclasses holding what the chart shows, its words already in
the reader's language and its numbers from core, with no plotly and no canvas. The layout pass
(figures/layout/) calls `draw(model, canvas)`, which places the model for the canvas (a phone's column, a
desktop column, a slide, natively) and turns the placement into a plotly figure. Each kind of chart is a
module of this package holding its model, its layout and its drawer, and registers its drawer with
`draw.register`; every geometric constant is named and said where it is defined.
"""

from __future__ import annotations

from functools import singledispatch
from typing import Protocol, runtime_checkable

import plotly.graph_objects as go

from ..canvas import Canvas


@runtime_checkable
class ChartModel(Protocol):
    """What every chart's model says beside its drawing: its title and subtitle (plain text, or the little HTML a
    heading takes), and its records (one dict per row: what an export writes as CSV/JSON)."""

    title: str
    subtitle: str
    numbers: tuple[dict, ...]


@singledispatch
def draw(model: ChartModel, canvas: Canvas) -> go.Figure:
    """A chart's model placed for the canvas and drawn: each kind registers its own drawer."""
    raise TypeError(f"no drawer for {type(model).__name__}")


__all__ = ["ChartModel", "draw"]

# each kind's module registers its drawer with `draw` when imported (one line per module, alphabetical)
from .crossover import draw_crossover  # noqa: E402, F401
from .layer_strip import draw_layer_strip  # noqa: E402, F401
