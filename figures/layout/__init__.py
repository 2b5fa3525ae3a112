"""The one layout pass: what a builder made (figures/made.py), drawn and fitted to the canvas it
is built for (figures/canvas.py). A builder makes data: a chart's typed model (figures.charts, drawn
here by its kind's drawer for the canvas), a diagram (figures.matrix.Diagram, drawn here, its boxes its
records), or, for the charts that need no layout of their own, a `Chart` it drew itself. Drawing places
and draws the data for the canvas — several diagrams alike, as an animation's steps on one canvas —;
fitting lays the drawn figure out for a page column (figures/layout/screen.py) or a slide
(figures/layout/slide.py). Natively (an export of the screen figure) neither changes anything. A canvas's
font scale (a slide's, or the reader's text size on a page column) is laid out here, never multiplied in
after: the look only colours a figure built for it; the canvas's look (its theme) colours the result, but
for the texts its drawer said sit on a fill of their own (figures.style.OnFill). `built` returns it typed
(figures.made.Built).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..canvas import Canvas
from ..charts import draw
from ..made import Built, Chart, Made
from ..matrix import Box, Diagram, render_alike, shape_label
from ..style import NONE_ON_FILL, Drawn, OnFill, apply_look
from ..text import plain
from .screen import screen_layout
from .slide import slide_layout


def draw_alike(made: Sequence[Made], canvas: Canvas) -> list[Drawn]:
    """Each made figure drawn for the canvas, its diagrams laid out alike (a chart its builder drew as it is), with
    which of its texts sit on fills."""
    diagrams = iter(render_alike([m for m in made if isinstance(m, Diagram)], canvas))
    return [next(diagrams) if isinstance(m, Diagram) else Drawn(m.figure) if isinstance(m, Chart) else draw(m, canvas)
            for m in made]


def is_diagram(made: Made) -> bool:
    return isinstance(made, Diagram)


def fit(fig: go.Figure, canvas: Canvas, diagram: bool) -> go.Figure:
    """A drawn figure laid out for the canvas: a page column's rules or a slide's (a new figure for a
    slide; a column's changes it in place: call it on a figure built for it)."""
    if canvas.slide:
        return slide_layout(fig, *canvas.slide, canvas.font_scale, diagram=diagram)
    if canvas.column:
        return screen_layout(fig, canvas.column, diagram=diagram, scale=canvas.font_scale)
    return fig


def built(made: Made, canvas: Canvas) -> Built:
    """What a builder made, drawn and fitted to the canvas, in its look, with what it says beside the drawing."""
    return built_alike([made], canvas)[0]


def built_alike(made: Sequence[Made], canvas: Canvas) -> list[Built]:
    """Each of several made figures built as `built` builds one, its diagrams laid out alike (an animation's
    steps: one text size and packing for all of them)."""
    return [_built(m, drawn, canvas) for m, drawn in zip(made, draw_alike(made, canvas))]


def _built(made: Made, drawn: Drawn, canvas: Canvas) -> Built:
    diagram = is_diagram(made)
    numbers = boxes(made) if diagram else tuple(made.numbers)
    return Built(looked(fit(drawn.figure, canvas, diagram), canvas, drawn.on_fill), diagram, one_line(made.title),
                 one_line(made.subtitle),
                 captions=tuple(made.captions) if diagram else (), numbers=numbers,
                 columns=tuple(dict.fromkeys(k for row in numbers for k in row)),
                 font_scale=canvas.font_scale if canvas.slide or canvas.column else None)


def one_line(html: str) -> str:
    """A title's HTML as one line of plain text (its <br>s and tags gone)."""
    return " ".join(plain((html or "").replace("<br>", " ")).split())


def boxes(d: Diagram) -> tuple[dict, ...]:
    """A diagram's numbers: every box with its shape as its label states it, and a box that shows values cell by
    cell (a box drawn in several lanes once)."""
    rows, seen = [], set()
    for lane in d.lanes:
        for box in lane:
            if not isinstance(box, Box):
                continue
            name, shape = one_line(box.label), shape_label(box.shape)
            key = (name, shape, None if box.values is None else np.asarray(box.values).tobytes())
            if key in seen:
                continue
            seen.add(key)
            if box.values is None:
                rows.append({"box": name, "shape": shape, "row": None, "col": None, "value": None})
                continue
            rows += [{"box": name, "shape": shape, "row": r, "col": c, "value": value}
                     for r, row in enumerate(np.asarray(box.values).tolist()) for c, value in enumerate(row)]
    return tuple(rows)


def looked(fig: go.Figure, canvas: Canvas, on_fill: OnFill = NONE_ON_FILL) -> go.Figure:
    """A figure fitted to the canvas in its look (figures.style.apply_look): on a slide or a page column laid out
    for the canvas's font scale already, so only coloured; natively its text also `font_scale` times its size."""
    scale = 1.0 if canvas.slide or canvas.column else canvas.font_scale
    if (canvas.theme, scale) == ("light", 1.0):
        return fig
    return apply_look(fig, canvas.theme, scale, on_fill)
