"""A matrix diagram as data: lanes of boxes (matrices) and operator glyphs, read left to right,
as the mechanism figures make them (figures/builders/) and figures.matrix draws them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..style import ROLE_COLOURS

# Fill and border by role: weights purple; what attention reads blue; the indexer's red;
# local KV orange; plain activations and scores grey.
ROLE_FILL = {
    "act": ("#f3f4f6", "#6b7280"),
    "weight": ("#ede4f7", ROLE_COLOURS["weight"]),
    "kv": ("#e3ecfa", ROLE_COLOURS["main_kv"]),
    "index": ("#fbe5e5", ROLE_COLOURS["index_key"]),
    "local": ("#fdf0dc", ROLE_COLOURS["local_kv"]),
    "score": ("#fff8e1", "#b7791f"),
}


@dataclass(frozen=True)
class Box:
    """One matrix. `shape` is what the label states (e.g. the article's [T × r_kv]);
    `values`, when given, are drawn cell by cell (±inf shown as ±∞)."""

    label: str  # HTML, e.g. "C<sup>KV</sup>"
    shape: tuple[int | str, int | str]
    role: str = "act"
    values: np.ndarray | None = None
    cached: bool = False
    note: str = ""  # a line under the box
    fmt: str = "{:.2f}"
    cells: tuple | None = None  # text per cell, instead of the formatted values
    palette: tuple[str, ...] = ()  # discrete colours for integer values 0, 1, 2 … (else a diverging scale)
    row_labels: tuple[str, ...] = ()  # drawn left of the rows
    col_labels: tuple[str, ...] = ()  # drawn under the columns

    def __post_init__(self):
        if self.role not in ROLE_FILL:
            raise ValueError(f"unknown role {self.role!r}")
        if self.values is not None and np.ndim(self.values) != 2:
            raise ValueError(f"{self.label}: values must be a 2-D array")


@dataclass(frozen=True)
class Op:
    """An operator between boxes: ×, +, ⊙, =, →, softmax, mask …; `over` labels an arrow."""

    glyph: str
    over: str = ""


@dataclass(frozen=True)
class Diagram:
    title: str
    lanes: tuple[tuple[Box | Op, ...], ...]
    lane_labels: tuple[str, ...] = ()
    captions: tuple[str, ...] = ()
    lang: str = "ko"  # the renderer's own words (the cached badge, what a column folded) are in it
    subtitle: str = ""
    size_order: tuple = ()  # symbolic sizes (e.g. "D", "d_c") from small to large, with ints among them


def shape_label(shape) -> str:
    r, c = shape
    fr = f"{r:,}" if isinstance(r, int) else r
    fc = f"{c:,}" if isinstance(c, int) else c
    return f"[{fr} × {fc}]"


