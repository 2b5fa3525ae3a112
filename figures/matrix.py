"""The matrix-diagram renderer shared by every mechanism figure.

A diagram is data: lanes of boxes (matrices) and operator glyphs, read left to right,
computed from a mechanism run; `render` draws any diagram the same way. Conventions of
the article: activations have rows = tokens, columns = features; weights are
[input, output]; a box's width shows only the *order* of its column size among the
diagram's boxes (not proportional); learned weights are purple; cached boxes are marked.
A box may carry its values, drawn as a heatmap with the numbers inside.

Drawn natively (an export of the screen figure) a diagram is one column of lanes at fixed
sizes. Drawn for a page column (figures.canvas.Canvas) its text is at least 11 px and its
lanes fit the column (`_choose_column`). Drawn for a slide, it is a layout of its own: text larger relative to the
boxes, cells as wide as their numbers, and lane groups packed in rows, chosen so that the
diagram fills the slide with every text at least the slide's minimum size times its font
scale. `render_alike` lays several diagrams out as one (an animation's steps on one canvas).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from i18n import t

from .canvas import NATIVE, SCREEN_TEXT, SLIDE_TEXT, Canvas, diagram_area, unit
from .contrast import INK, ink_on
from .style import MUTED, ON_FILL, ROLE_COLOURS, heading
from .text import NARROW_EM, text_px, wrap

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
CHAR = 0.0105  # a narrow character's width in layout units, per px of text size (0.46 em at PX)
TEXT_UNITS = CHAR / NARROW_EM  # layout units per px of figures.text's width estimate
PX = 44  # pixels per layout unit
OP_W = 0.9  # width of an operator glyph
ITEM_GAP = 0.25  # space between items in a lane
LANE_GAP = 1.05  # vertical space between lanes (room for labels above boxes)
BLOCK_GAP = 0.8  # between lane groups side by side on a slide
DIVERGING = "RdBu_r"


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


@dataclass(frozen=True)
class TextSizes:
    """How large text is against the boxes. On screen every size is the renderer's own; on a
    slide the smallest sizes are raised to one floor and all text grows by `text`, cells grow to
    hold their numbers, and the spaces made for labels grow with them."""

    text: float = 1.0
    slide: bool = False  # laid out for a canvas (a slide or a page column), not at the renderer's own sizes
    wrap: float | None = None  # layout units a lane may take before it breaks onto another line

    def font(self, size: float) -> float:
        """A text's size: on a slide near the floor, headings a little larger (figures.slide
        raises sub- and superscripts to the floor)."""
        return max(size * SLIDE_FLAT, SLIDE_FLOOR) * self.text if self.slide else size

    def width(self, html: str, size: float) -> float:
        """A label's width in layout units at the renderer's `size` (made a slide's size); on a
        slide narrow characters are estimated more generously (wide ones are not: they are)."""
        if not self.slide:
            return text_width(html, size)
        return TEXT_UNITS * text_px(html, self.font(size), narrow=SLIDE_EM)

    @property
    def grow(self) -> float:  # how much the label lines grew
        return self.font(12) / 12


SCREEN = TextSizes()
SLIDE_FLOOR = 10  # on a slide, the renderer's 9 px cell text is raised to its 10 px labels
SLIDE_FLAT = 0.84  # on a slide, the renderer's labels come near the floor (headings stay a little larger)
SLIDE_EM = 1.15  # slide text is large: narrow characters' widths are estimated more generously
TEXT_STEPS = tuple(0.5 + 0.125 * i for i in range(21))  # text multipliers a slide layout tries
SLIDE_COMFORT = 24  # px: of layouts that fill alike, the one whose smallest text is nearest this
COLUMN_PAD = 10  # px around a diagram on a page
FOLDED_CELL = 0.04  # layout units (under 2 px): a folded box's cells keep at least this


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


def _row_label_width(box: Box, m: TextSizes) -> float:
    pad = 0.2 if not m.slide else 0.2 + 0.5 * m.font(10) / PX  # a label's box is wider than its letters
    return max((m.width(x, 10) for x in box.row_labels), default=-pad) + pad


def _cell_size(box: Box, m: TextSizes) -> tuple[float, float]:
    """(width, height) of one value cell: square on screen; on a slide as wide as its widest
    number and as tall as a line of it; folded into a column, as wide as the column leaves it
    (as tall, or as a row's label)."""
    if not m.slide or box.values is None:
        return CELL, CELL
    if folded(box, m):
        side = max(FOLDED_CELL, min(CELL, (m.wrap - _row_label_width(box, m)) / box.values.shape[1]))
        return side, max(side, 1.5 * m.font(10) / PX if box.row_labels else 0.0)  # a row's label fits its row
    return _numbered_cell(box, m)


def _numbered_cell(box: Box, m: TextSizes) -> tuple[float, float]:
    size = m.font(9)
    widest = max((m.width(s, 9) for s in (*_cell_texts(box), *box.col_labels)), default=0.0)
    return max(CELL, widest + 0.4 * size / PX), max(CELL, 1.5 * size / PX)


def folded(box: Box, m: TextSizes) -> bool:
    """Whether a value box's numbers are too wide for the column it is laid out for: its cells then
    show their colours alone (a tap shows a value), and the diagram's caption says so."""
    if m.wrap is None or box.values is None:
        return False
    return box.values.shape[1] * _numbered_cell(box, m)[0] + _row_label_width(box, m) > m.wrap


def _size(box: Box, col_rank: dict, row_rank: dict, m: TextSizes) -> tuple[float, float]:
    if box.values is not None:
        r, c = box.values.shape
        cw, ch = _cell_size(box, m)
        label = m.width(box.label, 12) + m.width(shape_label(box.shape), 10)
        if m.slide:  # the bold name, a space, and a note under the box as wide as it
            label = max([_value_label_width(box, m), *(m.width(line, 10) for line in _note_lines(box, m))])
        return max(c * cw + _row_label_width(box, m), label), r * ch
    # the rank sets the width; a long name or shape widens the box so its text stays inside
    fit = max(m.width(box.label, 13.5), m.width(shape_label(box.shape), 12)) + 0.3  # the name is bold
    lines = 2 * 1.3 * m.font(12) / PX + 0.2  # the two lines inside: name over shape
    if m.slide:  # a note under the box as wide as it
        fit = max([fit, *(m.width(line, 10) for line in _note_lines(box, m))])
    ranked = 1.2 + 0.38 * col_rank[box.shape[1]]
    if m.wrap is not None:  # in a column, the largest ranks take at most its width
        ranked = min(ranked, m.wrap)
    return max(ranked, fit), max(1.0 + 0.3 * row_rank[box.shape[0]], lines)


def _value_label(b: Box, m: TextSizes) -> list[str]:
    """The lines over a value box: its bold name and its shape; in a column too narrow for them on
    one line, the name (broken at spaces where it must) over the shape."""
    name, shape = f"<b>{b.label}</b>", f"<span style='font-size:{m.font(10):g}px'>{shape_label(b.shape)}</span>"
    if m.wrap is None or m.width(f"{name} ", 13.5) + m.width(shape_label(b.shape), 10) <= m.wrap:
        return [f"{name} {shape}"]
    return [f"<b>{line}</b>" for line in wrap(b.label, m.wrap, lambda s: m.width(f"<b>{s}</b>", 13.5))] + [shape]


def _value_label_width(b: Box, m: TextSizes) -> float:
    """How wide the lines over a value box are: the bold name at its size, the shape at its own."""
    lines = _value_label(b, m)
    if len(lines) == 1:  # the name and, after a space, the shape
        return m.width(f"{b.label} ", 13.5) + m.width(shape_label(b.shape), 10)
    return max([*(m.width(line, 13.5) for line in lines[:-1]), m.width(shape_label(b.shape), 10)])


def _note_lines(b: Box, m: TextSizes) -> list[str]:
    """The note under a box, broken to the column it is laid out for."""
    if not b.note or m.wrap is None:
        return [b.note] if b.note else []
    return wrap(b.note, m.wrap, lambda s: m.width(s, 10))


class _Drawing:
    """What a diagram draws, in layout units: shapes, annotations and traces (none where it is
    only measured: the cells' colours cost most of a layout and do not change its size)."""

    def __init__(self, measured: bool = False):
        self.shapes, self.notes, self.traces, self.measured = [], [], [], measured


def _blocks(d: Diagram) -> list[list[int]]:
    """Lane indices grouped: a labelled lane and the unlabelled lanes that follow it."""
    groups: list[list[int]] = []
    for i in range(len(d.lanes)):
        label = d.lane_labels[i] if i < len(d.lane_labels) else ""
        if label or not groups:
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


def _draw_block(d: Diagram, lanes: list[int], x0: float, y0: float, ranks, m: TextSizes, out: _Drawing):
    """Draw lanes from (x0, y0); returns the block's (width, height)."""
    y, right = y0, x0
    placed: dict[str, float] = {}  # box label -> x in the lane above
    for lane, sizes, label, first in _lines(d, lanes, ranks, m):
        height = max(h for _, h in sizes)
        lines = _label_lines(label, m)
        if not m.slide:
            centre = y + LANE_GAP + (0.45 if label else 0) + height / 2
        else:  # on a slide, room for exactly what sits over the boxes: the lane's label, boxes' labels and badges
            over = max([*(_over(it, m) - (height - h) / 2 for it, (_, h) in zip(lane, sizes) if isinstance(it, Box)),
                        *(_op_reach(it, m) - height / 2 for it in lane if m.wrap is not None and isinstance(it, Op))],
                       default=0.0)
            above = 0.3 + sum(_line(line, 12, m) for line in lines) if label else 0
            centre = y + above + max(over, 0) + 0.15 * m.grow + height / 2
        # an unlabelled lane that starts from a box of the lane above continues under it (where it fits)
        x = placed.get(lane[0].label, x0) if isinstance(lane[0], Box) and not label and first else x0
        if m.wrap is not None and x - x0 + sum(w for w, _ in sizes) + ITEM_GAP * (len(sizes) - 1) > m.wrap:
            x = x0
        placed = {}
        for it, (w, h) in zip(lane, sizes):
            if isinstance(it, Box):
                _draw_box(it, x, centre - h / 2, w, h, t("mx.cached", d.lang), m, out)
                placed.setdefault(it.label, x)
            else:
                _draw_op(it, x + w / 2, centre, m, out)
            x += w + ITEM_GAP
        if label:
            out.notes.append(dict(x=x0, y=y + 0.2, text="<br>".join(f"<b>{line}</b>" for line in lines),
                                  xanchor="left", yanchor="top", align="left", showarrow=False,
                                  font=dict(size=m.font(12), color=MUTED), xref="x", yref="y"))
            right = max(right, x0 + max(m.width(f"<b>{line}</b>", 13.5) for line in lines))
        right = max(right, x)
        notes = any(isinstance(it, Box) and it.note for it in lane)
        y = centre + height / 2 + ((0.55 if notes else 0.15) * m.grow)
        if m.slide:  # room for what hangs under each box: column labels, then its note
            y = max([y, *(centre + h / 2 + _under(it, m) + 0.15 * m.grow
                          for it, (_, h) in zip(lane, sizes) if isinstance(it, Box))])
    return right - x0, y - y0


def _label_lines(label: str, m: TextSizes) -> list[str]:
    """A lane's label, broken to the column it is laid out for (one line elsewhere)."""
    if not label or m.wrap is None:
        return [label]
    return wrap(label, m.wrap, lambda line: m.width(f"<b>{line}</b>", 13.5))


def _lines(d: Diagram, lanes: list[int], ranks, m: TextSizes):
    """(items, their sizes, label, whether it starts its lane) for each line the lanes take: a lane
    wider than `m.wrap` breaks after the last operator that keeps a line within it (or between
    any two items where no operator does), its label on its first line only."""
    col_rank, row_rank = ranks
    for li in lanes:
        lane = d.lanes[li]
        sizes = [_size(it, col_rank, row_rank, m) if isinstance(it, Box) else (_op_width(it, m), _op_height(it, m))
                 for it in lane]
        label = d.lane_labels[li] if li < len(d.lane_labels) else ""
        start, first = 0, True
        for end in _breaks([w for w, _ in sizes], lane, m.wrap):
            yield lane[start:end], sizes[start:end], label if first else "", first
            start, first = end, False


def _breaks(widths: list[float], lane, wrap: float | None) -> list[int]:
    """Where a lane's lines end (exclusive indices), each within `wrap` layout units."""
    if wrap is None or sum(widths) + ITEM_GAP * (len(widths) - 1) <= wrap:
        return [len(widths)]
    ends, start = [], 0
    while start < len(widths):
        used, end, at_op = 0.0, start, None
        while end < len(widths) and (end == start or used + ITEM_GAP + widths[end] <= wrap):
            used += widths[end] + (ITEM_GAP if end > start else 0)
            end += 1
            if isinstance(lane[end - 1], Op) and end < len(widths):
                at_op = end
        if end < len(widths) and at_op is not None and at_op > start + 1:
            end = at_op  # end the line on an operator: the next line continues the expression
        ends.append(end)
        start = end
    return ends


def _over(b: Box, m: TextSizes) -> float:
    """How far a box's label (a value box's) and its cached badge reach above it, in layout units."""
    label = 0.05 + sum(_line(line, 12, m) for line in _value_label(b, m)) if b.values is not None else 0.0
    return label + (2 / PX + _line("", 10, m) if b.cached else 0.0)


def _badge_shift(b: Box, m: TextSizes) -> float:
    """px from a box's top to its cached badge: just above it, or above a value box's label."""
    if b.values is None:
        return 2
    return 22 if not m.slide else (0.05 + sum(_line(line, 12, m) for line in _value_label(b, m))) * PX + 2


def _line(text: str, size: float, m: TextSizes) -> float:
    """A slide's line of `text` at the renderer's `size`, in layout units: raised or lowered
    scripts (at their floor, figures.slide) make it taller."""
    return 1.35 * m.font(size) / PX * (1.4 if "<su" in text else 1)


def _under(b: Box, m: TextSizes) -> float:
    """How far a box's column labels and note reach below it, in layout units."""
    drawn = _col_labels(b, m)
    cols = 0.03 + 1.3 * m.font(9) / PX if drawn else 0.0
    if not b.note:
        return cols
    lines = sum(_line(line, 10, m) for line in _note_lines(b, m)) if m.wrap is not None else 1.3 * m.font(10) / PX
    return max(cols, (0.3 if drawn else 0.05) * m.grow + lines)


def _col_labels(b: Box, m: TextSizes) -> tuple[str, ...]:
    """The labels drawn under a box's columns (none where its cells are folded)."""
    return () if folded(b, m) else b.col_labels


def _pack(widths: list[float], wrap: float) -> list[list[int]]:
    """Blocks in reading order, as many to a row as fit `wrap` wide."""
    rows: list[list[int]] = [[]]
    used = 0.0
    for i, w in enumerate(widths):
        if rows[-1] and used + BLOCK_GAP + w > wrap + 1e-9:
            rows.append([])
            used = 0.0
        used += (BLOCK_GAP if rows[-1] else 0) + w
        rows[-1].append(i)
    return rows


def _captions(d: Diagram, m: TextSizes, width: float | None) -> list[str]:
    """The captions, each broken into lines no wider than `width` (None: one line each), after a
    line that names the boxes whose numbers the column folded."""
    names = [b.label for lane in d.lanes for b in lane if isinstance(b, Box) and folded(b, m) and any(_cell_texts(b))]
    captions = [*d.captions, t("mx.folded", d.lang, boxes=", ".join(dict.fromkeys(names)))] if names else d.captions
    if not width:
        return list(captions)
    least = 8.0 if m.wrap is None else min(8.0, m.wrap)
    return ["<br>".join(wrap(c, max(width, least), lambda line: m.width(line, 12))) for c in captions]


def _caption_step(text: str, m: TextSizes) -> float:
    """A caption line's height; on a slide, a line with raised or lowered scripts needs more."""
    return 0.45 * m.grow * (1.4 if m.slide and "<su" in text else 1)


Rows = tuple[tuple[int, ...], ...]  # lane groups, by index, row by row


def _packings(sizes) -> set[Rows]:
    """Every way of packing lane groups in reading order into rows as wide as some run of them."""
    widths = [w for w, _ in sizes]
    wraps = {sum(widths[i:j]) + BLOCK_GAP * (j - i - 1) for i in range(len(widths))
             for j in range(i + 1, len(widths) + 1)}
    return {tuple(map(tuple, _pack(widths, w))) for w in wraps}


def _rows_extent(sizes, rows: Rows) -> tuple[float, float]:
    """The width and height of lane groups (their sizes) in these rows."""
    width = max(sum(sizes[i][0] for i in row) + BLOCK_GAP * (len(row) - 1) for row in rows)
    return width, sum(max(sizes[i][1] for i in row) for row in rows)


def _layout(d: Diagram, m: TextSizes, rows: Rows | None, ranks) -> tuple[_Drawing, float, float]:
    """Draw the diagram: lane groups in `rows` (None: one column, the screen's), captions under
    them (on a slide broken to the rows' width); returns the drawing and its width and height in
    layout units."""
    blocks = _blocks(d)
    sizes = [_draw_block(d, b, 0, 0, ranks, m, _Drawing(measured=True)) for b in blocks]
    wrapped = rows is not None
    rows = rows if wrapped else tuple((i,) for i in range(len(blocks)))
    width, _ = _rows_extent(sizes, rows)
    out, y = _Drawing(), 0.0
    for row in rows:
        x = 0.0
        for i in row:
            _draw_block(d, blocks[i], x, y, ranks, m, out)
            x += sizes[i][0] + BLOCK_GAP
        y += max(sizes[i][1] for i in row)
    at = y + 0.35 * m.grow
    captions = _captions(d, m, (m.wrap or width) if wrapped else None)
    for text in captions:
        out.notes.append(dict(x=0, y=at, text=text, xanchor="left", yanchor="top", showarrow=False, align="left",
                              font=dict(size=m.font(12), color=MUTED), xref="x", yref="y"))
        lines = text.split("<br>")
        width = max(width, *(m.width(line, 12) for line in lines))
        at += _caption_step(text, m) * len(lines)
    return out, width, at + (0.05 * m.grow if captions else -0.35 * m.grow)


def render(d: Diagram, canvas: Canvas = NATIVE) -> go.Figure:
    """The diagram drawn for the canvas: natively one column of lanes at the renderer's own sizes;
    for a page column or a slide, laid out for it."""
    return render_alike([d], canvas)[0]


def render_alike(ds: Sequence[Diagram], canvas: Canvas = NATIVE) -> list[go.Figure]:
    """Each diagram drawn for the canvas, laid out alike: on a slide or a page column one text size
    and one packing of lane groups chosen for all of them at once, as if one diagram were the
    largest of each (an animation's steps on a canvas that holds every step). A diagram whose lane
    groups differ in number from the others' gets a layout of its own."""
    if not ds or not (canvas.slide or canvas.column):
        return [_native(d) for d in ds]
    layout = _canvas_layout(ds, canvas)
    out = []
    for d in ds:
        own = layout if sum(map(len, layout.rows)) == len(_blocks(d)) else _canvas_layout([d], canvas)
        out.append(_slide_figure(d, own) if canvas.slide else _column_figure(d, own, canvas.column))
    return out


def _canvas_layout(ds: Sequence[Diagram], canvas: Canvas) -> SlideLayout:
    return _choose(ds, canvas.slide, canvas.font_scale) if canvas.slide else _choose_column(ds, canvas.column)


def _native(d: Diagram) -> go.Figure:
    ranks = _diagram_ranks(d)
    out, width, y = _layout(d, SCREEN, None, ranks)
    top = _top(d)
    for c in (*d.captions, d.subtitle):  # captions and the subtitle may be wider than the lanes
        width = max(width, text_width(c, 12))
    width = max(width, text_width(d.title, 17))
    return _figure(d, out, width, y, top)


def _diagram_ranks(d: Diagram) -> tuple[dict, dict]:
    """The ranks of the diagram's column and row sizes (a box's width and height show them)."""
    boxes = [it for lane in d.lanes for it in lane if isinstance(it, Box)]
    return _ranks([b.shape[1] for b in boxes], d.size_order), _ranks([b.shape[0] for b in boxes], d.size_order)


def _title(d: Diagram) -> str:
    return heading(d.title, d.subtitle)["text"]


def _figure(d: Diagram, out: _Drawing, width: float, y: float, top: int, pad: int = 10) -> go.Figure:
    layout = dict(
        template="kv_atlas", title=heading(d.title, d.subtitle), shapes=out.shapes, annotations=out.notes,
        xaxis=dict(visible=False, range=[-0.1, width + 0.1], constrain="domain"),
        yaxis=dict(visible=False, range=[y + 0.1, -0.1], scaleanchor="x", scaleratio=1, constrain="domain"),
        width=int((width + 0.2) * PX) + 2 * pad, height=int((y + 0.2) * PX) + top + 2 * pad,
        margin=dict(l=pad, r=pad, t=top, b=pad), showlegend=False,
        plot_bgcolor="white", hovermode="closest",
        meta={"captions": list(d.captions)},  # as plain text for a talk deck's speaker notes
    )
    return go.Figure(data=out.traces, layout=layout)


@dataclass(frozen=True)
class SlideLayout:
    """How a diagram is laid out on a slide: its text against its boxes, and its lane groups' rows."""

    metrics: TextSizes
    rows: Rows


def _slide_figure(d: Diagram, layout: SlideLayout) -> go.Figure:
    out, w, h = _layout(d, layout.metrics, layout.rows, _diagram_ranks(d))
    return _figure(d, out, w, h, top=0, pad=0)


def _choose(ds: Sequence[Diagram], slide: tuple[int, int], scale: float) -> SlideLayout:
    """The slide layout of the diagrams `ds` (one, or an animation's steps): of the text sizes and
    packings tried, one whose smallest text, once the canvas that holds every diagram is scaled
    into the slide's drawing area, is at least the slide's minimum (times its font scale); of
    those, the one that fills the area best (then the one whose smallest text is nearest a
    comfortable size); where none reaches the minimum, the one with the largest smallest text; every
    text `scale` times the slide's sizes."""
    area_w = diagram_area(*slide, _title(ds[0]), scale)[0]
    area_h = min(diagram_area(*slide, _title(d), scale)[1] for d in ds)  # under the tallest title
    u = unit(slide[1])
    ranks = [_diagram_ranks(d) for d in ds]
    best = None
    for text in TEXT_STEPS:
        m = TextSizes(text * scale, slide=True)
        sizes = [[_draw_block(d, b, 0, 0, r, m, _Drawing(measured=True)) for b in _blocks(d)]
                 for d, r in zip(ds, ranks)]
        for rows in sorted(set().union(*map(_packings, sizes))):
            extents = [_extent(d, s, rows, m) for d, s in zip(ds, sizes)]
            w, h = max(w for w, _ in extents), max(h for _, h in extents)
            g = min(area_w / ((w + 0.2) * PX), area_h / ((h + 0.2) * PX))  # the drawing's scale on the slide
            smallest = m.font(9) * g
            fill = w * h * (g * PX) ** 2 / (area_w * area_h)
            ok = smallest >= SLIDE_TEXT * u * scale * 1.04  # a little to spare: the estimates are estimates
            # fill to 5 %, then the smallest text nearest a comfortable size
            key = (ok, round(fill * 20) if ok else smallest, -abs(smallest - SLIDE_COMFORT * u * scale))
            if best is None or key > best[0]:
                best = (key, SlideLayout(m, rows))
    return best[1]


def _choose_column(ds: Sequence[Diagram], width: int) -> SlideLayout:
    """The layout of the diagrams `ds` (one, or an animation's steps) for a page column `width` px
    wide, drawn at the renderer's own scale (PX px a unit): every text at least SCREEN_TEXT px,
    lane groups packed into as few rows as fit the width, a lane too wide for it broken into lines."""
    text = next(x for x in TEXT_STEPS if TextSizes(x, slide=True).font(9) >= SCREEN_TEXT)
    room = _column_room(width)
    m = TextSizes(text, slide=True, wrap=room - ITEM_GAP)  # a lane's width counts a gap after its last item
    each = [[_draw_block(d, b, 0, 0, _diagram_ranks(d), m, _Drawing(measured=True))[0] for b in _blocks(d)]
            for d in ds]  # an animation's steps may differ in their lane groups: the widest of each
    widths = [max(w[i] for w in each if i < len(w)) for i in range(max(map(len, each)))]
    return SlideLayout(m, tuple(map(tuple, _pack(widths, room))))


def _column_figure(d: Diagram, layout: SlideLayout, width: int) -> go.Figure:
    """The diagram for a page column: its own drawing, as wide as its content (its title, broken to
    the column by figures.screen, widens it up to the column)."""
    out, w, h = _layout(d, layout.metrics, layout.rows, _diagram_ranks(d))
    title = max(text_width(d.title, 17), text_width(d.subtitle, 12))
    w = max(w, min(title, _column_room(width)))
    return _figure(d, out, w, h, top=_top(d), pad=COLUMN_PAD)


def _column_room(width: int) -> float:
    """The drawing's room in a page column `width` px wide, in units."""
    return (width - 2 * COLUMN_PAD) / PX - 0.2


def _top(d: Diagram) -> int:
    """px over the drawing for the title (and its subtitle)."""
    return 70 if not d.subtitle else 85


def _extent(d: Diagram, sizes, rows: Rows, m: TextSizes) -> tuple[float, float]:
    """The width and height `_layout` gives the diagram in these rows, captions included."""
    w, h = _rows_extent(sizes, rows)
    caps = _captions(d, m, w)
    lines = [line for c in caps for line in c.split("<br>")]
    w = max(w, *(m.width(line, 12) for line in lines)) if lines else w
    h += sum(_caption_step(c, m) * (c.count("<br>") + 1) for c in caps) + 0.4 * m.grow if caps else 0
    return w, h


def _draw_box(b: Box, x, y, w, h, cached_label, m: TextSizes, out: _Drawing):
    fill, line = ROLE_FILL[b.role]
    lw = _row_label_width(b, m)
    cw, ch = _cell_size(b, m)
    if b.values is not None:  # centre the cells when the label made the slot wider
        x += (w - (b.values.shape[1] * cw + lw)) / 2
        w = b.values.shape[1] * cw + lw
    for i, text in enumerate(b.row_labels):
        out.notes.append(dict(x=x + lw - 0.1, y=y + (i + 0.5) * ch, text=text, xref="x", yref="y", showarrow=False,
                              xanchor="right", font=dict(size=m.font(10), color=MUTED)))
    x, w = x + lw, w - lw
    for j, text in enumerate(_col_labels(b, m)):
        out.notes.append(_text(x + (j + 0.5) * cw, y + h + 0.03, text, m.font(9), yanchor="top", colour=MUTED))
    out.shapes.append(dict(type="rect", x0=x, x1=x + w, y0=y, y1=y + h, xref="x", yref="y",
                           fillcolor=fill if b.values is None else "rgba(0,0,0,0)",
                           line=dict(color=line, width=3 if b.cached else 1.4, dash="solid")))
    if b.values is None:  # dark ink on the box's light fill, in every look
        out.notes.append(_text(x + w / 2, y + h / 2, f"<b>{b.label}</b><br>{shape_label(b.shape)}",
                               m.font(12),
                               colour=ink_on(fill), on_fill=True))
    else:
        out.notes.append(_text(x + w / 2, y - 0.05, "<br>".join(_value_label(b, m)), m.font(12), yanchor="bottom"))
        out.traces += [] if out.measured else _heatmap(b, x, y, cw, ch, m)
    if b.cached:  # a badge on the top-right corner, outside the box (above a value box's label)
        out.notes.append(dict(x=x + w, y=y, text=f" {cached_label} ", xref="x", yref="y", xanchor="right",
                              yanchor="bottom", showarrow=False, font=dict(size=m.font(10), color=ink_on(line)),
                              bgcolor=line, name=ON_FILL, yshift=_badge_shift(b, m)))
    if b.note:
        below = (0.3 if _col_labels(b, m) else 0.05) * m.grow
        out.notes.append(_text(x + w / 2, y + h + below, "<br>".join(_note_lines(b, m)), m.font(10), yanchor="top",
                               colour=MUTED))


def _cell_texts(b: Box) -> list[str]:
    if b.cells is not None:
        return [str(s) for row in b.cells for s in row]
    return [_cell(v, b.fmt) for v in np.asarray(b.values, dtype=float).ravel()]


def _heatmap(b: Box, x, y, cw, ch, m: TextSizes) -> list[dict]:
    """The cells as a heatmap (colour and hover) and their numbers as a text trace, each in
    the ink that reads on its own cell."""
    v = np.asarray(b.values, dtype=float)
    r, c = v.shape
    finite = np.where(np.isfinite(v), v, np.nan)
    text = [list(row) for row in b.cells] if b.cells is not None else [[_cell(val, b.fmt) for val in row] for row in v]
    if b.palette:  # categories: value i gets palette[i]
        n = max(len(b.palette) - 1, 1)
        scale = dict(colorscale=[[i / n, col] for i, col in enumerate(b.palette)], zmin=0, zmax=n)
    else:
        amax = float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else 1.0
        scale = dict(colorscale=pc.get_colorscale(DIVERGING), zmin=-amax or -1, zmax=amax or 1)
    # x0/dx rather than coordinate lists: a single row or column keeps its cell size
    heat = dict(type="heatmap", z=finite.tolist(), x0=x + cw / 2, dx=cw, y0=y + ch / 2, dy=ch, text=text,
                showscale=False, xgap=1, ygap=1, hovertemplate=f"{b.label}: %{{text}}<extra></extra>", **scale)
    if folded(b, m):  # its numbers as colours only: a tap shows a value
        return [heat]
    fills = _cell_colours(finite, scale)
    on, off = [], []  # cells with a colour; cells drawn empty (±∞) show the page
    for i in range(r):
        for j in range(c):
            if text[i][j] != "":
                (on if fills[i][j] else off).append((x + (j + 0.5) * cw, y + (i + 0.5) * ch, text[i][j],
                                                     ink_on(fills[i][j]) if fills[i][j] else None))
    return [heat, *(_cell_text(points, m.font(9), fill) for points, fill in ((on, True), (off, False)) if points)]


def _cell_colours(z: np.ndarray, scale: dict) -> list[list[str | None]]:
    """The colour plotly paints each cell (None where it paints none), from the same scale."""
    lo, hi = scale["zmin"], scale["zmax"]
    colours = scale["colorscale"]
    out = []
    for row in z:
        fractions = [min(max((v - lo) / (hi - lo), 0.0), 1.0) for v in row]
        sampled = pc.sample_colorscale(colours, [0.0 if np.isnan(f) else f for f in fractions])
        out.append([None if np.isnan(v) else s for v, s in zip(row, sampled)])
    return out


def _cell_text(points, size: float, on_fill: bool) -> dict:
    xs, ys, texts, inks = zip(*points)
    return dict(type="scatter", mode="text", x=list(xs), y=list(ys), text=list(texts), hoverinfo="skip",
                textfont=dict(size=size, color=list(inks) if on_fill else None), showlegend=False,
                meta=ON_FILL if on_fill else None)


def _cell(val: float, fmt: str) -> str:
    if np.isposinf(val):
        return "∞"
    if np.isneginf(val):
        return "−∞"
    text = fmt.format(val)
    if text.startswith("-") and float(text) == 0:  # no "−0.00" for a tiny negative
        text = text[1:]
    return text.replace("-", "−")


def text_width(html: str, size: float = 10) -> float:
    """Approximate width of a label in layout units."""
    return TEXT_UNITS * text_px(html, size)


def _op_width(op: Op, m: TextSizes) -> float:
    """Wide enough for the text over the arrow, at least a glyph's width (in a column, just its
    glyph's: an operator kept on its line is worth more than the space around it)."""
    if m.wrap is None:
        return max(OP_W * m.grow, m.width(op.over, 10) + 0.3)
    glyph = m.width(op.glyph, _glyph_size(op))
    return max(glyph + 0.35, m.width(op.over, 10) + 0.6)  # clear of the boxes' labels beside it


def _op_height(op: Op, m: TextSizes) -> float:
    """How tall a line holds an operator: nothing elsewhere (it sits between boxes); in a column, its
    glyph's line (a broken lane's line may hold no box taller than the glyph)."""
    return 0.0 if m.wrap is None else 1.4 * m.font(_glyph_size(op)) / PX


def _op_reach(op: Op, m: TextSizes) -> float:
    """How far the text over an operator's arrow reaches above its centre (a broken lane's line may
    hold no box that tall)."""
    return 0.6 * m.font(20) / PX + _line(op.over, 10, m) if op.over else 0.0


def _glyph_size(op: Op) -> int:
    """An operator's glyph size: a sign (×, →) large, a word smaller."""
    return 20 if len(op.glyph) <= 2 else 12


def _draw_op(op: Op, x, y, m: TextSizes, out: _Drawing):
    out.notes.append(_text(x, y, op.glyph, m.font(_glyph_size(op)), colour=INK))
    if op.over:
        above = 0.22 * m.grow if not m.slide else 0.6 * m.font(20) / PX  # clear of the glyph's line
        out.notes.append(_text(x, y - above, op.over, m.font(10), yanchor="bottom", colour=MUTED))


def _text(x, y, text, size, *, yanchor="middle", colour=None, on_fill=False) -> dict:
    note = dict(x=x, y=y, text=text, xref="x", yref="y", showarrow=False, xanchor="center", yanchor=yanchor,
                font=dict(size=size, color=colour))
    return {**note, "name": ON_FILL} if on_fill else note
