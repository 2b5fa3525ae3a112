"""Charts as typed models, laid out for a canvas and drawn with plotly, as figures.matrix does for diagrams.

A builder makes a chart's model: frozen dataclasses holding what the chart shows, its words already in
the reader's language and its numbers from core, with no plotly and no canvas. The layout pass
(figures/layout/) calls `draw(model, canvas)`, which places the model for the canvas (a phone's column, a
desktop column, a slide, natively) and turns the placement into a plotly figure (`figures.style.Drawn`).
Each kind of chart is a module of this package holding its model, its layout and its drawer, and registers
its drawer with `draw.register`; every geometric constant is named and said where it is defined.
"""

from . import (  # noqa: F401  (each kind registers its drawer)
    bars,
    budget,
    capacity,
    crossover,
    factors,
    layer_strip,
    order_costs,
    read_floor,
    reconciliation,
)
from .kind import ChartModel, draw

__all__ = ["ChartModel", "draw"]
