"""The capacity planner's chart (figures/builders/planner.py): a bar per model, the requests that fit on a GPU node
at a context (or the longest context for some requests), each bar labelled with what its count rests on. Its
model, its layout for a canvas (the labels beside the bars; on a phone's column each bar under its own lines) and
its drawer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import plotly.graph_objects as go

from ..canvas import LINE, Canvas, title_at_top
from ..style import MUTED, TEMPLATE, Drawn, heading
from ..text import text_px, wrapped, wrapped_parts
from .kind import draw
from .spacing import ANCHOR_PX, BAR_COLOUR, EDGE, TITLE_PX, stack_rows, subtitle_lines

NOTE_WIDTH = 640  # px the subtitle's note is broken to natively (an export's 700 px, less margins)

# the labels beside the bars (natively, on a slide, on a page column wider than a phone's), px at text size 1
ROOM = 1.8  # the x axis reaches this many times the longest bar: the bars take 1/ROOM of the plot, labels the rest
NAME_GAP = 20  # px between the longest model name and the plot
LABEL_MARGINS = 70  # px of a page column besides the names the plot does not take: the side margins, 20 spare
ROW_PX = 52  # px a row takes at least
ROW_PAD = 16  # px a row takes besides its label's lines
FRAME_PX = 140  # px of the figure besides its rows and the note's lines: title, subtitle's first line, x axis
TOP_PX = 90  # the top margin besides the note's lines: the title and the subtitle's first line
LEFT, RIGHT, BOTTOM = 10, 40, 10  # px margins (plotly widens the left one for the names)

# a phone's column (figures.canvas.narrow), px at the reader's text size 1: a row's name and count, the lines
# under its bar; the bar's thickness (not text: it keeps its size), the space after a row
PHONE_TEXT, PHONE_UNDER, PHONE_BAR, PHONE_GAP = 13, 12, 18, 12
PHONE_MARGIN = 10  # px each side of the column
PHONE_TOP, PHONE_BOTTOM = 120, 20  # px margins: the screen pass sets the title's room, and the axis's
PHONE_REACH = 1.05  # the x axis reaches this many times the longest bar


@dataclass(frozen=True)
class CapacityRow:
    """One model's bar: its name, its count (requests, or the longest context; 0 where none fits, the label says
    why), what the count rests on (lines joined by <br>) and where its number comes from (the hover)."""

    name: str
    count: int
    label: str
    hover: str


@dataclass(frozen=True)
class CapacityChart:
    """The chart's words and numbers in the reader's language: its title, the subtitle's first line (the
    assumptions) and its note (how the node is spread, by which allocation: broken for the canvas), the x axis's
    title, a row per model, and the records an export writes."""

    title: str
    lead: str
    note: str
    axis: str
    rows: tuple[CapacityRow, ...]
    numbers: tuple[dict, ...]

    @property
    def subtitle(self) -> str:
        return f"{self.lead}<br>{self.note}"


class Beside(NamedTuple):
    """The bars with their labels right of them: each label broken to the room there, the subtitle's note lines,
    a row's px, the figure's height and top margin, and where the x axis ends."""

    labels: tuple[str, ...]
    note: tuple[str, ...]
    row_px: float
    height: float
    top: float
    reach: float


class Stacked(NamedTuple):
    """A phone's column: px down the rows, each row's name and count (drawn above where its lines end), each bar's
    middle, the lines under a bar (where it has any: drawn below where they start), the rows' depth and the
    figure's height."""

    heads: tuple[tuple[float, str], ...]
    bars: tuple[float, ...]
    unders: tuple[tuple[float, str], ...]
    depth: float
    height: float


def place(model: CapacityChart, canvas: Canvas) -> Beside | Stacked:
    """The chart laid out for the canvas: stacked on a phone's column (for its text), else the labels beside."""
    return stacked(model, canvas) if canvas.narrow else beside(model, canvas)


def beside(model: CapacityChart, canvas: Canvas) -> Beside:
    """Each label right of its bar (broken to the room there on a page column, at the reader's text size), a row
    as tall as the tallest label, the top margin grown by the note's lines."""
    size = TEMPLATE.layout.font.size * canvas.text
    labels = [row.label for row in model.rows]
    if canvas.screen_width:
        names_px = max(text_px(row.name, size) for row in model.rows) + NAME_GAP
        room = (canvas.screen_width - names_px - LABEL_MARGINS) * (1 - 1 / ROOM)
        labels = ["<br>".join(wrapped(label, room, size)) for label in labels]
    row_px = max(ROW_PX * canvas.text, max(label.count("<br>") + 1 for label in labels) * LINE * size + ROW_PAD)
    note = subtitle_lines((model.note,), NOTE_WIDTH, bool(canvas.screen_width))
    note_px = len(note) * LINE * TITLE_PX
    reach = max(max(row.count for row in model.rows), 1) * ROOM
    return Beside(tuple(labels), note, row_px, FRAME_PX + row_px * len(model.rows) + note_px, TOP_PX + note_px,
                  reach)


def stacked(model: CapacityChart, canvas: Canvas) -> Stacked:
    """A phone's column (for its text): each bar as wide as the column allows, under a line with its model's name
    and the label's first line, the label's other lines under the bar, all broken to the column."""
    scale, width = canvas.text, canvas.screen_width - 2 * PHONE_MARGIN
    name_size, under_size = PHONE_TEXT * scale, PHONE_UNDER * scale
    rows = []
    for row in model.rows:
        first, *rest = row.label.split("<br>")
        rows.append((wrapped_parts([f"<b>{row.name}</b>", first], width, name_size),
                     wrapped("<br>".join(rest), width, under_size) if rest else []))
    s = stack_rows(rows, name_size, under_size, PHONE_BAR, PHONE_GAP * scale)
    return Stacked(s.heads, s.bars, s.unders, s.depth, PHONE_TOP + s.depth + PHONE_BOTTOM)


@draw.register
def _(model: CapacityChart, canvas: Canvas) -> Drawn:
    placed = place(model, canvas)
    return Drawn(drawn_stacked(model, placed) if isinstance(placed, Stacked) else drawn_beside(model, placed))


def drawn_beside(model: CapacityChart, placed: Beside) -> go.Figure:
    # constraintext: plotly would shrink a label of several lines to its bar's thickness; its row holds it
    bars = go.Bar(y=[row.name for row in model.rows], x=[row.count for row in model.rows], orientation="h",
                  text=list(placed.labels), textposition="outside", constraintext="none", cliponaxis=False,
                  marker_color=BAR_COLOUR, customdata=[row.hover for row in model.rows],
                  hovertemplate="%{customdata}<extra></extra>")
    title = heading(model.title, "<br>".join((model.lead, *placed.note)))
    return go.Figure(bars, layout=dict(
        template="kv_atlas", title=title_at_top(title, placed.height, TITLE_PX), height=placed.height,
        margin=dict(l=LEFT, r=RIGHT, t=placed.top, b=BOTTOM), showlegend=False,
        xaxis=dict(title=dict(text=model.axis), range=[0, placed.reach], rangemode="tozero"),
        yaxis=dict(autorange="reversed")))


def drawn_stacked(model: CapacityChart, placed: Stacked) -> go.Figure:
    """A y axis in px places each bar under its own lines; the texts are markers' texts at the axis's start."""
    longest = max(row.count for row in model.rows) or 1
    edge = longest * EDGE
    text = [go.Scatter(x=[edge] * len(points), y=[at for at, _ in points], text=[s for _, s in points],
                       mode="markers+text", textposition=where, marker=dict(size=ANCHOR_PX, opacity=0),
                       cliponaxis=False, textfont=dict(size=size, color=colour), hoverinfo="skip", showlegend=False)
            for points, where, size, colour in ((placed.heads, "top right", PHONE_TEXT, None),
                                                (placed.unders, "bottom right", PHONE_UNDER, MUTED)) if points]
    bars = go.Bar(y=list(placed.bars), x=[row.count for row in model.rows], orientation="h", width=PHONE_BAR,
                  marker_color=BAR_COLOUR, customdata=[row.hover for row in model.rows],
                  hovertemplate="%{customdata}<extra></extra>")
    title = heading(model.title, model.subtitle)  # the note in one line: the screen pass breaks it to the column
    return go.Figure([bars, *text], layout=dict(
        template="kv_atlas", title=title_at_top(title, placed.height, TITLE_PX), height=placed.height,
        margin=dict(l=PHONE_MARGIN, r=PHONE_MARGIN, t=PHONE_TOP, b=PHONE_BOTTOM), showlegend=False,
        xaxis=dict(title=dict(text=model.axis), range=[0, longest * PHONE_REACH], rangemode="tozero"),
        yaxis=dict(range=[placed.depth, 0], visible=False, fixedrange=True)))
