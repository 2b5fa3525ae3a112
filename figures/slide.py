"""The slide layout: a figure exported at a slide size (figures.export.SLIDE_SIZES) is laid
out for a projector, not stretched from the screen layout.

Sizes are given for a 1080-line slide and scale with the slide's height: a SAFE margin on
every side, the title at the top-left of that safe area at SLIDE_TITLE px, every other text at
least SLIDE_TEXT px, and the drawing filling the rest. A font scale multiplies the title and the
floor before anything is placed, so margins, title lines and the drawing's room are those of
the larger text. Charts scale their text until the smallest reaches the floor and stretch to
the area; matrix diagrams are re-laid out for it while they are built (figures.matrix reads
`slide_size()` and `slide_font_scale()`), and scale into it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial

import plotly.graph_objects as go

SAFE = 48  # px margin on every side, at 1080 lines
SLIDE_TITLE = 36  # px, the title's first line
SLIDE_TEXT = 20  # px, every other text at least
LINE = 1.3  # plotly's line spacing, in ems of the title's size
AXIS_TITLE = 1.2  # plotly's axis titles, of the body size
SUP = 0.7  # plotly draws <sup> and <sub> at 70 %
ASCENT = 0.86  # room for a line's letters above its baseline, in ems (Noto Sans CJK's tallest reach about 0.82)
SUBTITLE = 0.8  # a slide's subtitle lines, of the title size: their own sub/superscripts still reach 20 px
ON_FILL = "on-fill"  # names text drawn on a fill of its own (a look leaves its colour alone)

_SLIDE: ContextVar[tuple[int, int, float] | None] = ContextVar("slide", default=None)
_TAGS = re.compile(r"<[^>]+>")
INLINE_SIZE = re.compile(r"font-size:\s*([\d.]+)px")  # a size given in a label's HTML


@contextmanager
def slide(width: int, height: int, font_scale: float = 1.0) -> Iterator[None]:
    """Figures built inside are built for a slide of this size, their text `font_scale` times
    the slide's sizes."""
    token = _SLIDE.set((width, height, font_scale))
    try:
        yield
    finally:
        _SLIDE.reset(token)


def slide_size() -> tuple[int, int] | None:
    """The slide size figures are being built for, or None (the screen)."""
    current = _SLIDE.get()
    return current[:2] if current else None


def slide_font_scale() -> float:
    """The font scale of the slide figures are being built for (1 on the screen)."""
    current = _SLIDE.get()
    return current[2] if current else 1.0


def narrow_wide(html: str) -> tuple[int, int]:
    """How many narrow and how many wide (Hangul/CJK) characters a label shows (tags stripped)."""
    plain = _TAGS.sub("", html)
    wide = sum(1 for ch in plain if ord(ch) >= 0x1100)
    return len(plain) - wide, wide


def chars(html: str) -> int:
    """A label's width in narrow characters (Hangul/CJK count double)."""
    narrow, wide = narrow_wide(html)
    return narrow + 2 * wide


def text_px(html: str, size: float) -> float:
    """Approximate width in px of one line of a label at `size` px."""
    return 0.56 * size * chars(html)


def wrap(text: str, width: float, measure: Callable[[str], float], first: float | None = None) -> list[str]:
    """`text` broken at spaces into lines no wider than `width` (the first no wider than `first`)
    as `measure` measures a line (a word wider than that keeps a line of its own; tags stay whole
    where they hold no space)."""
    lines = [""]
    for w in text.split(" "):
        trial = f"{lines[-1]} {w}" if lines[-1] else w
        if lines[-1] and measure(trial) > (first if first is not None and len(lines) == 1 else width):
            lines.append(w)
        else:
            lines[-1] = trial
    return lines


def slide_title(title: str, width: int, height: int, font_scale: float = 1.0, beside: float = 0.0) -> list[str]:
    """The title's lines, broken so each fits the safe width (the first leaves `beside` px on its
    right, for a legend level with it): the first at the title size, the <sup> lines under it
    at SUBTITLE of it."""
    u = height / 1080
    room, size = width - 2 * SAFE * u, SLIDE_TITLE * u * font_scale
    out = []
    for line in title.split("<br>"):
        sup = line.startswith("<sup>") and line.endswith("</sup>")
        inner, at = (line[5:-6], size * SUBTITLE) if sup else (line, size)
        for part in wrap(inner, room, partial(text_px, size=at), None if out else room - beside):
            out.append(f"<span style='font-size:{at:g}px'>{part}</span>" if sup else part)
    return out


def title_height(title: str, width: int, height: int, font_scale: float = 1.0, beside: float = 0.0) -> float:
    """px from the slide's top edge to where the drawing may start."""
    u = height / 1080
    lines = len(slide_title(title, width, height, font_scale, beside))
    return SAFE * u + lines * LINE * SLIDE_TITLE * u * font_scale + 24 * u


def diagram_area(width: int, height: int, title: str, font_scale: float = 1.0) -> tuple[float, float]:
    """The px a diagram is drawn in on this slide, under this title."""
    u = height / 1080
    return width - 2 * SAFE * u, height - title_height(title, width, height, font_scale) - SAFE * u


def font_sizes(fig: go.Figure) -> list[float]:
    """Every text size a figure sets (resolved to the body size where it sets none)."""
    from .style import TEMPLATE

    body = fig.layout.font.size or TEMPLATE.layout.font.size
    sizes = [body, fig.layout.legend.font.size or body]
    for a in fig.layout.annotations:
        sizes.append(a.font.size or body)
        sizes += [float(s) for s in INLINE_SIZE.findall(a.text or "")]
    sizes += [tr.textfont.size for tr in fig.data if "textfont" in tr and tr.textfont.size]
    return sizes


_SCRIPT = re.compile(r"<(sup|sub)>(.*?)</\1>")


def scripts_at_least(html: str, size: float, floor: float) -> str:
    """Sub- and superscripts of a label drawn at `size` (plotly draws them at 70 %) raised to
    `floor` where they would fall under it (never above the label's own size), still raised or
    lowered."""
    target = min(floor, size)
    if SUP * size >= target:
        return html
    return _SCRIPT.sub(lambda m: f"<{m[1]}><span style='font-size:{target:g}px'>{m[2]}</span></{m[1]}>", html)


def _diagram_scale(fig: go.Figure, area: tuple[float, float]) -> float:
    """How much a diagram (equal x and y scales) grows from its own size to `area`."""
    lay = fig.layout
    xs, ys = abs(lay.xaxis.range[1] - lay.xaxis.range[0]), abs(lay.yaxis.range[1] - lay.yaxis.range[0])
    own = min((lay.width - lay.margin.l - lay.margin.r) / xs, (lay.height - lay.margin.t - lay.margin.b) / ys)
    return min(area[0] / xs, area[1] / ys) / own


def slide_layout(fig: go.Figure, width: int, height: int, font_scale: float = 1.0) -> go.Figure:
    """The figure as a slide of `width` × `height`: margins, title and text sizes for a
    projector (`font_scale` times the slide's own), the drawing filling the safe area. A
    diagram keeps the text it was built with against its boxes: build it inside
    `slide(width, height, font_scale)`. Returns a new figure."""
    from .chart_slide import chart_margins, fitting_scale, legend_width
    from .style import scale_fonts

    out = go.Figure(fig)
    u = height / 1080
    text = out.layout.title.text or ""
    diagram = out.layout.yaxis.scaleanchor == "x"
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
        a.text = scripts_at_least(a.text or "", a.font.size or out.layout.font.size, floor)
    for tr in out.data:
        if isinstance(tr.text, (list, tuple)) and "textfont" in tr:
            size = tr.textfont.size or out.layout.font.size
            tr.text = [scripts_at_least(x, size, floor) if isinstance(x, str) else x for x in tr.text]
    margin = dict(l=SAFE * u, r=SAFE * u, t=top, b=SAFE * u) if diagram else chart_margins(out, u, top)
    out.update_layout(
        width=width, height=height, margin=margin,
        title=dict(text=title, x=SAFE * u / width, xref="container", xanchor="left", y=1 - baseline / height,
                   yref="container", yanchor="top", font_size=title_size, pad=dict(l=0, t=0, r=0, b=0)),
        meta={**(out.layout.meta if isinstance(out.layout.meta, dict) else {}), "slide": [width, height, font_scale]})
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


def is_laid_out(fig: go.Figure) -> bool:
    """Whether `slide_layout` already made this figure a slide."""
    return isinstance(fig.layout.meta, dict) and "slide" in fig.layout.meta
