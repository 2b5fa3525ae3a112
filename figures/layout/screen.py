"""A built figure laid out for a page column (figures/canvas.py: its width class): what every
figure gets on a screen, whatever its kind. The chart kinds' layouts (figures.charts: A1's family stacks its
panels on a phone) and the matrix renderer (it packs its lanes into the width) place their data for the
canvas before this pass, which does what holds for all of them.

- The reader's text size (the canvas's `font_scale`, the app's `fs`) is part of the layout: a
  chart's every text is drawn that many times its drawer's size (`Canvas.text`: the chart kinds'
  layouts reserve room for it), before the title is broken and its margin set; a
  diagram's renderer drew its text for it (figures/matrix/fit.py).
- No text under SCREEN_TEXT px times that size: every size a chart sets (annotations, text traces,
  legend, ticks, sizes inline in a label's HTML) is raised to it (a diagram's renderer drew its own).
- The title and its subtitle lines are broken to the width; a top margin that holds only the title
  is made as tall as its lines (no empty band under a subtitle), one that holds more grows by the
  lines breaking adds.
- Log axes label decades only, in SI (1k, 1M, 1P): plotly draws the 2s and 5s between them, and
  the exponents of 10^15, smaller than the floor.
- A y axis's labels stand off it, clear of the x axis's first label at the corner.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

from ..canvas import LINE, SCREEN_TEXT, SUP_FOOT, TITLE_FOOT, legend_names, legend_rows, title_at_top, title_top
from ..style import TEMPLATE, heading_parts, scale_fonts
from ..text import INLINE_SIZE, SUP, raise_scripts, scripts_at_least, text_px, wrap

DEFAULT_HEIGHT, DEFAULT_TOP = 450, 100  # px: plotly's height and top margin, for a figure that sets none
DEFAULT_MARGIN = 80  # px: plotly's other margins
TICK_STANDOFF = 6  # px between a y axis and its tick labels
SCREEN_TITLE_GAP = 12  # px between a title's last line and the drawing under it
AXIS_TITLE = 1.2  # plotly's axis titles, of the body size (rounded)


def screen_layout(fig: go.Figure, width: int, diagram: bool = False, scale: float = 1.0) -> go.Figure:
    """The figure for a column `width` px wide whose text is `scale` times its builder's sizes
    (changed in place, and returned). A matrix diagram was laid out for the column by its renderer,
    text included: only its title is set at the scale and broken, to the diagram's own width."""
    if not diagram:
        _text_floor(fig)
        if scale != 1:
            scale_fonts(fig, scale)
    elif scale != 1:
        fig.layout.title.font.size = (fig.layout.title.font.size or TEMPLATE.layout.title.font.size) * scale
    raise_scripts(fig, SCREEN_TEXT * scale, fig.layout.font.size or TEMPLATE.layout.font.size)
    _wrap_title(fig, min(width, fig.layout.width or width), SCREEN_TEXT * scale)
    if not diagram:
        _fit_axes(fig, width)
        _legend_under(fig, width)
        # numbers on a y axis clear of the x axis's first label at the corner (names, as A1's, stay put)
        fig.for_each_yaxis(lambda ax: None if ax.ticktext else ax.update(ticklabelstandoff=TICK_STANDOFF))
    return fig


def _fit_axes(fig: go.Figure, width: int) -> None:
    """Axes whose labels and titles fit the lengths they are drawn along: log axes labelled every
    decade there is room for (every other one, or fewer, where a decade is narrower than its
    label), in SI; axis titles broken to their axis's length."""
    body = fig.layout.font.size or TEMPLATE.layout.font.size
    height = fig.layout.height or DEFAULT_HEIGHT
    margin = fig.layout.margin
    plot_w = width - _margin(margin.l) - _margin(margin.r)
    plot_h = height - (margin.t if margin.t is not None else DEFAULT_TOP) - _margin(margin.b)
    left = max((_y_labels(fig, ax, body) for ax in fig.select_yaxes()
                if ax.visible is not False and ax.side != "right"),
               default=0.0)
    for ax in fig.select_xaxes():
        _fit_axis(fig, ax, (plot_w - left) * _span(ax.domain), body, across=True)
    for ax in fig.select_yaxes():
        _fit_axis(fig, ax, plot_h * _span(ax.domain), body, across=False)
    # plotly makes room for the bottom axis's labels and title out of the plot: the figure grows instead
    axis = fig.layout.xaxis
    under = fig.layout.yaxis.domain
    if axis.visible is not False and axis.side != "top" and (under is None or under[0] == 0) and \
            (axis.anchor in (None, "y")):
        _bottom(fig, max(_margin(margin.b), _under_axis(fig, axis, body)))


def _legend_under(fig: go.Figure, width: int) -> None:
    """A horizontal legend the builder put under the plot (y < 0), placed under the x axis's labels and
    title, the figure grown by what it takes (the plot keeps its height)."""
    legend = fig.layout.legend
    if fig.layout.showlegend is False or legend.orientation != "h" or legend.y is None or legend.y >= 0 \
            or legend.yref == "container":
        return
    shown = [tr for tr in fig.data if tr.showlegend is not False and tr.name]
    if not shown:
        return
    room = width - (fig.layout.margin.l or 0) - (fig.layout.margin.r or 0)
    body = fig.layout.font.size or TEMPLATE.layout.font.size
    size = legend.font.size or body
    for tr, name in zip(shown, legend_names([tr.name for tr in shown], room, size)):
        tr.name = name
    names = [tr.name for tr in shown]
    axis = next(iter(fig.select_xaxes()), None)
    below = _under_axis(fig, axis, body) if axis is not None and axis.visible is not False else 0.0
    wanted = below + legend_rows(names, room, size) * (LINE * size + 4) + 16
    fig.layout.legend.update(yref="container", y=0, yanchor="bottom", xref="container", x=0, xanchor="left")
    _bottom(fig, wanted)


def _bottom(fig: go.Figure, wanted: float) -> None:
    """The bottom margin made `wanted` px, the figure taller or shorter by the change (the plot keeps its
    height, a title placed from the top edge its place)."""
    old = _margin(fig.layout.margin.b)
    if abs(wanted - old) < 0.5:
        return
    height = fig.layout.height or DEFAULT_HEIGHT
    fig.layout.update(margin_b=wanted, height=height + wanted - old)
    if fig.layout.title.yref == "container" and fig.layout.title.y is not None:  # still as far from the top
        fig.layout.title.y = 1 - (1 - fig.layout.title.y) * height / fig.layout.height


def _under_axis(fig: go.Figure, axis, body: float) -> float:
    """px an x axis's labels and title take under the plot."""
    below = LINE * (axis.tickfont.size or body) + 10
    if axis.title.text:
        at = axis.title.font.size or round(AXIS_TITLE * body)
        below += LINE * at * (axis.title.text.count("<br>") + 1) + 12
    return below


def _points(tr, key: str) -> list:
    """A trace's x or y values as a list (none where it has none)."""
    values = getattr(tr, key, None)
    return [] if values is None else list(values)


def _margin(side) -> float:
    """px of a margin as plotly draws it (DEFAULT_MARGIN where the figure sets none)."""
    return DEFAULT_MARGIN if side is None else side


def _span(domain) -> float:
    return (domain[1] - domain[0]) if domain else 1.0


def _y_labels(fig: go.Figure, ax, body: float) -> float:
    """px a y axis's labels and title take left of the plot (estimated)."""
    size = ax.tickfont.size or body
    named = [y for tr in fig.data if (getattr(tr, "yaxis", None) or "y") == ax.plotly_name.replace("axis", "")
             for y in _points(tr, "y") if isinstance(y, str)]  # a category axis's names
    if ax.ticktext:
        labels = max(text_px(str(x), size) for x in ax.ticktext)
    elif named:
        labels = max(text_px(y, size) for y in named)
    elif ax.type == "log":
        labels = text_px("100k", size)
    else:
        labels = text_px("0.000", size)
    title = LINE * (ax.title.font.size or round(AXIS_TITLE * body)) * ((ax.title.text or "").count("<br>") + 1) \
        if ax.title.text else 0.0
    return labels + TICK_STANDOFF + title


def _fit_axis(fig: go.Figure, ax, length: float, body: float, across: bool) -> None:
    if ax.visible is False or length <= 0:
        return
    size = ax.tickfont.size or body
    if ax.type == "log":
        lo, hi = _log_range(fig, ax, across)
        label = max(text_px(x, size) for x in ("100k", "10M", "1G")) if across else LINE * size
        per = length / max(hi - lo, 1e-9)  # px a decade takes
        step = max(1, math.ceil((label + 0.25 * size) / per)) if per > 0 else 1
        ax.update(dtick=step, tickformat="~s")
    if ax.title.text and across:
        at = ax.title.font.size or round(AXIS_TITLE * body)  # plotly's size, rounded as plotly rounds it
        lines = [b for line in ax.title.text.split("<br>") for b in wrap(line, length, lambda s, at=at: text_px(s, at))]
        ax.title.text = "<br>".join(lines)
    elif ax.title.text:  # a y axis's title runs up its length
        at = ax.title.font.size or round(AXIS_TITLE * body)
        lines = [b for line in ax.title.text.split("<br>") for b in wrap(line, length, lambda s, at=at: text_px(s, at))]
        ax.title.text = "<br>".join(lines)


def _log_range(fig: go.Figure, ax, across: bool) -> tuple[float, float]:
    """A log axis's range in decades: its own, or its data's (plotly's autorange, near enough)."""
    if ax.range is not None:
        return ax.range[0], ax.range[1]
    name = ax.plotly_name.replace("axis", "")  # 'x', 'x2' …
    values = []
    for tr in fig.data:
        if (getattr(tr, "xaxis" if across else "yaxis", None) or name[0]) != name:
            continue
        points = getattr(tr, "x" if across else "y", None)
        if points is None:
            continue
        try:
            values += [float(v) for v in points if v is not None and float(v) > 0]
        except (TypeError, ValueError):
            continue
    if not values:
        return 0.0, 1.0
    lo, hi = math.log10(min(values)), math.log10(max(values))
    pad = 0.05 * (hi - lo)
    return lo - pad, hi + pad


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


def _wrap_title(fig: go.Figure, width: int, floor: float = SCREEN_TEXT) -> None:
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
            broken = wrap(scripts_at_least(line, at, floor), room, lambda s, at=at: text_px(s, at))
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
    return title_top(size) + LINE * size * (len(lines) - 1) + foot * size


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
