"""Split log-scale bars in two panels (A1 and its generation charts): the model, its layout for a canvas, its drawer.

Each panel is a log axis with a bar per model; the bar's length is its total, and inside it the bar is split by
*share* of the total into KV (blue) and index key (red), as the article draws it — so the split point sits at that
fraction of the bar's visual (log) length. A wide column takes the panels side by side, the models' names as the
rows' ticks; a phone's column stacks them, each bar under its model's name and value and over its lines, all broken
to the column (figures.canvas.Canvas.narrow).

The figure is assembled as one plain dict and validated once: plotly's incremental add_*/update_* calls cost ~1 ms
each and dominated the build time. Labels are text traces, not annotations: plotly lays each annotation out on its
own, which made A1's redraw on a slider step twice as slow (benchmarks/RESULTS.md).

Plotly is given its renderer's own font sizes (the layout pass scales them for the reader's text size); the layout
measures and breaks text at the reader's size, `canvas.text` times those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import plotly.graph_objects as go

from ..canvas import LINE, SUP_FOOT, Canvas, legend_rows, title_at_top, title_top
from ..contrast import hex_colour, ink_on, over
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, Drawn, OnFill, heading
from ..text import text_px, wrapped, wrapped_parts
from .kind import draw
from .spacing import html_lines, stack_rows

ROLES = ("main_kv", "index_key")  # a bar's two parts, from the axis's start: blue, then red


# The model: what the bars show, in the reader's language, from core


@dataclass(frozen=True)
class Bar:
    """One model's bar in a panel: its parts (bytes: the blue and the red), its total, its hover, its value at the
    bar's end (its parts: broken apart on a phone's column) and the lines under the bar (none, one or several)."""

    kv: float
    key: float
    total: float
    hover: str
    value: tuple[str, ...]
    under: tuple[str, ...]


@dataclass(frozen=True)
class Panel:
    """One panel: its log axis's range (log10 units), a bar per row, its axis's title and its own title."""

    lo: float
    hi: float
    bars: tuple[Bar, ...]
    axis_title: str
    title: str


@dataclass(frozen=True)
class Row:
    """A model's row: its name, whether it is the highlighted one (its name bold) and whether another is (its bars
    dimmed)."""

    name: str
    highlighted: bool
    dimmed: bool


@dataclass(frozen=True)
class Bars:
    """Two panels of the same rows (storage per token, reads per decoded token), the legend's names of the bars'
    two parts (ROLES' order), the title, subtitle and records (a dict per row)."""

    rows: tuple[Row, ...]
    panels: tuple[Panel, Panel]
    legend: tuple[str, str]
    title: str
    subtitle: str
    numbers: tuple[dict, ...]


# The look and the sizes, at the reader's text size 1

BAR = 0.42  # a bar's thickness on a wide column, in rows
BAR_PX = 22  # px: a bar's thickness on a phone's column (not text: it keeps its size)
DIM = 0.35  # how much of its colour a row that is not highlighted keeps
DIM_GREY = "#e5e7eb"  # what a dimmed bar mixes with: opaque, so its labels read in every look
NAME_SIZE, PANEL_TITLE, UNDER_SIZE = 13, 15, 11  # px: a row's name and value; a panel's title; its lines under bars
UNDER_TICKS, AXIS_TITLE = 13, 16  # px: an axis's labels (the body size), its title (plotly's 1.2 × the body)
LEGEND_SIZE = 12  # px: the legend's names
LABEL_PAD = 10  # px: twice a label's distance from its bar (the invisible marker's size)
AXIS_HAIR = 1e-3  # log10 units a label at the axis's start sits inside it: plotly drops a point on the range's edge
INSIDE = 0.7  # a value goes inside its bar (so it cannot run into the next panel) past this share of the axis
PANELS = ("x", "x2")  # the panels' x axes, storage then reads

# A wide column: the panels side by side, a row per model across both
ROW_PX = 96  # px: a row's height
WIDE_CHROME = 170  # px of the figure besides its rows: title, legend, headings, the axes' labels and titles
WIDE_TOP = 110  # px over the plot: the title and subtitle, the legend, headings of one line
WIDE_MARGIN = dict(l=10, r=20, b=10)  # px: the figure's margins besides its top
NAMES_PAD = 16  # px the rows' names take past the longest: the ticks' gap to the plot and the left margin
SIDE_GAP = 0.07  # between the two panels, in paper width
ROW_OVER, ROW_UNDER = 0.45, 0.65  # rows of room over the first bar's middle, under the last's (its lines under it)
LEGEND_LIFT = 0.1  # the legend's bottom over the plot, in plot heights, by the title: with headings of one line
LEGEND_GAP = 14  # px between the legend and headings of several lines under it

# A phone's column: the panels stacked, each bar under its name and value and over its lines
NARROW_MARGIN = dict(l=10, r=10)  # px: the figure's sides
ROW_GAP = 14  # px after a row
TICK_PAD = 8  # px an axis's labels take past their line: their gap to the axis and to its title
PANEL_GAP = 14  # px between the storage axis's title and the read panel's heading
BOTTOM_PAD = 12  # px under the read axis's title
HEADING_PAD = 8  # px the storage panel's heading takes past its lines: its lift, its gap to the legend over it
HEADING_LIFT = 4  # px a panel's heading sits over its panel
LEGEND_PAD = 8  # px the legend takes past its lines, at the reader's text size 1
TITLE_GAP = 12  # px between the subtitle's line and the legend


def bar_colour(role: str, dim: bool) -> str:
    """A role's bar colour; a dimmed row's is mixed with grey (opaque, not see-through)."""
    return hex_colour(over(ROLE_COLOURS[role], DIM_GREY, DIM)) if dim else ROLE_COLOURS[role]


def shown(row: Row) -> str:
    """A row's name as it is drawn: the highlighted one bold."""
    return f"<b>{row.name}</b>" if row.highlighted else row.name


# The layout: the model placed for a canvas


class Label(NamedTuple):
    """A text at a point of a panel, in its look: where it sits by the point (plotly's textposition), its size, its
    colour (None: the body's), and whether it is on a bar's fill."""

    x: float
    y: float
    text: str
    position: str
    size: float
    colour: str | None = None
    on_fill: bool = False


class Heading(NamedTuple):
    """A panel's title over it (in paper units): centred over a wide panel, from the left over a stacked one."""

    text: str
    x: float
    y: float
    left: bool


class PanelPlace(NamedTuple):
    """A panel placed: its x axis's domain; its bars' middles and thickness on its y axis (a wide column's rows, or
    a stacked panel's own px from its top, `height` of them in its y axis's `y_domain`); its labels, its axis's title
    (broken to the column) and heading."""

    panel: Panel
    x_domain: list[float]
    bar_y: list[float]
    bar_width: float
    labels: list[Label]
    axis_title: str
    heading: Heading
    y_domain: list[float] | None = None
    height: float = 0.0


class Wide(NamedTuple):
    """Panels side by side: the figure's height, the space over its plot, the legend's lift over the plot (in plot
    heights)."""

    panels: tuple[PanelPlace, PanelPlace]
    height: float
    top: float
    legend_lift: float


class Stacked(NamedTuple):
    """Panels stacked: the figure's height, the space over and under the panels, where the legend's bottom sits (in
    paper units), the title's size (px: the reader's)."""

    panels: tuple[PanelPlace, PanelPlace]
    height: float
    top: float
    bottom: float
    legend_y: float
    title_size: float


def placed(model: Bars, canvas: Canvas) -> Wide | Stacked:
    """The bars placed for the canvas: stacked on a phone's column, side by side otherwise."""
    if canvas.narrow:
        return stacked(model, canvas.screen_width, canvas.text)
    return wide(model, canvas.screen_width, canvas.text)


def _at_start(panel: Panel) -> float:
    """The x of a label at the axis's start, a hair inside it."""
    return 10 ** (panel.lo + AXIS_HAIR)


def _value(row: int, bar: Bar, panel: Panel, dim: bool) -> Label:
    """The value at a bar's end; inside the bar (in the ink that reads on both of its colours)
    when the bar fills most of the axis, so a long label cannot run into the next panel."""
    text = "  ".join(bar.value)
    if bar.total <= 0:  # no bar (0 B/token): the label starts at the axis
        return Label(_at_start(panel), row, text, "middle right", NAME_SIZE)
    inside = (math.log10(bar.total) - panel.lo) / (panel.hi - panel.lo) > INSIDE
    return Label(bar.total, row, text, "middle left" if inside else "middle right", NAME_SIZE,
                 ink_on(*(bar_colour(r, dim) for r in ROLES)) if inside else None, inside)


def _under(panel: Panel, y: float, text: str) -> Label:
    """Small text lines (joined by <br>) just under a bar (`y`: the bar's bottom), from the axis's start."""
    return Label(_at_start(panel), y, text, "bottom right", UNDER_SIZE, MUTED)


def wide(model: Bars, column: int | None, scale: float = 1.0) -> Wide:
    """Side by side, on a page column `column` px wide (None: natively, no breaking) with text `scale` times its
    sizes: a row per model, its name at the left, each panel's heading broken to its width."""
    names_px = max(text_px(row.name, TEMPLATE.layout.font.size * scale) for row in model.rows) + NAMES_PAD
    places, headings = [], 1  # its panels' headings' lines
    for i, panel in enumerate(model.panels):
        domain = [0, 0.5 - SIDE_GAP / 2] if i == 0 else [0.5 + SIDE_GAP / 2, 1]
        labels = [_value(r, bar, panel, row.dimmed) for r, (row, bar) in enumerate(zip(model.rows, panel.bars))]
        labels += [_under(panel, r + BAR / 2, "<br>".join(bar.under)) for r, bar in enumerate(panel.bars) if bar.under]
        text = panel.title if not column else "<br>".join(
            wrapped(panel.title, (column - names_px - (WIDE_MARGIN["l"] + WIDE_MARGIN["r"])) * (domain[1] - domain[0]),
                    PANEL_TITLE * scale))
        headings = max(headings, html_lines(text))
        places.append(PanelPlace(panel, domain, list(range(len(model.rows))), BAR, labels, panel.axis_title,
                                 Heading(text, sum(domain) / 2, 1.0, left=False)))
    more = (headings - 1) * LINE * PANEL_TITLE * scale  # the headings' lines past one, over the plot
    height, top = (WIDE_CHROME + ROW_PX * len(model.rows)) * scale + more, WIDE_TOP * scale + more
    # the legend over the headings, by the title
    lift = LEGEND_LIFT if not more else \
        (headings * LINE * PANEL_TITLE * scale + LEGEND_GAP) / (height - top - WIDE_MARGIN["b"])
    return Wide(tuple(places), height, top, lift)


def _stacked_panel(model: Bars, panel: Panel, width: float, scale: float) -> PanelPlace:
    """A panel in a phone's column `width` px wide, in px from its top: each row its name and value, its bar,
    its lines under it. Its domain is left to `stacked`."""
    name_size, under_size = NAME_SIZE * scale, UNDER_SIZE * scale
    s = stack_rows(((wrapped_parts([shown(row), *bar.value], width, name_size),
                     wrapped("<br>".join(bar.under), width, under_size) if bar.under else [])
                    for row, bar in zip(model.rows, panel.bars)), name_size, under_size, BAR_PX, ROW_GAP * scale)
    labels = [Label(_at_start(panel), y, head, "top right", NAME_SIZE) for y, head in s.heads]
    labels += [_under(panel, y, under) for y, under in s.unders]
    axis_title = "<br>".join(wrapped(panel.axis_title, width, AXIS_TITLE * scale))
    title = "<br>".join(wrapped(panel.title, width, PANEL_TITLE * scale))
    return PanelPlace(panel, [0, 1], list(s.bars), BAR_PX, labels, axis_title, Heading(title, 0, 0.0, left=True),
                      height=s.depth)


def stacked(model: Bars, column: int, scale: float = 1.0) -> Stacked:
    """A phone's column `column` px wide, its text `scale` times its sizes: the storage panel over the read panel,
    each with a y axis of its own in px. Over the storage panel its heading; over the read panel the storage axis's
    labels and title and its heading; over the plot the title and subtitle (the screen pass adds the lines it breaks
    them into), the legend, the storage panel's heading."""
    width = column - NARROW_MARGIN["l"] - NARROW_MARGIN["r"]
    title_size, axis_size, legend_size = PANEL_TITLE * scale, AXIS_TITLE * scale, LEGEND_SIZE * scale
    upper, lower = (_stacked_panel(model, panel, width, scale) for panel in model.panels)
    ticks = LINE * UNDER_TICKS * scale + TICK_PAD
    gap = ticks + html_lines(upper.axis_title) * LINE * axis_size + PANEL_GAP * scale + \
        html_lines(lower.heading.text) * LINE * title_size
    bottom = ticks + html_lines(lower.axis_title) * LINE * axis_size + BOTTOM_PAD * scale
    total = upper.height + gap + lower.height
    places, at = [], total
    for place in (upper, lower):
        domain = [max((at - place.height) / total, 0.0), min(at / total, 1.0)]
        places.append(place._replace(y_domain=domain, heading=place.heading._replace(y=domain[1])))
        at -= place.height + gap
    over_plot = html_lines(upper.heading.text) * LINE * title_size + HEADING_PAD  # the storage panel's heading
    legend = legend_rows(list(model.legend), width, legend_size) * LINE * legend_size + LEGEND_PAD * scale
    size = TEMPLATE.layout.title.font.size * scale
    top = title_top(size) + (LINE + SUP_FOOT) * size + TITLE_GAP + legend + over_plot
    return Stacked(tuple(places), top + total + bottom, top, bottom, 1 + over_plot / total, size)


# The drawer: a placement as plotly


@draw.register
def draw_bars(model: Bars, canvas: Canvas) -> Drawn:
    """The bars placed for the canvas and drawn."""
    place = placed(model, canvas)
    return _draw_stacked(model, place) if isinstance(place, Stacked) else _draw_wide(model, place)


def _draw_wide(model: Bars, place: Wide) -> Drawn:
    traces, fills, axes = [], set(), {}
    for xref, p in zip(PANELS, place.panels):
        traces += _bar_traces(model, p, xref, "y")
        _add_texts(traces, fills, p.labels, xref, "y")
        axes[_axis("xaxis", xref)] = dict(type="log", range=[p.panel.lo, p.panel.hi], domain=p.x_domain, anchor="y",
                                          exponentformat="SI", title=dict(text=p.axis_title))
    n = len(model.rows)
    layout = dict(
        template="kv_atlas",
        title=heading(model.title, model.subtitle),
        yaxis=dict(tickvals=list(range(n)), ticktext=[shown(row) for row in model.rows], showgrid=False,
                   zeroline=False, range=[n - 1 + ROW_UNDER, -ROW_OVER]),
        annotations=[_note(p.heading) for p in place.panels],
        barmode="overlay",
        height=place.height,
        margin=dict(l=WIDE_MARGIN["l"], r=WIDE_MARGIN["r"], t=place.top, b=WIDE_MARGIN["b"]),
        legend=dict(orientation="h", y=1 + place.legend_lift, yanchor="bottom", x=1.0, xanchor="right",
                    font=dict(size=LEGEND_SIZE)),
        hovermode="closest",
        **axes,
    )
    return Drawn(go.Figure(data=traces, layout=layout), OnFill(traces=frozenset(fills)))


def _draw_stacked(model: Bars, place: Stacked) -> Drawn:
    traces, fills, axes = [], set(), {}
    for xref, yref, p in zip(PANELS, ("y", "y2"), place.panels):
        traces += _bar_traces(model, p, xref, yref)
        _add_texts(traces, fills, p.labels, xref, yref)
        axes[_axis("xaxis", xref)] = dict(type="log", range=[p.panel.lo, p.panel.hi], domain=p.x_domain, anchor=yref,
                                          exponentformat="SI", title=dict(text=p.axis_title))
        axes[_axis("yaxis", yref)] = dict(domain=p.y_domain, range=[p.height, 0], visible=False, fixedrange=True)
    layout = dict(template="kv_atlas", title=title_at_top(heading(model.title, model.subtitle), place.height,
                                                          place.title_size),
                  annotations=[_note(p.heading) for p in place.panels], barmode="overlay", height=place.height,
                  margin=dict(NARROW_MARGIN, t=place.top, b=place.bottom), hovermode="closest",
                  legend=dict(orientation="h", x=0, xanchor="left", y=place.legend_y, yanchor="bottom",
                              font=dict(size=LEGEND_SIZE)),
                  **axes)
    return Drawn(go.Figure(data=traces, layout=layout), OnFill(traces=frozenset(fills)))


def _axis(kind: str, ref: str) -> str:
    """A layout's axis key of a trace's axis reference ('x2' → 'xaxis2')."""
    return kind + ref[1:]


def _note(h: Heading) -> dict:
    note = dict(text=h.text, x=h.x, y=h.y, xref="paper", yref="paper", xanchor="left" if h.left else "center",
                yanchor="bottom", showarrow=False, font=dict(size=PANEL_TITLE))
    return note | dict(align="left", yshift=HEADING_LIFT) if h.left else note


def _bar_traces(model: Bars, p: PanelPlace, xref: str, yref: str) -> list[dict]:
    """Two overlaid bar traces: blue from the axis start to the share point, red after it."""
    start, lo = 10 ** p.panel.lo, p.panel.lo
    totals = [bar.total for bar in p.panel.bars]
    edges = [10 ** (lo + bar.kv / bar.total * (math.log10(bar.total) - lo)) if bar.total > 0 else start
             for bar in p.panel.bars]
    segments = {
        "main_kv": ([start] * len(edges), [e - start for e in edges]),
        "index_key": (edges, [max(tot - e, 0) for tot, e in zip(totals, edges)]),
    }
    hover = [bar.hover for bar in p.panel.bars]
    return [
        dict(type="bar", y=p.bar_y, x=length, base=base, orientation="h", width=p.bar_width,
             xaxis=xref, yaxis=yref, name=name, legendgroup=role, showlegend=xref == "x",
             marker=dict(color=[bar_colour(role, row.dimmed) for row in model.rows]),
             customdata=hover, hovertemplate="%{customdata}<extra></extra>")
        for (role, (base, length)), name in zip(segments.items(), model.legend)
    ]


def _add_texts(traces: list[dict], fills: set[int], labels: list[Label], xref: str, yref: str) -> None:
    """A panel's labels added to `traces`, the indices of those on a bar's fill to `fills`."""
    for trace, on_fill in _text_traces(labels, xref, yref):
        if on_fill:
            fills.add(len(traces))
        traces.append(trace)


def _text_traces(labels: list[Label], xref: str, yref: str) -> list[tuple[dict, bool]]:
    """One text trace per look (position, size, colour, whether on a fill) of a panel's labels, each with
    whether it sits on a fill. The points carry invisible markers: plotly sets text off by the marker's radius,
    the labels' padding."""
    looks: dict[tuple, list[Label]] = {}
    for label in labels:
        looks.setdefault((label.position, label.size, label.colour, label.on_fill), []).append(label)
    return [(dict(type="scatter", mode="markers+text", x=[lb.x for lb in group], y=[lb.y for lb in group],
                  text=[lb.text for lb in group], textposition=position, marker=dict(size=LABEL_PAD, opacity=0),
                  textfont=dict(size=size, color=colour), xaxis=xref, yaxis=yref, cliponaxis=False,
                  hoverinfo="skip", showlegend=False), on_fill)
            for (position, size, colour, on_fill), group in looks.items()]
