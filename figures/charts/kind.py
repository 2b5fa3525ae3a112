"""What every chart's model is (`ChartModel`) and the one way to draw one (`draw`, each kind registering its
drawer): apart from the package's door, so that each kind's module imports it without a circle."""

from __future__ import annotations

from functools import singledispatch
from typing import Protocol, runtime_checkable

from ..canvas import Canvas
from ..style import Drawn


@runtime_checkable
class ChartModel(Protocol):
    """What every chart's model says beside its drawing: its title and subtitle (plain text, or the little HTML a
    heading takes), and its records (one dict per row: what an export writes as CSV/JSON)."""

    title: str
    subtitle: str
    numbers: tuple[dict, ...]


@singledispatch
def draw(model: ChartModel, canvas: Canvas) -> Drawn:
    """A chart's model placed for the canvas and drawn, with which of its texts sit on fills (the look leaves
    their colours alone): each kind registers its own drawer."""
    raise TypeError(f"no drawer for {type(model).__name__}")

