"""A diagram drawn with plotly: boxes as shapes, values as heatmaps with their numbers, labels
as annotations, at the places figures.matrix.geometry measures."""

from __future__ import annotations

import numpy as np
import plotly.colors as pc
import plotly.graph_objects as go

from i18n import t

from ..contrast import INK, ink_on
from ..style import MUTED, Drawn, OnFill, heading
from .geometry import (
    BLOCK_GAP,
    COLUMN_PAD,
    ITEM_GAP,
    LANE_GAP,
    PX,
    SCREEN,
    Rows,
    SlideLayout,
    TextSizes,
    badge_shift,
    broken_captions,
    caption_step,
    cell_size,
    column_room,
    diagram_ranks,
    drawn_col_labels,
    folded,
    format_cell,
    glyph_size,
    label_centre,
    label_lines,
    lane_groups,
    lane_lines,
    line_height,
    name_lines,
    note_lines,
    op_reach,
    over_lines,
    reach_over,
    reach_under,
    row_label_width,
    rows_extent,
    text_width,
    title_room,
    value_extent,
    value_label,
)
from .model import ROLE_FILL, Box, Diagram, Op, shape_label

DIVERGING = "RdBu_r"


class Drawing:
    """What a diagram draws, in layout units: shapes, annotations and traces (none where it is
    only measured: the cells' colours cost most of a layout and do not change its size)."""

    def __init__(self, measured: bool = False):
        self.shapes, self.notes, self.traces, self.measured = [], [], [], measured
        self.fill_notes, self.fill_traces = set(), set()  # indices of the texts on a fill of their own

    def on_fill(self, note: dict) -> None:
        """An annotation on a fill of its own (a look keeps its colour)."""
        self.fill_notes.add(len(self.notes))
        self.notes.append(note)

    def trace(self, trace: dict, on_fill: bool = False) -> None:
        if on_fill:
            self.fill_traces.add(len(self.traces))
        self.traces.append(trace)

    def marks(self) -> OnFill:
        return OnFill(frozenset(self.fill_traces), frozenset(self.fill_notes))


def draw_block(d: Diagram, lanes: list[int], x0: float, y0: float, ranks, m: TextSizes, out: Drawing):
    """Draw lanes from (x0, y0); returns the block's (width, height)."""
    y, right = y0, x0
    placed: dict[str, float] = {}  # box label -> x in the lane above
    for lane, sizes, label, first in lane_lines(d, lanes, ranks, m):
        height = max(h for _, h in sizes)
        lines = label_lines(label, m)
        if not m.slide:
            centre = y + LANE_GAP + (0.45 if label else 0) + height / 2
        else:  # on a slide, room for exactly what sits over the boxes: the lane's label, boxes' labels and badges
            boxes = [reach_over(it, m) - (height - h) / 2 for it, (_, h) in zip(lane, sizes) if isinstance(it, Box)]
            ops = [op_reach(it, m) - height / 2 for it in lane if m.wrap is not None and isinstance(it, Op)]
            over = max([*boxes, *ops], default=0.0)
            above = 0.3 + sum(line_height(line, 12, m) for line in lines) if label else 0
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
            right = max(right, x0 + max(m.width(f"<b>{line}</b>", 12) for line in lines))
        right = max(right, x)
        notes = any(isinstance(it, Box) and it.note for it in lane)
        y = centre + height / 2 + ((0.55 if notes else 0.15) * m.grow)
        if m.slide:  # room for what hangs under each box: column labels, then its note
            y = max([y, *(centre + h / 2 + reach_under(it, m) + 0.15 * m.grow
                          for it, (_, h) in zip(lane, sizes) if isinstance(it, Box))])
    return right - x0, y - y0


def _layout(d: Diagram, m: TextSizes, rows: Rows | None, ranks) -> tuple[Drawing, float, float]:
    """Draw the diagram: lane groups in `rows` (None: one column, the screen's), captions under
    them (on a slide broken to the rows' width); returns the drawing and its width and height in
    layout units."""
    blocks = lane_groups(d)
    sizes = [draw_block(d, b, 0, 0, ranks, m, Drawing(measured=True)) for b in blocks]
    wrapped = rows is not None
    rows = rows if wrapped else tuple((i,) for i in range(len(blocks)))
    width, _ = rows_extent(sizes, rows)
    out, y = Drawing(), 0.0
    for row in rows:
        x = 0.0
        for i in row:
            draw_block(d, blocks[i], x, y, ranks, m, out)
            x += sizes[i][0] + BLOCK_GAP
        y += max(sizes[i][1] for i in row)
    at = y + 0.35 * m.grow
    captions = broken_captions(d, m, (m.wrap or width) if wrapped else None)
    for text in captions:
        out.notes.append(dict(x=0, y=at, text=text, xanchor="left", yanchor="top", showarrow=False, align="left",
                              font=dict(size=m.font(12), color=MUTED), xref="x", yref="y"))
        lines = text.split("<br>")
        width = max(width, *(m.width(line, 12) for line in lines))
        at += caption_step(text, m) * len(lines)
    return out, width, at + (0.05 * m.grow if captions else -0.35 * m.grow)


def native_figure(d: Diagram) -> Drawn:
    ranks = diagram_ranks(d)
    out, width, y = _layout(d, SCREEN, None, ranks)
    top = title_room(d)
    for c in (*d.captions, d.subtitle):  # captions and the subtitle may be wider than the lanes
        width = max(width, text_width(c, 12))
    width = max(width, text_width(d.title, 17))
    return _figure(d, out, width, y, top)


def title_text(d: Diagram) -> str:
    return heading(d.title, d.subtitle)["text"]


def _figure(d: Diagram, out: Drawing, width: float, y: float, top: int, pad: int = 10) -> Drawn:
    layout = dict(
        template="kv_atlas", title=heading(d.title, d.subtitle), shapes=out.shapes, annotations=out.notes,
        xaxis=dict(visible=False, range=[-0.1, width + 0.1], constrain="domain"),
        yaxis=dict(visible=False, range=[y + 0.1, -0.1], scaleanchor="x", scaleratio=1, constrain="domain"),
        width=int((width + 0.2) * PX) + 2 * pad, height=int((y + 0.2) * PX) + top + 2 * pad,
        margin=dict(l=pad, r=pad, t=top, b=pad), showlegend=False,
        plot_bgcolor="white", hovermode="closest",
    )
    return Drawn(go.Figure(data=out.traces, layout=layout), out.marks())


def slide_figure(d: Diagram, layout: SlideLayout) -> Drawn:
    out, w, h = _layout(d, layout.metrics, layout.rows, diagram_ranks(d))
    return _figure(d, out, w, h, top=0, pad=0)


def column_figure(d: Diagram, layout: SlideLayout, width: int) -> Drawn:
    """The diagram for a page column: its own drawing, as wide as its content (its title, broken to
    the column by figures.layout.screen, widens it up to the column)."""
    out, w, h = _layout(d, layout.metrics, layout.rows, diagram_ranks(d))
    title = max(text_width(d.title, 17), text_width(d.subtitle, 12))
    w = max(w, min(title, column_room(width)))
    return _figure(d, out, w, h, top=title_room(d), pad=COLUMN_PAD)


def extent(d: Diagram, sizes, rows: Rows, m: TextSizes) -> tuple[float, float]:
    """The width and height `_layout` gives the diagram in these rows, captions included."""
    w, h = rows_extent(sizes, rows)
    caps = broken_captions(d, m, w)
    lines = [line for c in caps for line in c.split("<br>")]
    w = max(w, *(m.width(line, 12) for line in lines)) if lines else w
    h += sum(caption_step(c, m) * (c.count("<br>") + 1) for c in caps) + 0.4 * m.grow if caps else 0
    return w, h


def _draw_box(b: Box, x, y, w, h, cached_label, m: TextSizes, out: Drawing):
    fill, line = ROLE_FILL[b.role]
    lw = row_label_width(b, m)
    cw, ch = cell_size(b, m)
    if b.values is not None:  # the cells and what is centred on them, centred in the slot
        left, right = value_extent(b, m)
        x += (w - (right - left)) / 2 - left
        w = b.values.shape[1] * cw + lw
    for i, text in enumerate(b.row_labels):
        out.notes.append(dict(x=x + lw - 0.1, y=y + (i + 0.5) * ch, text=text, xref="x", yref="y", showarrow=False,
                              xanchor="right", font=dict(size=m.font(10), color=MUTED)))
    x, w = x + lw, w - lw
    for j, text in enumerate(drawn_col_labels(b, m)):
        out.notes.append(_text(x + (j + 0.5) * cw, y + h + 0.03, text, m.font(9), yanchor="top", colour=MUTED))
    out.shapes.append(dict(type="rect", x0=x, x1=x + w, y0=y, y1=y + h, xref="x", yref="y",
                           fillcolor=fill if b.values is None else "rgba(0,0,0,0)",
                           line=dict(color=line, width=3 if b.cached else 1.4, dash="solid")))
    if b.values is None:  # dark ink on the box's light fill, in every look
        names = "<br>".join(f"<b>{line}</b>" for line in name_lines(b, m))
        out.on_fill(_text(x + w / 2, y + h / 2, f"{names}<br>{shape_label(b.shape)}", m.font(12),
                          colour=ink_on(fill)))
    else:
        out.notes.append(_text(x - lw + label_centre(b, m), y - 0.05, "<br>".join(value_label(b, m)), m.font(12),
                               yanchor="bottom"))
        for trace, on_fill in [] if out.measured else _heatmap(b, x, y, cw, ch, m):
            out.trace(trace, on_fill)
    if b.cached:  # a badge on the top-right corner, outside the box (above a value box's label)
        out.on_fill(dict(x=x + w, y=y, text=f" {cached_label} ", xref="x", yref="y", xanchor="right",
                         yanchor="bottom", showarrow=False, font=dict(size=m.font(10), color=ink_on(line)),
                         bgcolor=line, yshift=badge_shift(b, m)))
    if b.note:
        below = (0.3 if drawn_col_labels(b, m) else 0.05) * m.grow
        centre = x + w / 2 if b.values is None else x - lw + label_centre(b, m)
        out.notes.append(_text(centre, y + h + below, "<br>".join(note_lines(b, m)), m.font(10), yanchor="top",
                               colour=MUTED))


def _heatmap(b: Box, x, y, cw, ch, m: TextSizes) -> list[tuple[dict, bool]]:
    """The cells as a heatmap (colour and hover) and their numbers as a text trace, each in
    the ink that reads on its own cell; each trace with whether its text sits on a fill."""
    v = np.asarray(b.values, dtype=float)
    r, c = v.shape
    finite = np.where(np.isfinite(v), v, np.nan)
    text = [list(row) for row in b.cells] if b.cells is not None \
        else [[format_cell(val, b.fmt) for val in row] for row in v]
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
        return [(heat, False)]
    fills = _cell_colours(finite, scale)
    on, off = [], []  # cells with a colour; cells drawn empty (±∞) show the page
    for i in range(r):
        for j in range(c):
            if text[i][j] != "":
                (on if fills[i][j] else off).append((x + (j + 0.5) * cw, y + (i + 0.5) * ch, text[i][j],
                                                     ink_on(fills[i][j]) if fills[i][j] else None))
    return [(heat, False), *((_cell_text(points, m.font(9), fill), fill) for points, fill in ((on, True), (off, False))
                             if points)]


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
                textfont=dict(size=size, color=list(inks) if on_fill else None), showlegend=False)


def _draw_op(op: Op, x, y, m: TextSizes, out: Drawing):
    out.notes.append(_text(x, y, op.glyph, m.font(glyph_size(op)), colour=INK))
    if op.over:
        above = 0.22 * m.grow if not m.slide else 0.6 * m.font(20) / PX  # clear of the glyph's line
        out.notes.append(_text(x, y - above, "<br>".join(over_lines(op, m)), m.font(10), yanchor="bottom",
                               colour=MUTED))


def _text(x, y, text, size, *, yanchor="middle", colour=None) -> dict:
    return dict(x=x, y=y, text=text, xref="x", yref="y", showarrow=False, xanchor="center", yanchor=yanchor,
                font=dict(size=size, color=colour))
