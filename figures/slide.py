"""The slide layout: a figure exported at a slide size (figures.export.SLIDE_SIZES) is laid
out for a projector, not stretched from the screen layout.

Sizes are given for a 1080-line slide and scale with the slide's height: a SAFE margin on
every side, the title at the top-left of that safe area at SLIDE_TITLE px, every other text at
least SLIDE_TEXT px, and the drawing filling the rest. Charts scale their text until the smallest reaches
the floor and stretch to the area; matrix diagrams are re-laid out for it while they are
built (figures.matrix reads `slide_size()`), and scale into it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import plotly.graph_objects as go

SAFE = 48  # px margin on every side, at 1080 lines
SLIDE_TITLE = 36  # px, the title's first line
SLIDE_TEXT = 20  # px, every other text at least
LINE = 1.3  # plotly's line spacing, in ems of the title's size
AXIS_TITLE = 1.2  # plotly's axis titles, of the body size
SUP = 0.7  # plotly draws <sup> and <sub> at 70 %
SUBTITLE = 0.8  # a slide's subtitle lines, of the title size: their own sub/superscripts still reach 20 px
ON_FILL = "on-fill"  # names text drawn on a fill of its own (a look leaves its colour alone)

_SIZE: ContextVar[tuple[int, int] | None] = ContextVar("slide_size", default=None)
_TAGS = re.compile(r"<[^>]+>")
_INLINE = re.compile(r"font-size:\s*([\d.]+)px")


@contextmanager
def slide(width: int, height: int) -> Iterator[None]:
    """Figures built inside are built for a slide of this size."""
    token = _SIZE.set((width, height))
    try:
        yield
    finally:
        _SIZE.reset(token)


def slide_size() -> tuple[int, int] | None:
    """The slide size figures are being built for, or None (the screen)."""
    return _SIZE.get()


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


def _wrap(words: list[str], width: float, size: float) -> list[str]:
    lines = [""]
    for w in words:
        trial = f"{lines[-1]} {w}".strip()
        if lines[-1] and text_px(trial, size) > width:
            lines.append(w)
        else:
            lines[-1] = trial
    return lines


def slide_title(title: str, width: int, height: int) -> list[str]:
    """The title's lines, broken so each fits the safe width: the first at the title size,
    the <sup> lines under it at 70 % of it."""
    u = height / 1080
    room, size = width - 2 * SAFE * u, SLIDE_TITLE * u
    out = []
    for line in title.split("<br>"):
        sup = line.startswith("<sup>") and line.endswith("</sup>")
        inner = line[5:-6] if sup else line
        for part in _wrap(inner.split(" "), room, size * (SUBTITLE if sup else 1)):
            out.append(f"<span style='font-size:{size * SUBTITLE:g}px'>{part}</span>" if sup else part)
    return out


def title_height(title: str, width: int, height: int) -> float:
    """px from the slide's top edge to where the drawing may start."""
    u = height / 1080
    return SAFE * u + len(slide_title(title, width, height)) * LINE * SLIDE_TITLE * u + 24 * u


def diagram_area(width: int, height: int, title: str) -> tuple[float, float]:
    """The px a diagram is drawn in on this slide, under this title."""
    u = height / 1080
    return width - 2 * SAFE * u, height - title_height(title, width, height) - SAFE * u


def font_sizes(fig: go.Figure) -> list[float]:
    """Every text size a figure sets (resolved to the body size where it sets none)."""
    from .style import TEMPLATE

    body = fig.layout.font.size or TEMPLATE.layout.font.size
    sizes = [body, fig.layout.legend.font.size or body]
    for a in fig.layout.annotations:
        sizes.append(a.font.size or body)
        sizes += [float(s) for s in _INLINE.findall(a.text or "")]
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


def _chart_margins(fig: go.Figure, u: float, top: float) -> dict:
    """Margins that keep a chart's outside text (tick labels, labels left of the plot, axis
    titles, labels above it) inside the safe area; `fig`'s fonts are already slide sizes."""
    body = fig.layout.font.size
    left = [text_px(str(s), body) + 12 * u for s in fig.layout.yaxis.ticktext or ()] if fig.layout.yaxis.visible \
        is not False else []
    above = 0.0
    for a in fig.layout.annotations:
        size = a.font.size or body
        if a.xref == "paper" and a.x is not None and a.x <= 0 and a.xanchor == "right":
            left.append(text_px(a.text or "", size) - (a.xshift or 0))
        if a.yref == "paper" and a.y is not None and a.y >= 1:
            above = max(above, LINE * size * (1 + (a.text or "").count("<br>")) + 8 * u)
    axes = [ax for name, ax in fig.layout.to_plotly_json().items() if name.startswith("xaxis")]
    below = 0.0
    if any(ax.get("visible", True) for ax in axes) or not axes and fig.layout.xaxis.visible is not False:
        titled = any((ax.get("title") or {}).get("text") for ax in axes)
        below = body * LINE * (2.5 if titled else 1.2) + 10 * u
    return dict(l=SAFE * u + max(left, default=0), r=SAFE * u, t=top + above, b=SAFE * u + below, autoexpand=False)


def slide_layout(fig: go.Figure, width: int, height: int) -> go.Figure:
    """The figure as a slide of `width` × `height`: margins, title and text sizes for a
    projector, the drawing filling the safe area. Returns a new figure."""
    from .style import scale_fonts

    out = go.Figure(fig)
    u = height / 1080
    title = "<br>".join(slide_title(out.layout.title.text or "", width, height))
    top = title_height(out.layout.title.text or "", width, height)
    diagram = out.layout.yaxis.scaleanchor == "x"
    if diagram:
        k = _diagram_scale(out, diagram_area(width, height, out.layout.title.text or ""))
    else:
        k = SLIDE_TEXT * u / min(font_sizes(out))
    scale_fonts(out, k)
    floor = SLIDE_TEXT * u
    for a in out.layout.annotations:
        a.xshift, a.yshift = (a.xshift or 0) * k, (a.yshift or 0) * k
        a.text = scripts_at_least(a.text or "", a.font.size or out.layout.font.size, floor)
    for tr in out.data:
        if isinstance(tr.text, (list, tuple)) and "textfont" in tr:
            size = tr.textfont.size or out.layout.font.size
            tr.text = [scripts_at_least(x, size, floor) if isinstance(x, str) else x for x in tr.text]
    margin = dict(l=SAFE * u, r=SAFE * u, t=top, b=SAFE * u) if diagram else _chart_margins(out, u, top)
    out.update_layout(
        width=width, height=height, margin=margin,
        title=dict(text=title, x=SAFE * u / width, xref="container", xanchor="left", y=1 - SAFE * u / height,
                   yref="container", yanchor="top", font_size=SLIDE_TITLE * u, pad=dict(l=0, t=0, r=0, b=0)),
        meta={**(out.layout.meta if isinstance(out.layout.meta, dict) else {}), "slide": [width, height]})
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
