"""What the chart kinds share: the gaps around a row's text over and under its bar, the point a row's text hangs
from, the title's size (plotly spaces a title's lines, and a subtitle's inside it, by it), a bar's plain colour,
and how a subtitle and an HTML label count their lines."""

from __future__ import annotations

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


def html_lines(html: str) -> int:
    """The lines an HTML label takes: one, and one per <br>."""
    return html.count("<br>") + 1
