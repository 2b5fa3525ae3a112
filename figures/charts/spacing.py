"""What the chart kinds share: the gaps around a row's text over and under its bar, the point a row's text hangs
from, the title's size (plotly spaces a title's lines, and a subtitle's inside it, by it), a bar's plain colour,
and how a subtitle and an HTML label count their lines."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..canvas import LINE
from ..style import ROLE_COLOURS, TEMPLATE
from ..text import SUP, wrapped

HEAD_GAP = 6  # px between a row's head (its name and value) and its bar
UNDER_GAP = 8  # px after the lines under a bar
ANCHOR_PX = 10  # the invisible marker a row's text hangs from (plotly sets text off by its radius)
EDGE = 1e-3  # of a linear axis's reach: where rows' texts are anchored, a hair inside it (plotly drops a text
# point that sits exactly on the range's edge)
TITLE_PX = TEMPLATE.layout.title.font.size  # plotly spaces a title's lines, a subtitle's too, by this size
BAR_COLOUR = ROLE_COLOURS["main_kv"]  # a bar that is one quantity, not split by role


def subtitle_lines(texts, native_width: float, screen: bool) -> list[str]:
    """A subtitle's lines: a line per text on a page column (`screen`: figures.layout.screen breaks them to the
    column), else each broken to `native_width` at the subtitle's size."""
    if screen:
        return list(texts)
    return [line for text in texts for line in wrapped(text, native_width, TITLE_PX * SUP)]


class RowStack(NamedTuple):
    """Rows down a plot in px: each row's head lines (their foot's y, the lines joined by <br>), its bar's middle,
    its lines under the bar (their top's y; a row without any has none), and the depth of them all."""

    heads: tuple[tuple[float, str], ...]
    bars: tuple[float, ...]
    unders: tuple[tuple[float, str], ...]
    depth: float


def stack_rows(rows: Iterable[tuple[list[str], list[str]]], head_size: float, under_size: float, bar_px: float,
               gap_px: float) -> RowStack:
    """Rows given as (head lines, lines under the bar), already broken to the width, stacked down the plot: a row's
    head, HEAD_GAP, its bar `bar_px` thick, its lines under it and UNDER_GAP, then `gap_px` before the next."""
    y, heads, bars, unders = 0.0, [], [], []
    for head, under in rows:
        y += len(head) * LINE * head_size + HEAD_GAP
        heads.append((y, "<br>".join(head)))
        bars.append(y + bar_px / 2)
        y += bar_px
        if under:
            unders.append((y, "<br>".join(under)))
            y += len(under) * LINE * under_size + UNDER_GAP
        y += gap_px
    return RowStack(tuple(heads), tuple(bars), tuple(unders), y)


def html_lines(html: str) -> int:
    """The lines an HTML label takes: one, and one per <br>."""
    return html.count("<br>") + 1
