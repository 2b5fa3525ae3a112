"""A model's layers in order as a strip of cells (A24): each cell coloured by how its layer gets its KV, the
layers sharing a global KV and those sharing a selection list bracketed under them, an encoder–decoder's split
marked. The model (`LayerStrip`), its layout for a canvas — one row of every layer where their cells hold their
names at the reader's text size, else rows of a few (a phone's column), the brackets broken with them — and its
drawer.

Places are in plot units: a layer's slot is 1 wide (slot i at x = i), its cell 1 tall on its row's base line
(y = 0 for the first row, one BLOCK lower for each further row); px where the names say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import NamedTuple

import plotly.graph_objects as go

from ..canvas import LINE, SCREEN_TEXT, SUP_FOOT, Canvas, legend_rows, title_at_top, title_top
from ..contrast import ink_on
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, Drawn, OnFill, heading
from ..text import text_px
from .kind import draw

# a cell's fill by its layer's mode, in the legend's order
MODE_COLOURS = {"SWA": "#d1d5db", "Full": ROLE_COLOURS["main_kv"], "Reindex": ROLE_COLOURS["index_key"],
                "Reuse": "#bcd3f5"}

# in plot units (a slot 1 wide, a cell 1 tall)
BLOCK = 4.8  # a row of layers with its brackets and the notes over it: rows stack this far apart
CELL_GAP = 0.06  # a cell's fill stops this short of its slot's either edge: a hairline between neighbours
MID = 0.5  # a slot's centre across, a cell's up: where its name, number and hover point sit
NUMBER_Y = -0.22  # a layer's number, under its cell
RATIO_Y = 1.2  # "m = k" over a run of CSA2 layers alike, clear of the cells' tops
STAR_Y = 1.62  # a layer storing global KV: its ★ over the ratio's note, ≈27 px over it at the wide units
PHONE_STAR_Y = 1.8  # ... ≈29 px over it at a phone's shorter units (UNIT_PX)
STACK_Y = 2.25  # an encoder's or decoder's name, over the ★s
TOP = 2.45  # the plot's top edge: room over the stacks' names
BRACKET_Y = (-0.75, -1.45)  # the KV groups' brackets under the numbers; the selection groups' under them
BRACKET_RISE = 0.18  # a bracket's ends reach up toward its cells
BRACKET_INSET = 0.1  # a bracket starts this far into its first slot and ends as far short of its last slot's end,
#                      apart from the next group's
LABEL_DROP = 0.08  # a group's label hangs this far under its bracket (anchored by its top)
SPLIT_FOOT, SPLIT_HEAD = -1.9, 2.3  # the encoder–decoder split's line: from under the selection brackets to past
#                                     the stacks' names, about its row's base
FOOT = -1.95  # the last row's foot: under the selection groups' labels
NAMES_Y = -2.3  # on a phone, the brackets' names under the last row's foot
NAMES_STEP = 0.4  # ... the second under the first where they do not fit side by side
NAMES_APART, NAMES_STACKED = 0.7, 1.1  # ... what they add under the foot: side by side; one under the other
X_PAD = 0.2  # the plot reaches this far past the first slot and the last: room for a centred note at an end

# in px
PHONE_LAYERS = 10  # layers to a row on a phone's column (fewer where larger text needs wider cells)
FEWER = (8, 6, 5, 4)  # ... tried in turn; the last whatever the text
CELL_PAD = 4  # a cell's short name clear of its fill's edges, together
NUMBER_GAP = 3  # neighbouring layers' numbers (and ratios) clear of one another
NAMES_PX = 110  # wide: left of the plot for the brackets' names (times the reader's text size)
RIGHT_PX = 20  # wide: right of the plot
EDGE_PX = 10  # a phone's: either side of the plot; every layout's under it
NAME_SHIFT = -6  # wide: a bracket row's name this far left of the plot
NAMES_SPACE = 12  # the brackets' names side by side: the first this far clear of the second
LABEL_PAD = 0.3  # ems: a group's label clear of its neighbour's
TITLE_GAP = 12  # under the title's last line, over the legend
LEGEND_GAP = 10  # under the legend, over the plot
WIDE_TOP = 110  # wide, at least the top it takes at 1× (the legend beside the title's last line); natively, the top
NATIVE_HEIGHT = 400  # natively and on a slide (which stretches it): one row of layers
UNIT_PX, WIDE_UNIT_PX = 48, 64  # a y unit on a phone's column; on a wider one (at the reader's text size 1)

# text sizes (px, before the reader's text size)
CELL_TEXT = 11  # a cell's short name; the brackets' names
SMALL_TEXT = 9  # layers' numbers, ratios, groups' labels
STAR_TEXT = 16
STACK_TEXT = 13


@dataclass(frozen=True)
class Mode:
    """How a layer gets its KV (core.mechanisms.sharing's label: SWA, Full, Reindex, Reuse; its fill is
    MODE_COLOURS's): its name in the legend and its short name on a cell."""

    key: str
    name: str
    short: str


@dataclass(frozen=True)
class Layer:
    """A layer, numbered from 0 (its slot): its mode's key, a CSA2 layer's compression ratio (None for a layer
    of another kind), whether it stores global KV (★), and what hovering it says."""

    index: int
    mode: str
    ratio: int | None
    stores_global: bool
    hover: str


@dataclass(frozen=True)
class Group:
    """Consecutive layers `first`..`last` (numbered from 0) sharing what one of them makes, and its label in
    words and short (a group of one layer is not labelled)."""

    first: int
    last: int
    label: str
    short: str

    @property
    def size(self) -> int:
        return self.last - self.first + 1


@dataclass(frozen=True)
class Brackets:
    """A row of brackets: its name, the role whose colour it is drawn in (figures.style.ROLE_COLOURS), its
    groups."""

    name: str
    role: str
    groups: tuple[Group, ...]


@dataclass(frozen=True)
class Stack:
    """An encoder–decoder's stack: its first layer, how many, and its name."""

    first: int
    count: int
    name: str


@dataclass(frozen=True)
class LayerStrip:
    """A24: the layers in order, the KV groups' and the selection groups' brackets (in that order), an
    encoder–decoder's two stacks (none for another model), the modes in the legend's order, and what it says
    beside the drawing."""

    title: str
    subtitle: str
    numbers: tuple[dict, ...]
    modes: tuple[Mode, ...]
    layers: tuple[Layer, ...]
    brackets: tuple[Brackets, Brackets]
    stacks: tuple[Stack, ...] = ()


# layout


class Grid(NamedTuple):
    """Where the layers go: `wide` (one row, the brackets' names left of it) or rows of `per` (a phone's
    column: their names under the last row), and `unit`, the px a slot takes across a page column (None
    natively and on a slide)."""

    wide: bool
    per: int
    rows: int
    unit: float | None

    def at(self, i: int) -> tuple[float, float]:
        """Layer i's slot: its left edge and its row's base line."""
        return i % self.per, -(i // self.per) * BLOCK


class Frame(NamedTuple):
    """Round the plot: the title, the top margin (title and legend), the figure's height, the plot's foot."""

    title: dict
    top: float
    height: float
    bottom: float


class Placed(NamedTuple):
    """A strip laid out for a canvas: its grid; for each row of brackets whether its groups' labels are in words
    (else short, where words would run into one another); whether a phone's brackets' names sit side by side
    under the last row (else one under the other); each stack's name's centre (in slots); its frame."""

    grid: Grid
    worded: tuple[bool, ...]
    apart: bool
    stack_x: tuple[float, ...]
    frame: Frame


def placed(model: LayerStrip, canvas: Canvas) -> Placed:
    at = grid(model, canvas)
    worded = tuple(at.unit is None or labels_fit([(x, row, g.label) for x, row, g in labels(b, at)], at,
                                                  SCREEN_TEXT * canvas.text)
                   for b in model.brackets)
    apart = at.wide or names_apart(model, at, canvas)
    return Placed(at, worded, apart, stack_centres(model, at, canvas), frame(model, at, apart, canvas))


def grid(model: LayerStrip, canvas: Canvas) -> Grid:
    """One row of every layer where its cells hold their names at the reader's text size; else (a phone) rows of
    a few."""
    n = len(model.layers)
    wide = not canvas.narrow and (canvas.text == 1 or layers_to_a_row(model, canvas, True) >= n)
    per = n if wide else layers_to_a_row(model, canvas, False)
    unit = plot_px(wide, canvas) / (per + 2 * X_PAD) if canvas.screen_width else None
    return Grid(wide, per, -(-n // per), unit)


def plot_px(wide: bool, canvas: Canvas) -> float:
    """px the plot takes across a page column: less the brackets' names and the right margin (wide), or a phone's
    margins."""
    return canvas.screen_width - (NAMES_PX * canvas.text + RIGHT_PX if wide else 2 * EDGE_PX)


def layers_to_a_row(model: LayerStrip, canvas: Canvas, wide: bool) -> int:
    """How many layers a row holds on a page column (with the margins of one row or of rows): all where they fit,
    else PHONE_LAYERS, or fewer where a cell would be narrower than its names and numbers at the reader's text
    size."""
    n = len(model.layers)
    size = SCREEN_TEXT * canvas.text  # the cells' texts (9 and 11 px) at the screen's floor, scaled
    inside = max(text_px(m.short, size) for m in model.modes)  # on the cell
    over = max(text_px(x, size) for x in ("m8", str(n)))  # over and under it, a slot's width apart
    for per in (n, PHONE_LAYERS, *FEWER):
        slot = plot_px(wide, canvas) / (per + 2 * X_PAD)
        if (1 - 2 * CELL_GAP) * slot >= inside + CELL_PAD and slot >= over + NUMBER_GAP:
            return per
    return FEWER[-1]


def parts(g: Group, at: Grid) -> list[tuple[int, int]]:
    """A group's layers row by row (first, last): its bracket broken with the rows."""
    per = at.per
    return [(max(g.first, row * per), min(g.last, row * per + per - 1))
            for row in range(g.first // per, g.last // per + 1)]


def labels(b: Brackets, at: Grid) -> list[tuple[float, float, Group]]:
    """Where a row of brackets' groups are labelled (x centre in slots, its row's base line, the group): a group
    of several layers under its longest part."""
    out = []
    for g in b.groups:
        if g.size > 1:
            first, last = max(parts(g, at), key=lambda fl: fl[1] - fl[0])
            (x0, dy), (x1, _) = at.at(first), at.at(last)
            out.append(((x0 + x1 + 1) / 2, dy, g))
    return out


def labels_fit(labels: list[tuple[float, float, str]], at: Grid, size: float) -> bool:
    """Whether bracket labels (x centre in slots, row, text) clear one another and the plot's edges at `size`
    px."""
    unit = at.unit
    boxes = sorted(((row, x * unit - w / 2, x * unit + w / 2) for x, row, text in labels
                    for w in [text_px(text, size) + LABEL_PAD * size]))
    for (row, _, x1), (other, y0, _) in zip(boxes, boxes[1:]):
        if row == other and y0 < x1:
            return False
    return all(x0 >= -X_PAD * unit and x1 <= (at.per + X_PAD) * unit for _, x0, x1 in boxes)


def under_names(model: LayerStrip) -> list[str]:
    """The brackets' names as a phone shows them under the last row: each after a bracket's sign."""
    return [f"⌐ {b.name}" for b in model.brackets]


def names_apart(model: LayerStrip, at: Grid, canvas: Canvas) -> bool:
    """Whether the brackets' names fit side by side under the last row: each in its half of it."""
    if at.unit is None:
        return True
    first, second = (text_px(name, CELL_TEXT * canvas.text) for name in under_names(model))
    return first + NAMES_SPACE < at.unit * at.per / 2 and second < at.unit * (at.per / 2 + X_PAD)


def stack_centres(model: LayerStrip, at: Grid, canvas: Canvas) -> tuple[float, ...]:
    """Each stack's name's centre: over its layers in its first row, on a page column as far in as keeps it on
    the plot."""
    out = []
    for s in model.stacks:
        (x0, _), (x1, _) = at.at(s.first), at.at(min(s.first + s.count, (s.first // at.per + 1) * at.per) - 1)
        centre = (x0 + x1 + 1) / 2
        if at.unit is not None:
            half = text_px(s.name, STACK_TEXT * canvas.text) / 2 / at.unit
            centre = min(max(centre, half - X_PAD), at.per + X_PAD - half)
        out.append(centre)
    return tuple(out)


def frame(model: LayerStrip, at: Grid, apart: bool, canvas: Canvas) -> Frame:
    """The title and the room round the plot: on a page column, over it the title's lines and the legend's rows
    at the reader's text size, the plot's units its px."""
    bottom = FOOT - (at.rows - 1) * BLOCK - (0 if at.wide else NAMES_APART if apart else NAMES_STACKED)
    title = heading(model.title, model.subtitle)
    if not canvas.screen_width:  # one row (text at 1×): the slide pass stretches it
        return Frame(title, WIDE_TOP, NATIVE_HEIGHT, bottom)
    scale = canvas.text
    size = TEMPLATE.layout.title.font.size * scale
    top = title_top(size) + LINE * size * title["text"].count("<br>") + SUP_FOOT * size + TITLE_GAP + \
        legend_rows([m.name for m in model.modes], plot_px(at.wide, canvas), TEMPLATE.layout.font.size * scale) * \
        LINE * TEMPLATE.layout.font.size * scale + LEGEND_GAP
    top = max(top, WIDE_TOP) if at.wide else top
    height = top + (TOP - bottom) * (UNIT_PX if not at.wide else WIDE_UNIT_PX) * scale + EDGE_PX
    return Frame(title_at_top(title, height, size), top, height, bottom)


# drawing


@draw.register
def draw_layer_strip(model: LayerStrip, canvas: Canvas) -> Drawn:
    p = placed(model, canvas)
    at, scale = p.grid, canvas.text
    legend = [go.Scatter(x=[None], y=[None], mode="markers", name=m.name,
                         marker=dict(symbol="square", size=12, color=MODE_COLOURS[m.key])) for m in model.modes]
    hover = go.Scatter(x=[at.at(ly.index)[0] + MID for ly in model.layers],
                       y=[at.at(ly.index)[1] + MID for ly in model.layers], mode="markers",
                       marker=dict(size=18, opacity=0), hovertext=[ly.hover for ly in model.layers],
                       hoverinfo="text", showlegend=False)
    fig = go.Figure(data=[*legend, hover])
    shapes = [*cells(model, at), *bracket_lines(model, at), *split_line(model, at)]
    cell, on_fill = cell_notes(model, at)  # first among the annotations: its indices are the figure's
    notes = [*cell, *ratio_notes(model, at), *bracket_notes(model, p),
             *([] if at.wide else name_notes(model, p)), *stack_notes(model, p)]
    fig.update_layout(
        template="kv_atlas", title=p.frame.title,
        shapes=shapes, annotations=notes, height=p.frame.height,
        margin=dict(l=NAMES_PX * scale if at.wide else EDGE_PX, r=RIGHT_PX if at.wide else EDGE_PX, t=p.frame.top,
                    b=EDGE_PX),
        xaxis=dict(visible=False, range=[-X_PAD, at.per + X_PAD]), yaxis=dict(visible=False,
                                                                             range=[p.frame.bottom, TOP]),
        legend=dict(orientation="h", x=1, xanchor="right", y=1.02, yanchor="bottom") if at.wide else
        dict(orientation="h", x=0, y=1, yanchor="bottom"), hovermode="closest")
    return Drawn(fig, OnFill(annotations=frozenset(on_fill)))


def cells(model: LayerStrip, at: Grid) -> list[dict]:
    out = []
    for ly in model.layers:
        x, dy = at.at(ly.index)
        out.append(dict(type="rect", x0=x + CELL_GAP, x1=x + (1 - CELL_GAP), y0=dy, y1=dy + 1,
                        fillcolor=MODE_COLOURS[ly.mode], line=dict(width=0)))
    return out


def cell_notes(model: LayerStrip, at: Grid) -> tuple[list[dict], set[int]]:
    """On each cell its mode's short name, under it its number, over it a ★ where it stores global KV; and the
    indices of the short names, which sit on the cells' fills."""
    short = {m.key: m.short for m in model.modes}
    out, on_fill = [], set()
    for ly in model.layers:
        x, dy = at.at(ly.index)
        on_fill.add(len(out))
        out.append(dict(x=x + MID, y=dy + MID, text=short[ly.mode], showarrow=False,
                        font=dict(size=CELL_TEXT, color=ink_on(MODE_COLOURS[ly.mode]))))
        out.append(dict(x=x + MID, y=dy + NUMBER_Y, text=f"{ly.index + 1}", showarrow=False,
                        font=dict(size=SMALL_TEXT, color=MUTED)))
        if ly.stores_global:
            out.append(dict(x=x + MID, y=dy + (STAR_Y if at.wide else PHONE_STAR_Y), text="★", showarrow=False,
                            font=dict(size=STAR_TEXT, color=ROLE_COLOURS["main_kv"])))
    return out, on_fill


def ratio_notes(model: LayerStrip, at: Grid) -> list[dict]:
    """The ratio once over each run of CSA2 layers alike in a row ("m2" over every layer ran together)."""
    out = []
    for (_, ratio), run in groupby(model.layers, key=lambda ly: (ly.index // at.per, ly.ratio)):
        if ratio is not None:
            run = list(run)
            (x0, dy), (x1, _) = at.at(run[0].index), at.at(run[-1].index)
            out.append(dict(x=(x0 + x1 + 1) / 2, y=dy + RATIO_Y, text=f"m = {ratio}", showarrow=False,
                            font=dict(size=SMALL_TEXT, color=MUTED)))
    return out


def bracket_lines(model: LayerStrip, at: Grid) -> list[dict]:
    out = []
    for b, y in zip(model.brackets, BRACKET_Y):
        for g in b.groups:
            for first, last in parts(g, at):
                (x0, dy), (x1, _) = at.at(first), at.at(last)
                left, right = x0 + BRACKET_INSET, x1 + (1 - BRACKET_INSET)
                out.append(dict(type="path", path=f"M {left},{dy + y + BRACKET_RISE} L {left},{dy + y} "
                                                  f"L {right},{dy + y} L {right},{dy + y + BRACKET_RISE}",
                                line=dict(color=ROLE_COLOURS[b.role], width=1.6)))
    return out


def bracket_notes(model: LayerStrip, p: Placed) -> list[dict]:
    """Each row of brackets' labels under them (in words, or short where words would run together), and, wide,
    its name left of the plot."""
    out = []
    for b, y, worded in zip(model.brackets, BRACKET_Y, p.worded):
        colour = ROLE_COLOURS[b.role]
        for x, dy, g in labels(b, p.grid):
            out.append(dict(x=x, y=dy + y - LABEL_DROP, yanchor="top", showarrow=False,
                            font=dict(size=SMALL_TEXT, color=colour), text=g.label if worded else g.short))
        if p.grid.wide:
            out.append(dict(x=0, xref="paper", y=y, xanchor="right", xshift=NAME_SHIFT, showarrow=False,
                            text=b.name, font=dict(size=CELL_TEXT, color=colour)))
    return out


def name_notes(model: LayerStrip, p: Placed) -> list[dict]:
    """A phone's brackets' names under the last row: side by side where they fit, else one under the other."""
    at, out = p.grid, []
    for i, (name, b) in enumerate(zip(under_names(model), model.brackets)):
        y = -(at.rows - 1) * BLOCK + NAMES_Y - (0 if p.apart else NAMES_STEP * i)
        out.append(dict(x=i * at.per / 2 if p.apart else 0, y=y, xanchor="left", showarrow=False, text=name,
                        font=dict(size=CELL_TEXT, color=ROLE_COLOURS[b.role])))
    return out


def split_line(model: LayerStrip, at: Grid) -> list[dict]:
    """A dotted line before the decoder's first layer (past the last row's end where it starts a row)."""
    if not model.stacks:
        return []
    first = model.stacks[-1].first
    x, dy = at.at(first) if first < len(model.layers) else (at.per, -(at.rows - 1) * BLOCK)
    return [dict(type="line", x0=x, x1=x, y0=dy + SPLIT_FOOT, y1=dy + SPLIT_HEAD,
                 line=dict(color=MUTED, dash="dot", width=2))]


def stack_notes(model: LayerStrip, p: Placed) -> list[dict]:
    return [dict(x=x, y=p.grid.at(s.first)[1] + STACK_Y, text=s.name, showarrow=False, font=dict(size=STACK_TEXT))
            for s, x in zip(model.stacks, p.stack_x)]
