"""A diagram drawn for its canvas (figures/canvas.py): natively at the renderer's own sizes; for a
page column, text at least the screen's floor and lane groups packed into its width; for a slide,
the text size and packing that fill it best with every text at least the slide's floor. Several
diagrams laid out alike (an animation's steps) share one choice."""

from __future__ import annotations

from collections.abc import Sequence

from ..canvas import NATIVE, SCREEN_TEXT, SLIDE_TEXT, Canvas, diagram_area, unit
from ..style import Drawn
from .drawing import Drawing, column_figure, draw_block, extent, native_figure, slide_figure, title_text
from .geometry import ITEM_GAP, PX, SlideLayout, TextSizes, column_room, diagram_ranks, lane_groups, pack, packings
from .model import Diagram

TEXT_STEPS = tuple(0.5 + 0.125 * i for i in range(21))  # text multipliers a slide layout tries
SLIDE_COMFORT = 24  # px: of layouts that fill alike, the one whose smallest text is nearest this


def render_alike(ds: Sequence[Diagram], canvas: Canvas = NATIVE) -> list[Drawn]:
    """Each diagram drawn for the canvas, laid out alike: on a slide or a page column one text size
    and one packing of lane groups chosen for all of them at once, as if one diagram were the
    largest of each (an animation's steps on a canvas that holds every step). A diagram whose lane
    groups differ in number from the others' gets a layout of its own."""
    if not ds or not (canvas.slide or canvas.column):
        return [native_figure(d) for d in ds]
    layout = _canvas_layout(ds, canvas)
    out = []
    for d in ds:
        own = layout if sum(map(len, layout.rows)) == len(lane_groups(d)) else _canvas_layout([d], canvas)
        out.append(slide_figure(d, own) if canvas.slide else column_figure(d, own, canvas.column))
    return out


def _canvas_layout(ds: Sequence[Diagram], canvas: Canvas) -> SlideLayout:
    if canvas.slide:
        return _choose(ds, canvas.slide, canvas.font_scale)
    return _choose_column(ds, canvas.column, canvas.font_scale)


def _choose(ds: Sequence[Diagram], slide: tuple[int, int], scale: float) -> SlideLayout:
    """The slide layout of the diagrams `ds` (one, or an animation's steps): of the text sizes and
    packings tried, one whose smallest text, once the canvas that holds every diagram is scaled
    into the slide's drawing area, is at least the slide's minimum (times its font scale); of
    those, the one that fills the area best (then the one whose smallest text is nearest a
    comfortable size); where none reaches the minimum, the one with the largest smallest text; every
    text `scale` times the slide's sizes."""
    area_w = diagram_area(*slide, title_text(ds[0]), scale)[0]
    area_h = min(diagram_area(*slide, title_text(d), scale)[1] for d in ds)  # under the tallest title
    u = unit(slide[1])
    ranks = [diagram_ranks(d) for d in ds]
    best = None
    for text in TEXT_STEPS:
        m = TextSizes(text * scale, slide=True)
        sizes = [[draw_block(d, b, 0, 0, r, m, Drawing(measured=True)) for b in lane_groups(d)]
                 for d, r in zip(ds, ranks)]
        for rows in sorted(set().union(*map(packings, sizes))):
            extents = [extent(d, s, rows, m) for d, s in zip(ds, sizes)]
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


def _choose_column(ds: Sequence[Diagram], width: int, scale: float = 1.0) -> SlideLayout:
    """The layout of the diagrams `ds` (one, or an animation's steps) for a page column `width` px
    wide whose text is `scale` times the screen's (the reader's text size), drawn at the renderer's
    own scale (PX px a unit): every text at least `scale` × SCREEN_TEXT px, lane groups packed into
    as few rows as fit the width, a lane too wide for it broken into lines, a value box whose
    numbers do not fit at that size folded into colours (figures.matrix.geometry.folded)."""
    floor = SCREEN_TEXT * scale
    text = next((x for x in TEXT_STEPS if TextSizes(x, slide=True).font(9) >= floor - 1e-9), TEXT_STEPS[-1])
    room = column_room(width)
    m = TextSizes(text, slide=True, wrap=room - ITEM_GAP)  # a lane's width counts a gap after its last item
    each = [[draw_block(d, b, 0, 0, diagram_ranks(d), m, Drawing(measured=True))[0] for b in lane_groups(d)]
            for d in ds]  # an animation's steps may differ in their lane groups: the widest of each
    widths = [max(w[i] for w in each if i < len(w)) for i in range(max(map(len, each)))]
    return SlideLayout(m, tuple(map(tuple, pack(widths, room))))


