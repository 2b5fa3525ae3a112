"""The memory budget chart (figures/builders/budget.py): one GPU's memory as a stacked bar per rule (the planner's,
vLLM's, SGLang's), split by part, the card's memory marked. Its model, its layout for a canvas (every row's lines
over and under its bar, broken to the plot's width at the reader's text size; the legend in a grid under the axis)
and its drawer."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import plotly.graph_objects as go

from ..canvas import LEGEND_SYMBOL, LINE, Canvas, title_at_top
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, Drawn, heading
from ..text import text_px, wrapped_parts
from .kind import draw
from .spacing import ANCHOR_PX, EDGE, TITLE_PX, RowStack, html_lines, stack_rows, subtitle_lines

# a segment's colour by part (core.BUDGET_PARTS): the weights and the KV pool as the article colours them
COLOURS = {"runtime": "#9ca3af", "weights": ROLE_COLOURS["weight"], "activations": "#e8890c", "graphs": "#b45309",
           "margin": "#f4c04e", "reserve": MUTED, "kv": ROLE_COLOURS["main_kv"], "states": "#0f9d8a",
           "left": "#d9dde3"}
SEGMENT_EDGE = dict(width=0.5, color="#ffffff")  # a thin white line between a bar's segments

# px at the reader's text size 1
NATIVE_WIDTH = 660  # px the rows' text and the subtitle are broken to natively (an export's 700 px, less margins)
HEAD, UNDER = 13, 12  # px: a row's head (its rule and pool), its lines under the bar
BAR = 22  # px: a bar's thickness (not text: it keeps its size)
GAP = 14  # px after a row
AXIS_PX = 54  # px under the plot the x axis's labels and title take (the legend goes under them)
LEFT, RIGHT = 10, 20  # px margins left and right of the plot
MARGIN_X = LEFT + RIGHT  # px of margin left and right of the plot together
TEXT_PAD = 14  # px from the plot's left edge to a row's text (the invisible marker it is placed beside)
TITLE_PAD = 30  # px of the top margin besides the title's and the subtitle's lines
LEGEND_ROW_PAD = 4  # px a legend's row takes besides its line
LEGEND_FOOT = 16  # px under the legend
REACH = 1.02  # the x axis reaches this many times the longest bar (or the card's memory, where that is longer)


@dataclass(frozen=True)
class BudgetRow:
    """One rule's bar: its head (the rule and its pool, or why it has none) and the size of every other part it
    sets aside (none where the rule has no split), each as parts a line breaks between."""

    head: tuple[str, ...]
    under: tuple[str, ...]


@dataclass(frozen=True)
class BudgetPart:
    """One part's segments, a trace of the stack: its key (its colour, COLOURS), its name (the legend), its size in
    every row (in the x axis's unit; 0 where the row has none) and every segment's hover."""

    key: str
    name: str
    sizes: tuple[float, ...]
    hovers: tuple[str, ...]


@dataclass(frozen=True)
class BudgetChart:
    """The chart's words and numbers in the reader's language: its title, the subtitle's first line (the card,
    the layout, the weights' bytes) and its note (the assumptions), the x axis's title, a row per rule, a part per
    segment shown (in the stack's order), the card's memory and the longest bar or card (in the axis's unit), and
    the records an export writes."""

    title: str
    lead: str
    note: str
    axis: str
    rows: tuple[BudgetRow, ...]
    parts: tuple[BudgetPart, ...]
    card: float
    longest: float
    numbers: tuple[dict, ...]

    @property
    def subtitle(self) -> str:
        return f"{self.lead}<br>{self.note}"


class Placed(NamedTuple):
    """The rows down the plot (px): each row's head (drawn above where its lines end), each bar's middle, the
    lines under a bar (drawn below where they start), the rows' depth; the subtitle's lines; the legend's columns;
    the top and bottom margins and the figure's height."""

    heads: tuple[tuple[float, str], ...]
    bars: tuple[float, ...]
    unders: tuple[tuple[float, str], ...]
    depth: float
    subtitle: str
    columns: int
    top: float
    bottom: float
    height: float


def place(model: BudgetChart, canvas: Canvas) -> Placed:
    """The rows broken to the plot's width and spaced at the reader's text size, the legend's grid under the axis
    as wide as the plot, the margins holding the title's lines and the legend's."""
    heads, bars, unders, depth = rows(model, canvas)
    subtitle = "<br>".join(subtitle_lines((model.lead, model.note), NATIVE_WIDTH, bool(canvas.screen_width)))
    top = TITLE_PAD + (html_lines(subtitle) + 1) * LINE * TITLE_PX  # the title's line and the subtitle's
    body = TEMPLATE.layout.font.size * canvas.text
    room = (canvas.screen_width or NATIVE_WIDTH + MARGIN_X) - MARGIN_X
    columns = legend_columns([part.name for part in model.parts], room, body)
    legend_lines = math.ceil(len(model.parts) / columns)
    bottom = AXIS_PX * canvas.text + legend_lines * (LINE * body + LEGEND_ROW_PAD) + LEGEND_FOOT
    return Placed(heads, bars, unders, depth, subtitle, columns, top, bottom, top + depth + bottom)


def rows(model: BudgetChart, canvas: Canvas) -> RowStack:
    """Each row's head, bar and lines under it, down the plot in px: broken to the plot's width (less the texts'
    pad, left of the card's mark) on a page column, else to NATIVE_WIDTH."""
    scale = canvas.text
    width = (canvas.screen_width - MARGIN_X) / REACH - TEXT_PAD if canvas.screen_width else NATIVE_WIDTH
    head_size, under_size = HEAD * scale, UNDER * scale
    return stack_rows(((wrapped_parts(list(row.head), width, head_size),
                        wrapped_parts(list(row.under), width, under_size, sep=" · ") if row.under else [])
                       for row in model.rows), head_size, under_size, BAR, GAP * scale)


def legend_columns(names: list[str], room: float, size: float) -> int:
    """Entries a row of a horizontal legend of these names holds in `room` px at `size` px text: all of them
    where they fit side by side, else as many as the widest entry fits (the legend then set in a grid of that
    many equal columns, each a fraction of the plot's width: the same rows on a wider page column)."""
    entries = [text_px(name, size) + LEGEND_SYMBOL for name in names]
    if sum(entries) <= room:
        return len(entries)
    return max(1, int(room // max(entries)))


@draw.register
def _(model: BudgetChart, canvas: Canvas) -> Drawn:
    return Drawn(drawn(model, place(model, canvas)))


def drawn(model: BudgetChart, placed: Placed) -> go.Figure:
    """A y axis in px places each bar under its own lines; the texts are markers' texts at the axis's start."""
    traces = [go.Bar(y=list(placed.bars), x=list(part.sizes), orientation="h", width=BAR, name=part.name,
                     marker_color=COLOURS[part.key], marker_line=dict(SEGMENT_EDGE), customdata=list(part.hovers),
                     hovertemplate="%{customdata}<extra></extra>")
              for part in model.parts]
    edge = model.longest * EDGE
    texts = [go.Scatter(x=[edge] * len(points), y=[at for at, _ in points], text=[s for _, s in points],
                        mode="markers+text", textposition=where, marker=dict(size=ANCHOR_PX, opacity=0),
                        cliponaxis=False, textfont=dict(size=size, color=colour), hoverinfo="skip", showlegend=False)
             for points, where, size, colour in ((placed.heads, "top right", HEAD, None),
                                                 (placed.unders, "bottom right", UNDER, MUTED)) if points]
    columns, shown = placed.columns, len(model.parts)
    return go.Figure([*traces, *texts], layout=dict(
        template="kv_atlas", title=title_at_top(heading(model.title, placed.subtitle), placed.height, TITLE_PX),
        height=placed.height, margin=dict(l=LEFT, r=RIGHT, t=placed.top, b=placed.bottom), barmode="stack",
        showlegend=True,
        # under the axis, from the figure's foot (the layout reserves its rows: plotly sets them in a grid)
        # in a grid of `columns` as wide as the plot's, on a column as wide as its class or wider alike
        legend=dict(orientation="h", xref="container", x=0, xanchor="left", yref="container", y=0,
                    yanchor="bottom", traceorder="normal",
                    **(dict(entrywidthmode="fraction", entrywidth=1 / columns) if columns < shown else {})),
        xaxis=dict(title=dict(text=model.axis), range=[0, model.longest * REACH], rangemode="tozero"),
        # the card's memory: where every bar ends that fits, what one that does not passes
        shapes=[dict(type="line", x0=model.card, x1=model.card, y0=0, y1=1, yref="paper", layer="below",
                     line=dict(color=MUTED, width=1, dash="dot"))],
        yaxis=dict(range=[placed.depth, 0], visible=False, fixedrange=True)))
