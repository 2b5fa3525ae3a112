"""How large a diagram's parts are, in layout units (PX px each): boxes, cells, labels, operators,
lines of a lane broken to a width, lane groups packed into rows. Pure functions of a diagram and
its text sizes (`TextSizes`): no drawing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from i18n import t

from ..text import scripts_at_least, text_px, wrap
from .model import Box, Diagram, Op, shape_label

CELL = 0.62  # size of one value cell, in layout units
PX = 44  # pixels per layout unit
OP_W = 0.9  # width of an operator glyph
ITEM_GAP = 0.25  # space between items in a lane
LANE_GAP = 1.05  # vertical space between lanes (room for labels above boxes)
BLOCK_GAP = 0.8  # between lane groups side by side on a slide


@dataclass(frozen=True)
class TextSizes:
    """How large text is against the boxes. On screen every size is the renderer's own; on a
    slide the smallest sizes are raised to one floor and all text grows by `text`, cells grow to
    hold their numbers, and the spaces made for labels grow with them."""

    text: float = 1.0
    slide: bool = False  # laid out for a canvas (a slide or a page column), not at the renderer's own sizes
    wrap: float | None = None  # layout units a lane may take before it breaks onto another line

    def font(self, size: float) -> float:
        """A text's size: on a slide near the floor, headings a little larger (figures.layout.slide
        raises sub- and superscripts to the floor)."""
        return max(size * SLIDE_FLAT, SLIDE_FLOOR) * self.text if self.slide else size

    def width(self, html: str, size: float) -> float:
        """A label's width in layout units at the renderer's `size` (made a slide's size); in a column,
        with its sub- and superscripts raised to the smallest text, as the screen pass draws them."""
        if self.slide and self.wrap is not None:
            html = scripts_at_least(html, self.font(size), self.font(9))
        return text_width(html, self.font(size))

    @property
    def grow(self) -> float:  # how much the label lines grew
        return self.font(12) / 12


SCREEN = TextSizes()
SLIDE_FLOOR = 10  # on a slide, the renderer's 9 px cell text is raised to its 10 px labels
SLIDE_FLAT = 0.84  # on a slide, the renderer's labels come near the floor (headings stay a little larger)
COLUMN_PAD = 10  # px around a diagram on a page
FOLDED_CELL = 0.04  # layout units (under 2 px): a folded box's cells keep at least this


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


def row_label_width(box: Box, m: TextSizes) -> float:
    pad = 0.2 if not m.slide else 0.2 + 0.5 * m.font(10) / PX  # a label's box is wider than its letters
    return max((m.width(x, 10) for x in box.row_labels), default=-pad) + pad


def cell_size(box: Box, m: TextSizes) -> tuple[float, float]:
    """(width, height) of one value cell: square on screen; on a slide as wide as its widest
    number and as tall as a line of it; folded into a column, as wide as the column leaves it
    (as tall, or as a row's label)."""
    if not m.slide or box.values is None:
        return CELL, CELL
    if folded(box, m):
        side = max(FOLDED_CELL, min(CELL, (m.wrap - row_label_width(box, m)) / box.values.shape[1]))
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
    return box.values.shape[1] * _numbered_cell(box, m)[0] + row_label_width(box, m) > m.wrap


def _size(box: Box, col_rank: dict, row_rank: dict, m: TextSizes) -> tuple[float, float]:
    if box.values is not None:
        left, right = value_extent(box, m)
        return right - left, box.values.shape[0] * cell_size(box, m)[1]
    # the rank sets the width; a long name or shape widens the box so its text stays inside
    names = name_lines(box, m)
    fit = max([*(m.width(f"<b>{line}</b>", 12) for line in names), m.width(shape_label(box.shape), 12)]) + 0.3
    lines = (len(names) + 1) * 1.3 * m.font(12) / PX + 0.2  # the lines inside: name (broken in a column) over shape
    if m.slide:  # a note under the box as wide as it
        fit = max([fit, *(m.width(line, 10) for line in note_lines(box, m))])
    ranked = 1.2 + 0.38 * col_rank[box.shape[1]]
    if m.wrap is not None:  # in a column, the largest ranks take at most its width
        ranked = min(ranked, m.wrap)
    return max(ranked, fit), max(1.0 + 0.3 * row_rank[box.shape[0]], lines)


def name_lines(box: Box, m: TextSizes) -> list[str]:
    """The name inside a box: one line, or in a column too narrow for it, broken at spaces."""
    if m.wrap is None or m.width(f"<b>{box.label}</b>", 12) + 0.3 <= m.wrap:
        return [box.label]
    return wrap(box.label, m.wrap - 0.3, lambda s: m.width(f"<b>{s}</b>", 12))


def value_extent(box: Box, m: TextSizes) -> tuple[float, float]:
    """How far a value box reaches left and right of its row labels' left edge, in layout units:
    its row labels and cells, and what is centred on the cells: the label over them (on a slide
    also the note under them), which may reach past either side."""
    lw = row_label_width(box, m)
    cells = box.values.shape[1] * cell_size(box, m)[0]
    half = _half_label(box, m)
    centre = label_centre(box, m)
    return min(0.0, centre - half), max(lw + cells, centre + half)


def _half_label(box: Box, m: TextSizes) -> float:
    notes = note_lines(box, m) if m.slide else []
    return max([_value_label_width(box, m), *(m.width(line, 10) for line in notes)]) / 2


def label_centre(box: Box, m: TextSizes) -> float:
    """Where the label over a value box (and its note) is centred, right of its row labels' left edge:
    over its cells; in a column, moved as little as keeps it within the column's width."""
    lw = row_label_width(box, m)
    cells = box.values.shape[1] * cell_size(box, m)[0]
    centre = lw + cells / 2
    if m.wrap is None:
        return centre
    half = _half_label(box, m)
    right = max(lw + cells, m.wrap)
    return min(max(centre, half), right - half) if 2 * half <= right else centre


def value_label(b: Box, m: TextSizes) -> list[str]:
    """The lines over a value box: its bold name and its shape; in a column too narrow for them on
    one line, the name (broken at spaces where it must) over the shape."""
    name, shape = f"<b>{b.label}</b>", f"<span style='font-size:{m.font(10):g}px'>{shape_label(b.shape)}</span>"
    if m.wrap is None or m.width(f"{name} ", 12) + m.width(shape_label(b.shape), 10) <= m.wrap:
        return [f"{name} {shape}"]
    return [f"<b>{line}</b>" for line in wrap(b.label, m.wrap, lambda s: m.width(f"<b>{s}</b>", 12))] + [shape]


def _value_label_width(b: Box, m: TextSizes) -> float:
    """How wide the lines over a value box are: the bold name at its size, the shape at its own."""
    lines = value_label(b, m)
    if len(lines) == 1:  # the name and, after a space, the shape
        return m.width(f"<b>{b.label}</b> ", 12) + m.width(shape_label(b.shape), 10)
    return max([*(m.width(line, 12) for line in lines[:-1]), m.width(shape_label(b.shape), 10)])


def note_lines(b: Box, m: TextSizes) -> list[str]:
    """The note under a box, broken to the column it is laid out for."""
    if not b.note or m.wrap is None:
        return [b.note] if b.note else []
    return wrap(b.note, m.wrap, lambda s: m.width(s, 10))


def lane_groups(d: Diagram) -> list[list[int]]:
    """Lane indices grouped: a labelled lane and the unlabelled lanes that follow it."""
    groups: list[list[int]] = []
    for i in range(len(d.lanes)):
        label = d.lane_labels[i] if i < len(d.lane_labels) else ""
        if label or not groups:
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


def label_lines(label: str, m: TextSizes) -> list[str]:
    """A lane's label, broken to the column it is laid out for (one line elsewhere)."""
    if not label or m.wrap is None:
        return [label]
    return wrap(label, m.wrap, lambda line: m.width(f"<b>{line}</b>", 12))


def lane_lines(d: Diagram, lanes: list[int], ranks, m: TextSizes):
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


def reach_over(b: Box, m: TextSizes) -> float:
    """How far a box's label (a value box's) and its cached badge reach above it, in layout units."""
    label = 0.05 + sum(line_height(line, 12, m) for line in value_label(b, m)) if b.values is not None else 0.0
    return label + (2 / PX + line_height("", 10, m) if b.cached else 0.0)


def badge_shift(b: Box, m: TextSizes) -> float:
    """px from a box's top to its cached badge: just above it, or above a value box's label."""
    if b.values is None:
        return 2
    return 22 if not m.slide else (0.05 + sum(line_height(line, 12, m) for line in value_label(b, m))) * PX + 2


def line_height(text: str, size: float, m: TextSizes) -> float:
    """A slide's line of `text` at the renderer's `size`, in layout units: raised or lowered
    scripts (at their floor, figures.layout.slide) make it taller."""
    return 1.35 * m.font(size) / PX * (1.4 if "<su" in text else 1)


def reach_under(b: Box, m: TextSizes) -> float:
    """How far a box's column labels and note reach below it, in layout units."""
    drawn = drawn_col_labels(b, m)
    cols = 0.03 + 1.3 * m.font(9) / PX if drawn else 0.0
    if not b.note:
        return cols
    lines = sum(line_height(line, 10, m) for line in note_lines(b, m)) if m.wrap is not None else 1.3 * m.font(10) / PX
    return max(cols, (0.3 if drawn else 0.05) * m.grow + lines)


def drawn_col_labels(b: Box, m: TextSizes) -> tuple[str, ...]:
    """The labels drawn under a box's columns (none where its cells are folded)."""
    return () if folded(b, m) else b.col_labels


def pack(widths: list[float], wrap: float) -> list[list[int]]:
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


def broken_captions(d: Diagram, m: TextSizes, width: float | None) -> list[str]:
    """The captions, each broken into lines no wider than `width` (None: one line each), after a
    line that names the boxes whose numbers the column folded."""
    names = [b.label for lane in d.lanes for b in lane if isinstance(b, Box) and folded(b, m) and any(_cell_texts(b))]
    captions = [*d.captions, t("mx.folded", d.lang, boxes=", ".join(dict.fromkeys(names)))] if names else d.captions
    if not width:
        return list(captions)
    least = 8.0 if m.wrap is None else min(8.0, m.wrap)
    return ["<br>".join(wrap(c, max(width, least), lambda line: m.width(line, 12))) for c in captions]


def caption_step(text: str, m: TextSizes) -> float:
    """A caption line's height; on a slide, a line with raised or lowered scripts needs more."""
    return 0.45 * m.grow * (1.4 if m.slide and "<su" in text else 1)


Rows = tuple[tuple[int, ...], ...]  # lane groups, by index, row by row


def packings(sizes) -> set[Rows]:
    """Every way of packing lane groups in reading order into rows as wide as some run of them."""
    widths = [w for w, _ in sizes]
    wraps = {sum(widths[i:j]) + BLOCK_GAP * (j - i - 1) for i in range(len(widths))
             for j in range(i + 1, len(widths) + 1)}
    return {tuple(map(tuple, pack(widths, w))) for w in wraps}


def rows_extent(sizes, rows: Rows) -> tuple[float, float]:
    """The width and height of lane groups (their sizes) in these rows."""
    width = max(sum(sizes[i][0] for i in row) + BLOCK_GAP * (len(row) - 1) for row in rows)
    return width, sum(max(sizes[i][1] for i in row) for row in rows)


def diagram_ranks(d: Diagram) -> tuple[dict, dict]:
    """The ranks of the diagram's column and row sizes (a box's width and height show them)."""
    boxes = [it for lane in d.lanes for it in lane if isinstance(it, Box)]
    return _ranks([b.shape[1] for b in boxes], d.size_order), _ranks([b.shape[0] for b in boxes], d.size_order)


@dataclass(frozen=True)
class SlideLayout:
    """How a diagram is laid out on a slide: its text against its boxes, and its lane groups' rows."""

    metrics: TextSizes
    rows: Rows


def column_room(width: int) -> float:
    """The drawing's room in a page column `width` px wide, in units."""
    return (width - 2 * COLUMN_PAD) / PX - 0.2


def title_room(d: Diagram) -> int:
    """px over the drawing for the title (and its subtitle)."""
    return 70 if not d.subtitle else 85


def _cell_texts(b: Box) -> list[str]:
    if b.cells is not None:
        return [str(s) for row in b.cells for s in row]
    return [format_cell(v, b.fmt) for v in np.asarray(b.values, dtype=float).ravel()]


def format_cell(val: float, fmt: str) -> str:
    if np.isposinf(val):
        return "∞"
    if np.isneginf(val):
        return "−∞"
    text = fmt.format(val)
    if text.startswith("-") and float(text) == 0:  # no "−0.00" for a tiny negative
        text = text[1:]
    return text.replace("-", "−")


def text_width(html: str, size: float = 10) -> float:
    """A label's width in layout units, drawn at `size` px."""
    return text_px(html, size) / PX


def _op_width(op: Op, m: TextSizes) -> float:
    """Wide enough for the text over the arrow, at least a glyph's width (in a column, just its
    glyph's: an operator kept on its line is worth more than the space around it)."""
    if m.wrap is None:
        return max(OP_W * m.grow, m.width(op.over, 10) + 0.3)
    glyph = m.width(op.glyph, glyph_size(op))
    return max([glyph + 0.35, *(m.width(line, 10) + 0.6 for line in over_lines(op, m))])  # clear of labels beside


def over_lines(op: Op, m: TextSizes) -> list[str]:
    """The text over an operator's arrow: one line, or in a column too narrow for it, broken at spaces."""
    if not op.over or m.wrap is None:
        return [op.over] if op.over else []
    return wrap(op.over, m.wrap - 0.6, lambda s: m.width(s, 10))


def _op_height(op: Op, m: TextSizes) -> float:
    """How tall a line holds an operator: nothing elsewhere (it sits between boxes); in a column, its
    glyph's line (a broken lane's line may hold no box taller than the glyph)."""
    return 0.0 if m.wrap is None else 1.4 * m.font(glyph_size(op)) / PX


def op_reach(op: Op, m: TextSizes) -> float:
    """How far the text over an operator's arrow reaches above its centre (a broken lane's line may
    hold no box that tall)."""
    return 0.6 * m.font(20) / PX + sum(line_height(line, 10, m) for line in over_lines(op, m)) if op.over else 0.0


def glyph_size(op: Op) -> int:
    """An operator's glyph size: a sign (×, →) large, a word smaller."""
    return 20 if len(op.glyph) <= 2 else 12


