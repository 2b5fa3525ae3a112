"""Figure registry: figure id of FIGURES.md -> builder. Calling a builder with no
arguments reproduces the article's figure; keyword arguments are the interactive knobs."""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go

from . import style  # noqa: F401  (registers the shared template)
from .crossover import build_crossover
from .dsa import build_a8, build_a9, build_a10
from .kv_bars import build_a1, generation_chart
from .mla import build_a3, build_a4, build_a5, build_a6, build_mla_cost
from .token_axis import build_b1, build_b2, build_b3, build_b4
from .v4 import build_a12, build_a13, build_a14, build_a15, build_a16, build_a17, build_a18, build_a19
from .v41 import (
    build_a21,
    build_a22,
    build_a23,
    build_a24,
    build_a25,
    build_a26,
    build_a27,
    build_ced_ratio,
    build_factors,
)

Builder = Callable[..., go.Figure]

FIGURES: dict[str, Builder] = {
    "A1": build_a1,
    "A2": generation_chart("v2"),
    "A3": build_a3,
    "A4": build_a4,
    "A5": build_a5,
    "A6": build_a6,
    "A7": generation_chart("v3.2"),
    "A8": build_a8,
    "A9": build_a9,
    "A10": build_a10,
    "A11": generation_chart("v4-flash"),
    "A12": build_a12,
    "A13": build_a13,
    "A14": build_a14,
    "A15": build_a15,
    "A16": build_a16,
    "A17": build_a17,
    "A18": build_a18,
    "A19": build_a19,
    "A20": generation_chart("v4.1-flash"),
    "A21": build_a21,
    "A22": build_a22,
    "A23": build_a23,
    "A24": build_a24,
    "A25": build_a25,
    "A26": build_a26,
    "A27": build_a27,
    "B1": build_b1,
    "B2": build_b2,
    "B3": build_b3,
    "B4": build_b4,
}

# Charts the article describes in text but does not number.
EXTRAS: dict[str, Builder] = {
    "crossover": build_crossover,
    "mla-cost": build_mla_cost,
    "ced-ratio": build_ced_ratio,
    "factors": build_factors,
}
