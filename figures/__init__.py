"""Figure registry: figure id of FIGURES.md -> builder. Calling a builder with no
arguments reproduces the article's figure; keyword arguments are the interactive knobs."""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go

from . import style  # noqa: F401  (registers the shared template)
from .crossover import build_crossover
from .kv_bars import build_a1, generation_chart

Builder = Callable[..., go.Figure]

FIGURES: dict[str, Builder] = {
    "A1": build_a1,
    "A2": generation_chart("v2"),
    "A7": generation_chart("v3.2"),
    "A11": generation_chart("v4-flash"),
    "A20": generation_chart("v4.1-flash"),
}

# Charts the article describes in text but does not number.
EXTRAS: dict[str, Builder] = {
    "crossover": build_crossover,
}
