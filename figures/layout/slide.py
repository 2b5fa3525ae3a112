"""The slide layout: a figure exported at a slide size (figures.canvas.SLIDE_SIZES) is laid
out for a projector, not stretched from the screen layout: margins, title and text sizes of the
slide canvas (figures/canvas.py), the drawing filling the rest. A font scale multiplies the title
and the text floor before anything is placed, so margins, title lines and the drawing's room are
those of the larger text. Charts scale their text until the smallest reaches the floor and
stretch to the area (figures/layout/chart_slide.py says how far their labels let them); matrix diagrams
are drawn for the slide (figures/layout/) and scale into it.
"""

from __future__ import annotations

import plotly.graph_objects as go

from ..canvas import (
    ASCENT,
    SAFE,
    SLIDE_TEXT,
    SLIDE_TITLE,
    diagram_area,
    font_sizes,
    slide_title,
    title_height,
    unit,
)
from ..style import scale_fonts
from ..text import raise_scripts
from .chart_slide import chart_margins, fitting_scale, legend_width

AXIS_TITLE = 1.2  # plotly's axis titles, of the body size


def _diagram_scale(fig: go.Figure, area: tuple[float, float]) -> float:
    """How much a diagram (equal x and y scales, figures.matrix) grows from its own size to `area`."""
    lay = fig.layout
    xs, ys = abs(lay.xaxis.range[1] - lay.xaxis.range[0]), abs(lay.yaxis.range[1] - lay.yaxis.range[0])
    own = min((lay.width - lay.margin.l - lay.margin.r) / xs, (lay.height - lay.margin.t - lay.margin.b) / ys)
    return min(area[0] / xs, area[1] / ys) / own


def slide_layout(fig: go.Figure, width: int, height: int, font_scale: float = 1.0, diagram: bool = False) -> go.Figure:
    """The figure as a slide of `width` × `height`: margins, title and text sizes for a
    projector (`font_scale` times the slide's own), the drawing filling the safe area. A
    diagram keeps the text it was drawn with against its boxes: draw it for the same slide
    (figures/layout/). Returns a new figure."""
    out = go.Figure(fig)
    u = unit(height)
    text = out.layout.title.text or ""
    if diagram:
        k, beside = _diagram_scale(out, diagram_area(width, height, text, font_scale)), 0.0
    else:  # a chart's labels sit in its plot: its text grows only as far as it fits
        font_scale = fitting_scale(out, width, height, font_scale)
        k = SLIDE_TEXT * u * font_scale / min(font_sizes(out))
        beside = legend_width(out, k)  # the legend sits level with the title's first line
    title = "<br>".join(slide_title(text, width, height, font_scale, beside))
    top = title_height(text, width, height, font_scale, beside)
    floor = SLIDE_TEXT * u * font_scale
    scale_fonts(out, k)
    title_size = SLIDE_TITLE * u * font_scale
    # plotly puts a one-line title's baseline 0.7 em under `y` (yanchor top), but the first
    # baseline of a title of several lines at `y` itself: either way the letters start at SAFE
    baseline = SAFE * u + ASCENT * title_size - (0 if "<br>" in title else 0.7 * title_size)
    for a in out.layout.annotations:
        a.xshift, a.yshift = (a.xshift or 0) * k, (a.yshift or 0) * k
    raise_scripts(out, floor, out.layout.font.size)
    margin = dict(l=SAFE * u, r=SAFE * u, t=top, b=SAFE * u) if diagram else chart_margins(out, u, top)
    out.update_layout(
        width=width, height=height, margin=margin,
        title=dict(text=title, x=SAFE * u / width, xref="container", xanchor="left", y=1 - baseline / height,
                   yref="container", yanchor="top", font_size=title_size, pad=dict(l=0, t=0, r=0, b=0)))
    if diagram:  # right under the title (an animation's steps grow from the same top-left corner)
        out.update_yaxes(constraintoward="top")
    out.update_xaxes(dtick=1, selector=dict(type="log"))  # decades only: minor labels would crowd at this size
    titled = dict(title_font_size=AXIS_TITLE * out.layout.font.size)  # plotly would round it, unlike the rest
    out.for_each_xaxis(lambda ax: ax.update(titled) if ax.title.text else None)
    out.for_each_yaxis(lambda ax: ax.update(titled) if ax.title.text else None)
    if out.layout.showlegend is not False and any(tr.showlegend is not False and tr.name for tr in out.data):
        out.update_layout(legend=dict(orientation="h", xref="paper", x=1, xanchor="right", yref="container",
                                      y=1 - SAFE * u / height, yanchor="top", bgcolor="rgba(0,0,0,0)"))
    return out

