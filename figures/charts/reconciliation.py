"""The reconciliation chart (figures/builders/reconcile.py): why published numbers differ from the article's, one
row per (variant, model it changes) in two panels — storage per token, the read of one decode step — the
variant's number a bar, the article's a black tick on it. Its model, its layout for a canvas (the panels side by
side, each bar's numbers after it; on a phone's column, or where those numbers would take most of a panel, the
storage panel over the read panel, each bar under its row's name and numbers) and its drawer."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import plotly.graph_objects as go

from ..canvas import LINE, SUP_FOOT, Canvas, legend_rows, title_at_top, title_top
from ..contrast import INK
from ..style import MUTED, TEMPLATE, Drawn, heading
from ..text import text_px, wrap, wrapped
from .kind import draw
from .spacing import BAR_COLOUR

PANELS = ("x", "x2")  # the storage panel's x axis, the read panel's
TICK_PX, TICK_WIDTH = 26, 3  # px: the article's tick's length across a bar, its thickness
PAD = 0.3  # decades of an axis before the smallest value and, where no label follows the bars, after the largest
LABEL_DECADES = 2.4  # decades after the largest value for the labels after the bars (natively, on a slide)

# side by side, px at the reader's text size 1
NAME_TEXT, HEADING_TEXT = 12, 14  # px: the rows' names (the y axis), a panel's heading
DOMAINS = ([0, 0.46], [0.54, 1])  # of the plot's width: the storage panel's, the read panel's
HEADINGS_AT = (0.24, 0.76)  # of the plot's width: each panel's heading, over its middle
NAME_GAP = 16  # px between the longest name and the plot
LABEL_GAP = 8  # px between a bar's end and its label
CROWDED = 0.7  # of a panel's width: a label wider than this stacks the panels
HEIGHT_PX, ROW_PX = 160, 58  # px: the figure besides its rows (title, headings, axis), a row
LEFT, RIGHT, TOP, BOTTOM = 10, 120, 110, 10  # px margins: the right one holds the read panel's labels
LEGEND_Y = 1.09  # of the plot's height: the legend's foot, level with the subtitle, at the right

# a phone's column (figures.canvas.narrow), px at the reader's text size 1
PHONE_TEXT, PANEL_TEXT = 12, 14  # a row's name and numbers; a panel's heading
# a bar's thickness (not text: it keeps its size), between rows, an axis's labels
BAR_PX, ROW_GAP, TICKS_PX = 16, 14, 28
PHONE_MARGIN = 10  # each side of the column
UNDER_LINES = 6  # between a row's last line and its bar's top
PANEL_GAP = 8  # between the upper panel's axis labels and the lower panel's heading
HEADING_LIFT = 4  # between a panel's heading and its first row
TITLE_GAP = 12  # between the subtitle and the upper panel's heading
LEGEND_FOOT = 20  # under the legend


@dataclass(frozen=True)
class Panel:
    """One panel: its heading, and per row the article's number (a tick), the variant's (a bar) and its label
    (the change, lines joined by <br>)."""

    title: str
    article: tuple[float, ...]
    variant: tuple[float, ...]
    labels: tuple[str, ...]


@dataclass(frozen=True)
class ReconciliationChart:
    """The chart's words and numbers in the reader's language: title, subtitle, the rows' names, the storage
    and the read panels, the article's ticks' name (the legend), and the records an export writes."""

    title: str
    subtitle: str
    rows: tuple[str, ...]
    panels: tuple[Panel, Panel]
    article: str
    numbers: tuple[dict, ...]


class SideBySide(NamedTuple):
    """The panels side by side: each x axis's range (log10), the figure's height and its text size."""

    ranges: tuple[list[float], list[float]]
    height: float
    scale: float


class PhonePanel(NamedTuple):
    """A stacked panel: its heading's lines, each row's lines (name and numbers) with the px they start at and
    the px its bar's middle is at, its depth in px and its share of the plot's height."""

    heading: tuple[str, ...]
    rows: tuple[tuple[float, str], ...]
    bars: tuple[float, ...]
    depth: float
    domain: list[float]


class Stacked(NamedTuple):
    """The storage panel over the read panel: each panel's x axis's range (log10), its rows, the margins, the
    figure's height and its title's size."""

    ranges: tuple[list[float], list[float]]
    panels: tuple[PhonePanel, PhonePanel]
    top: float
    bottom: float
    height: float
    title_size: float


def place(model: ReconciliationChart, canvas: Canvas) -> SideBySide | Stacked:
    """Side by side unless on a phone's column (for its text), or on a page column where a label would take most
    of a panel."""
    ranges = None if canvas.narrow else side_ranges(model, canvas)
    if ranges is None:
        return stacked(model, canvas)
    return SideBySide(ranges, (HEIGHT_PX + ROW_PX * len(model.rows)) * canvas.text, canvas.text)


def extent(panel: Panel) -> tuple[float, float]:
    """log10 of a panel's smallest and largest number, the article's and the variant's."""
    values = panel.article + panel.variant
    return math.log10(min(values)), math.log10(max(values))


def side_ranges(model: ReconciliationChart, canvas: Canvas) -> tuple[list[float], list[float]] | None:
    """Each panel's range with room after the bars for their labels: LABEL_DECADES natively; on a page column
    the room its labels take at the reader's text size (None where one takes most of a panel)."""
    natural = tuple([low - PAD, high + LABEL_DECADES] for low, high in map(extent, model.panels))
    if not canvas.screen_width:
        return natural
    size = TEMPLATE.layout.font.size * canvas.text
    left = max(text_px(name, NAME_TEXT * canvas.text) for name in model.rows) + NAME_GAP
    width = (canvas.screen_width - left - RIGHT * canvas.text) * DOMAINS[0][1]
    out = []
    for panel, (lo, _) in zip(model.panels, natural):
        hi = math.log10(max(panel.variant))
        widths = [max(text_px(line, size) for line in text.split("<br>")) + LABEL_GAP for text in panel.labels]
        if max(widths) > CROWDED * width:
            return None
        span = max((math.log10(x) - lo) / (1 - w / width) for x, w in zip(panel.variant, widths))
        out.append([lo, max(lo + span, hi + PAD)])
    return tuple(out)


def bold_lines(text: str, width: float, size: float) -> list[str]:
    """A text drawn bold, broken to `width` px at `size` as bold letters measure."""
    return wrap(text, width, lambda line: text_px(f"<b>{line}</b>", size))


def stacked(model: ReconciliationChart, canvas: Canvas) -> Stacked:
    """The storage panel over the read panel, each as wide as the column, every bar under its row's name and
    numbers (broken to the column), the text the reader's text size times its sizes."""
    scale = canvas.text
    room = canvas.screen_width - 2 * PHONE_MARGIN
    text, panel_text = PHONE_TEXT * scale, PANEL_TEXT * scale
    columns = []  # each panel's heading, rows, bars and depth
    for panel in model.panels:
        y, rows, bars = 0.0, [], []
        for name, label in zip(model.rows, panel.labels):
            lines = [f"<b>{line}</b>" for line in bold_lines(name, room, text)] + wrapped(label, room, text)
            rows.append((y, "<br>".join(lines)))
            y += len(lines) * LINE * text + BAR_PX / 2 + UNDER_LINES
            bars.append(y)
            y += BAR_PX / 2 + ROW_GAP * scale
        columns.append((tuple(bold_lines(panel.title, room, panel_text)), tuple(rows), tuple(bars), y))
    # between the panels: the upper one's axis labels, then the lower one's heading
    gap = TICKS_PX * scale + len(columns[1][0]) * LINE * panel_text + PANEL_GAP
    total = sum(c[3] for c in columns) + gap
    at, panels = total, []
    for heading_lines, rows, bars, depth in columns:
        domain = [max((at - depth) / total, 0.0), min(at / total, 1.0)]
        panels.append(PhonePanel(heading_lines, rows, bars, depth, domain))
        at -= depth + gap
    size = TEMPLATE.layout.title.font.size * scale  # the title and subtitle, then the upper panel's heading
    top = title_top(size) + (LINE + SUP_FOOT) * size + TITLE_GAP + len(columns[0][0]) * LINE * panel_text \
        + HEADING_LIFT
    legend = legend_rows([model.article], room, TEMPLATE.layout.font.size * scale)
    bottom = TICKS_PX * scale + legend * LINE * TEMPLATE.layout.font.size * scale + LEGEND_FOOT
    # the labels are over the bars: no room after them
    ranges = tuple([low - PAD, high + PAD] for low, high in map(extent, model.panels))
    return Stacked(ranges, tuple(panels), top, bottom, top + total + bottom, size)


@draw.register
def _(model: ReconciliationChart, canvas: Canvas) -> Drawn:
    placed = place(model, canvas)
    return Drawn(drawn_stacked(model, placed) if isinstance(placed, Stacked) else drawn_side_by_side(model, placed))


def traces(model: ReconciliationChart, ys: tuple | None = None) -> list[dict]:
    """Per panel its bars (the variant's numbers, labelled after them) and the article's ticks; `ys` each stacked
    panel's bars' px (its own y axis; the labels are then over the bars, as annotations)."""
    out = []
    for k, (xref, panel) in enumerate(zip(PANELS, model.panels)):
        y, yref = (list(model.rows), "y") if ys is None else (list(ys[k]), f"y{k + 1 if k else ''}")
        bars = dict(type="bar", x=list(panel.variant), y=y, orientation="h", xaxis=xref, yaxis=yref, showlegend=False,
                    marker_color=BAR_COLOUR, text=list(panel.labels), textposition="outside", cliponaxis=False,
                    hoverinfo="skip")
        ticks = dict(type="scatter", x=list(panel.article), y=y, mode="markers", xaxis=xref, yaxis=yref,
                     showlegend=xref == "x", name=model.article, hoverinfo="skip",
                     marker=dict(symbol="line-ns", size=TICK_PX, line=dict(width=TICK_WIDTH, color=INK)))
        if ys is not None:
            bars.update(text=None, width=BAR_PX)
            ticks["marker"]["size"] = BAR_PX + 2
        out += [bars, ticks]
    return out


def drawn_side_by_side(model: ReconciliationChart, placed: SideBySide) -> go.Figure:
    notes = [dict(text=panel.title, x=x, y=1.0, xref="paper", yref="paper", xanchor="center", yanchor="bottom",
                  showarrow=False, font=dict(size=HEADING_TEXT)) for panel, x in zip(model.panels, HEADINGS_AT)]
    scale = placed.scale
    return go.Figure(data=traces(model), layout=dict(
        template="kv_atlas", title=heading(model.title, model.subtitle), height=placed.height, annotations=notes,
        margin=dict(l=LEFT, r=RIGHT * scale, t=TOP * scale, b=BOTTOM),
        xaxis=dict(type="log", domain=DOMAINS[0], range=placed.ranges[0], exponentformat="SI"),
        xaxis2=dict(type="log", domain=DOMAINS[1], range=placed.ranges[1], exponentformat="SI"),
        yaxis=dict(autorange="reversed", tickfont=dict(size=NAME_TEXT)),
        legend=dict(orientation="h", x=1, xanchor="right", y=LEGEND_Y, yanchor="bottom", font=dict(color=MUTED))))


def drawn_stacked(model: ReconciliationChart, placed: Stacked) -> go.Figure:
    """A y axis in px per panel places each bar under its own lines; the rows' lines and the panels' headings
    are annotations."""
    notes, layout = [], {}
    for k, (xref, panel) in enumerate(zip(PANELS, placed.panels)):
        yref = f"y{k + 1 if k else ''}"
        notes += [dict(text=text, x=0, y=y, xref=f"{xref} domain", yref=yref, xanchor="left", yanchor="top",
                       align="left", showarrow=False, font=dict(size=PHONE_TEXT)) for y, text in panel.rows]
    for k, (xref, panel) in enumerate(zip(PANELS, placed.panels)):
        yref, n = f"y{k + 1 if k else ''}", k + 1 if k else ""
        layout[f"xaxis{n}"] = dict(type="log", domain=[0, 1], range=placed.ranges[k], exponentformat="SI",
                                   anchor=yref)
        layout[f"yaxis{n}"] = dict(domain=panel.domain, range=[panel.depth, 0], visible=False, anchor=xref)
        notes.append(dict(text="<br>".join(f"<b>{line}</b>" for line in panel.heading), x=0, y=panel.domain[1],
                          xref="paper", yref="paper", xanchor="left", yanchor="bottom", yshift=HEADING_LIFT,
                          align="left", showarrow=False, font=dict(size=PANEL_TEXT)))
    # at the top edge, not plotly's middle of the margin, which the panel's heading shares
    title = title_at_top(heading(model.title, model.subtitle), placed.height, placed.title_size)
    return go.Figure(data=traces(model, tuple(panel.bars for panel in placed.panels)), layout=dict(
        template="kv_atlas", title=title, annotations=notes, height=placed.height,
        margin=dict(l=PHONE_MARGIN, r=PHONE_MARGIN, t=placed.top, b=placed.bottom),
        legend=dict(orientation="h", x=0, yref="container", y=0, yanchor="bottom", font=dict(color=MUTED)),
        **layout))
