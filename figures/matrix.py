"""The matrix-diagram renderer shared by every mechanism figure.

A diagram is data: lanes of boxes (matrices) and operator glyphs, read left to right,
computed from a mechanism run; `render` draws any diagram the same way. Conventions of
the article: activations have rows = tokens, columns = features; weights are
[input, output]; a box's width shows only the *order* of its column size among the
diagram's boxes (not proportional); learned weights are purple; cached boxes are marked.
A box may carry its values, drawn as a heatmap with the numbers inside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from .style import MUTED, ROLE_COLOURS

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
CELL = 0.62  # size of one value cell, in layout units
PX = 44  # pixels per layout unit
OP_W = 0.9  # width of an operator glyph
GAP = 0.25  # space between items in a lane
LANE_GAP = 1.05  # vertical space between lanes (room for labels above boxes)


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
    cached_label: str = "cached"
    subtitle: str = ""
    size_order: tuple = ()  # symbolic sizes (e.g. "D", "d_c") from small to large, with ints among them


def shape_label(shape) -> str:
    r, c = shape
    fr = f"{r:,}" if isinstance(r, int) else r
    fc = f"{c:,}" if isinstance(c, int) else c
    return f"[{fr} × {fc}]"


def _ranks(values, order: tuple = ()) -> dict:
    """Rank of each distinct size (0 = smallest). With `order`, sizes rank by their place in it;
    otherwise ints by value, then symbolic sizes (e.g. 'T') in the order seen."""
    if order:
        known = [v for v in order if v in set(values)]
        out = {v: i for i, v in enumerate(known)}
        for v in values:
            out.setdefault(v, len(out))
        return out
    nums = sorted({v for v in values if isinstance(v, int)})
    out = {v: i for i, v in enumerate(nums)}
    for v in values:
        if not isinstance(v, int) and v not in out:
            out[v] = len(out)
    return out


def _row_label_width(box: Box) -> float:
    return max((text_width(x) for x in box.row_labels), default=-0.2) + 0.2


def _size(box: Box, col_rank: dict, row_rank: dict) -> tuple[float, float]:
    if box.values is not None:
        r, c = box.values.shape
        label = text_width(box.label, 12) + text_width(shape_label(box.shape), 10)
        return max(c * CELL + _row_label_width(box), label), r * CELL
    # the rank sets the width; a long name or shape widens the box so its text stays inside
    fit = max(text_width(box.label, 13.5), text_width(shape_label(box.shape), 12)) + 0.3  # bold name
    return max(1.2 + 0.38 * col_rank[box.shape[1]], fit), 1.0 + 0.3 * row_rank[box.shape[0]]


def render(d: Diagram) -> go.Figure:
    boxes = [it for lane in d.lanes for it in lane if isinstance(it, Box)]
    col_rank = _ranks([b.shape[1] for b in boxes], d.size_order)
    row_rank = _ranks([b.shape[0] for b in boxes], d.size_order)

    shapes, notes, traces = [], [], []
    y, width = 0.0, 0.0
    placed: dict[str, float] = {}  # box label -> x in the lane above
    for li, lane in enumerate(d.lanes):
        sizes = [_size(it, col_rank, row_rank) if isinstance(it, Box) else (_op_width(it), 0.0) for it in lane]
        height = max(h for _, h in sizes)
        label = d.lane_labels[li] if li < len(d.lane_labels) else ""
        centre = y + LANE_GAP + (0.45 if label else 0) + height / 2
        # an unlabelled lane that starts from a box of the lane above continues under it
        x = placed.get(lane[0].label, 0.0) if isinstance(lane[0], Box) and not label else 0.0
        placed = {}
        for it, (w, h) in zip(lane, sizes):
            if isinstance(it, Box):
                _draw_box(it, x, centre - h / 2, w, h, d.cached_label, shapes, notes, traces)
                placed.setdefault(it.label, x)
            else:
                _draw_op(it, x + w / 2, centre, notes)
            x += w + GAP
        if label:
            notes.append(dict(x=0, y=y + 0.2, text=f"<b>{label}</b>", xanchor="left", yanchor="top",
                              showarrow=False, font=dict(size=12, color=MUTED), xref="x", yref="y"))
        width = max(width, x)
        y = centre + height / 2 + (0.55 if any(isinstance(it, Box) and it.note for it in lane) else 0.15)
    for i, cap in enumerate(d.captions):
        notes.append(dict(x=0, y=y + 0.35 + 0.45 * i, text=cap, xanchor="left", yanchor="top", showarrow=False,
                          align="left", font=dict(size=12, color=MUTED), xref="x", yref="y"))
    y += 0.45 * len(d.captions) + (0.4 if d.captions else 0)

    top = 70 if not d.subtitle else 85
    for c in (*d.captions, d.subtitle):  # captions and the subtitle may be wider than the lanes
        width = max(width, text_width(c, 12))
    width = max(width, text_width(d.title, 17))
    title = d.title + (f"<br><sup>{d.subtitle}</sup>" if d.subtitle else "")
    layout = dict(
        template="kv_atlas", title=dict(text=title), shapes=shapes, annotations=notes,
        xaxis=dict(visible=False, range=[-0.1, width + 0.1], constrain="domain"),
        yaxis=dict(visible=False, range=[y + 0.1, -0.1], scaleanchor="x", scaleratio=1, constrain="domain"),
        width=int((width + 0.2) * PX) + 20, height=int((y + 0.2) * PX) + top + 20,
        margin=dict(l=10, r=10, t=top, b=10), showlegend=False,
        plot_bgcolor="white", hovermode="closest",
        meta={"captions": list(d.captions)},  # as plain text for a talk deck's speaker notes
    )
    return go.Figure(data=traces, layout=layout)


def _draw_box(b: Box, x, y, w, h, cached_label, shapes, notes, traces):
    fill, line = ROLE_FILL[b.role]
    lw = _row_label_width(b)
    if b.values is not None:  # centre the cells when the label made the slot wider
        x += (w - (b.values.shape[1] * CELL + lw)) / 2
        w = b.values.shape[1] * CELL + lw
    for i, text in enumerate(b.row_labels):
        notes.append(dict(x=x + lw - 0.1, y=y + (i + 0.5) * CELL, text=text, xref="x", yref="y", showarrow=False,
                          xanchor="right", font=dict(size=10, color=MUTED)))
    x, w = x + lw, w - lw
    for j, text in enumerate(b.col_labels):
        notes.append(_text(x + (j + 0.5) * CELL, y + h + 0.03, text, 9, yanchor="top", colour=MUTED))
    shapes.append(dict(type="rect", x0=x, x1=x + w, y0=y, y1=y + h, xref="x", yref="y",
                       fillcolor=fill if b.values is None else "rgba(0,0,0,0)",
                       line=dict(color=line, width=3 if b.cached else 1.4, dash="solid")))
    label = f"<b>{b.label}</b> <span style='font-size:10px'>{shape_label(b.shape)}</span>"
    if b.values is None:
        notes.append(_text(x + w / 2, y + h / 2, f"<b>{b.label}</b><br>{shape_label(b.shape)}", 12))
    else:
        notes.append(_text(x + w / 2, y - 0.05, label, 12, yanchor="bottom"))
        traces.append(_heatmap(b, x, y))
    if b.cached:  # a badge on the top-right corner, outside the box (above a value box's label)
        notes.append(dict(x=x + w, y=y, text=f" {cached_label} ", xref="x", yref="y", xanchor="right",
                          yanchor="bottom", showarrow=False, font=dict(size=10, color="white"), bgcolor=line,
                          yshift=2 if b.values is None else 22))
    if b.note:
        below = 0.3 if b.col_labels else 0.05
        notes.append(_text(x + w / 2, y + h + below, b.note, 10, yanchor="top", colour=MUTED))


def _heatmap(b: Box, x, y) -> dict:
    v = np.asarray(b.values, dtype=float)
    r, c = v.shape
    finite = np.where(np.isfinite(v), v, np.nan)
    text = [list(row) for row in b.cells] if b.cells is not None else [[_cell(val, b.fmt) for val in row] for row in v]
    if b.palette:  # categories: value i gets palette[i]
        n = max(len(b.palette) - 1, 1)
        scale = dict(colorscale=[[i / n, col] for i, col in enumerate(b.palette)], zmin=0, zmax=n)
    else:
        amax = float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 1.0
        scale = dict(colorscale="RdBu", reversescale=True, zmid=0, zmin=-amax or -1, zmax=amax or 1)
    # x0/dx rather than coordinate lists: a single row or column keeps its cell size
    return dict(type="heatmap", z=finite.tolist(), x0=x + CELL / 2, dx=CELL, y0=y + CELL / 2, dy=CELL,
                text=text, texttemplate="%{text}",
                textfont=dict(size=9), showscale=False, xgap=1, ygap=1,
                hovertemplate=f"{b.label}: %{{text}}<extra></extra>", **scale)


def _cell(val: float, fmt: str) -> str:
    if np.isposinf(val):
        return "∞"
    if np.isneginf(val):
        return "−∞"
    text = fmt.format(val)
    if text.startswith("-") and float(text) == 0:  # no "−0.00" for a tiny negative
        text = text[1:]
    return text.replace("-", "−")


def text_width(html: str, size: int = 10) -> float:
    """Approximate width of a label in layout units (tags stripped; Hangul/CJK count double)."""
    plain = re.sub(r"<[^>]+>", "", html)
    wide = sum(1 for ch in plain if ord(ch) >= 0x1100)
    return 0.0105 * size * (len(plain) + wide)


def _op_width(op: Op) -> float:
    """Wide enough for the text over the arrow, at least a glyph's width."""
    return max(OP_W, text_width(op.over) + 0.3)


def _draw_op(op: Op, x, y, notes):
    big = len(op.glyph) <= 2
    notes.append(_text(x, y, op.glyph, 20 if big else 12, colour="#111827"))
    if op.over:
        notes.append(_text(x, y - 0.22, op.over, 10, yanchor="bottom", colour=MUTED))


def _text(x, y, text, size, *, yanchor="middle", colour=None) -> dict:
    return dict(x=x, y=y, text=text, xref="x", yref="y", showarrow=False, xanchor="center", yanchor=yanchor,
                font=dict(size=size, color=colour))


# Categories of a read grid: which kind of row holds a source token.
EMPTY, COMPRESSED, WINDOW, SKIPPED = 0, 1, 2, 3
GRID_PALETTE = ("#ffffff", "#c7dbf7", "#fcdcae", "#e5e7eb")


def read_grid_box(title: str, rows, t_: int, *, skipped=(), names=("C", "w")) -> Box:
    """Rows read at t (compressed entries, then window positions) × source tokens 0…t, each
    cell named after the entry that holds the token; `skipped` rows are complete but unread."""
    all_rows = sorted([*rows, *skipped], key=lambda r: (r.kind != "compressed", r.index))
    grid = np.zeros((len(all_rows), t_ + 1), dtype=int)
    cells = [[""] * (t_ + 1) for _ in all_rows]
    labels = []
    for i, r in enumerate(all_rows):
        kind = SKIPPED if r in skipped else (COMPRESSED if r.kind == "compressed" else WINDOW)
        name = f"{names[0] if r.kind == 'compressed' else names[1]}{r.index}"
        for s in r.sources:
            grid[i, s] = kind
            cells[i][s] = name
        span = f"{min(r.sources)}–{max(r.sources)}" if len(r.sources) > 1 else f"{r.sources[0]}"
        labels.append(f"{name} [{span}]")
    return Box(title, (len(all_rows), t_ + 1), values=grid, cells=tuple(map(tuple, cells)),
               palette=GRID_PALETTE, row_labels=tuple(labels), col_labels=tuple(str(s) for s in range(t_ + 1)))
