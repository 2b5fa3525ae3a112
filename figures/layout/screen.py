"""A built figure laid out for a page column (figures/canvas.py: its width class): what every
figure gets on a screen, whatever its builder. Builders that lay themselves out for a column
(A1's family stacks its panels on a phone; the matrix renderer packs its lanes into the width)
are given the canvas (figures/layout/); this pass does what holds for all of them.

- No text under SCREEN_TEXT px: every size a chart sets (annotations, text traces, legend,
  ticks, sizes inline in a label's HTML) is raised to it (a diagram's renderer drew its own).
- The title and its subtitle lines are broken to the width; a top margin that holds only the title
  is made as tall as its lines (no empty band under a subtitle), one that holds more grows by the
  lines breaking adds.
- Log axes label decades only, in SI (1k, 1M, 1P): plotly draws the 2s and 5s between them, and
  the exponents of 10^15, smaller than the floor.
- A y axis's labels stand off it, clear of the x axis's first label at the corner.
"""

from __future__ import annotations

import plotly.graph_objects as go

from ..canvas import LINE, SCREEN_TEXT, TITLE_TOP, title_at_top
from ..style import TEMPLATE, heading_parts
from ..text import INLINE_SIZE, SUP, raise_scripts, scripts_at_least, text_px, wrap

DEFAULT_HEIGHT, DEFAULT_TOP = 450, 100  # px: plotly's height and top margin, for a figure that sets none
TICK_STANDOFF = 6  # px between a y axis and its tick labels
SCREEN_TITLE_GAP = 12  # px between a title's last line and the drawing under it
TITLE_FOOT, SUP_FOOT = 1.1, 0.7  # a title line's foot under its top, in ems of the title size; a raised subtitle line's


def screen_layout(fig: go.Figure, width: int, diagram: bool = False) -> go.Figure:
    """The figure for a column `width` px wide (changed in place, and returned). A matrix diagram
    was laid out for the column by its renderer, text included: only its title is broken, to the
    diagram's own width."""
    if not diagram:
        _text_floor(fig)
    raise_scripts(fig, SCREEN_TEXT, fig.layout.font.size or TEMPLATE.layout.font.size)
    _wrap_title(fig, min(width, fig.layout.width or width))
    if not diagram:
        fig.update_xaxes(dtick=1, tickformat="~s", selector=dict(type="log"))
        fig.update_yaxes(dtick=1, tickformat="~s", selector=dict(type="log"))
        # numbers on a y axis clear of the x axis's first label at the corner (names, as A1's, stay put)
        fig.for_each_yaxis(lambda ax: None if ax.ticktext else ax.update(ticklabelstandoff=TICK_STANDOFF))
    return fig


def _inline(html: str) -> str:
    return INLINE_SIZE.sub(lambda m: f"font-size:{max(float(m[1]), SCREEN_TEXT):g}px", html)


def _text_floor(fig: go.Figure) -> None:
    body = fig.layout.font.size or TEMPLATE.layout.font.size
    if body < SCREEN_TEXT:
        fig.layout.font.size = SCREEN_TEXT
    if fig.layout.legend.font.size:
        fig.layout.legend.font.size = max(fig.layout.legend.font.size, SCREEN_TEXT)
    for a in fig.layout.annotations:
        if a.font.size and a.font.size < SCREEN_TEXT:
            a.font.size = SCREEN_TEXT
        if a.text and "font-size" in a.text:
            a.text = _inline(a.text)
    for tr in fig.data:
        if "textfont" in tr and tr.textfont.size is not None:
            sizes = tr.textfont.size
            tr.textfont.size = [max(s, SCREEN_TEXT) for s in sizes] if isinstance(sizes, (list, tuple)) \
                else max(sizes, SCREEN_TEXT)
        if isinstance(tr.text, (list, tuple)):
            tr.text = [_inline(x) if isinstance(x, str) and "font-size" in x else x for x in tr.text]
    fig.for_each_xaxis(_tick_floor)
    fig.for_each_yaxis(_tick_floor)


def _tick_floor(axis) -> None:
    if axis.tickfont.size and axis.tickfont.size < SCREEN_TEXT:
        axis.tickfont.size = SCREEN_TEXT


def _wrap_title(fig: go.Figure, width: int) -> None:
    """Break the title's lines and its subtitle's (at their own size) to the width. A top margin that
    holds the title alone becomes as tall as its lines and a gap; one that holds more (a legend or
    notes over the plot) grows by the lines breaking added. The drawing under them keeps its size."""
    text = fig.layout.title.text or ""
    if not text:
        return
    size = fig.layout.title.font.size or TEMPLATE.layout.title.font.size
    room = width - (fig.layout.margin.l or 0) - (fig.layout.margin.r or 0) - 10
    title, subtitle = heading_parts(text)
    lines, added = [], 0.0
    for part, at, sup in ((title, size, False), (subtitle, size * SUP, True)):
        for line in part.split("<br>") if part else ():
            broken = wrap(scripts_at_least(line, at, SCREEN_TEXT), room, lambda s, at=at: text_px(s, at))
            added += (len(broken) - 1) * LINE * size  # plotly spaces every line by the title's size, a subtitle's too
            lines += [f"<sup>{b}</sup>" if sup else b for b in broken]
    fig.layout.title.text = "<br>".join(lines)  # its scripts, a subtitle's included, at least the floor
    top = fig.layout.margin.t if fig.layout.margin.t is not None else DEFAULT_TOP
    wanted = top + added if _over_plot(fig) else title_bottom(lines, size) + SCREEN_TITLE_GAP
    if added or wanted != top:  # from the top edge down; the figure taller or shorter by the change
        height = (fig.layout.height or DEFAULT_HEIGHT) + wanted - top
        fig.layout.update(height=height, title=title_at_top({}, height, size), margin_t=wanted)


def title_bottom(lines: list[str], size: float) -> float:
    """px from the top edge to the foot of a title's last line, placed by `title_at_top`: plotly puts a
    line every LINE × the title's size; a subtitle (<sup>) line is raised, its foot higher."""
    foot = SUP_FOOT if lines[-1].startswith("<sup>") else TITLE_FOOT
    return TITLE_TOP + LINE * size * (len(lines) - 1) + foot * size


def _over_plot(fig: go.Figure) -> bool:
    """Whether the top margin holds more than the title: a legend, notes or shapes over the plot, or an
    x axis drawn on top."""
    def above(y, anchor) -> bool:
        return y is not None and (y > 1 or (y == 1 and anchor in ("bottom", "middle")))

    legend = fig.layout.legend
    if fig.layout.showlegend is not False and above(legend.y, legend.yanchor):
        return True
    if any(str(a.yref or "").startswith("paper") and above(a.y, a.yanchor) for a in fig.layout.annotations):
        return True
    if any(str(s.yref or "").startswith("paper") and max(s.y0 or 0, s.y1 or 0) > 1 for s in fig.layout.shapes):
        return True
    return any(ax.side == "top" and ax.visible is not False for ax in fig.select_xaxes())
