"""The canvas a figure is built for. Natively (`NATIVE`: an export of the screen figure) a figure
takes the sizes its builder gives it; a page column (its width class) has rules of its own. A
slide (SLIDE_SIZES) is a canvas of its own: sizes are given for a 1080-line slide and scale with
its height (`unit`): a SAFE margin on every side, the title at the top-left of that safe area at
SLIDE_TITLE px, every other text at least SLIDE_TEXT px, all of them `font_scale` times that. A page
column's `font_scale` is the reader's text size (the app's `fs`): every text is drawn that many
times its size, and the figure is laid out for that text (`Canvas.text`), not scaled after. A
`Canvas` names which of them a figure is built for, and the look it is drawn in; the layout pass
(figures.layout), the chart kinds' layouts (figures.charts) and the matrix renderer read it; no builder
sees it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import plotly.graph_objects as go

from .style import TEMPLATE
from .text import INLINE_SIZE, text_px, wrap

SLIDE_SIZES = {"1080p": (1920, 1080), "720p": (1280, 720)}
SAFE = 48  # px margin on every side, at 1080 lines
SLIDE_TITLE = 36  # px, the title's first line
SLIDE_TEXT = 20  # px, every other text at least
LINE = 1.3  # plotly's line spacing, in ems of the title's size
SUBTITLE = 0.8  # a slide's subtitle lines, of the title size: their own sub/superscripts still reach 20 px
TITLE_GAP = 24  # px between the title's last line and the drawing, at 1080 lines
ASCENT = 0.86  # room for a line's letters above its baseline, in ems (Noto Sans CJK's tallest reach about 0.82)
TITLE_TOP = 8  # px from a screen figure's top edge to its title's letters
TITLE_FOOT, SUP_FOOT = 1.1, 0.7  # a title line's foot under its top, in ems of the title size; a raised subtitle line's

# Screens: a figure on a page is laid out for the width class of the column it sits in, the
# largest of these at most the column's px (a phone's column is 328–380 px, a tablet's 736,
# a desktop's 940 at 1,400 px), with no text under SCREEN_TEXT px times the reader's text size.
SCREEN_WIDTHS = (280, 320, 360, 700, 900, 1400)
SCREEN_TEXT = 11  # px: the smallest text a figure draws on a screen
NARROW = 480  # px: a column this narrow or narrower is a phone's (panels stack, labels move)
WIDE = 700  # px: the narrowest column that takes the wide layouts at 1× text (a tablet's class)
LEGEND_SYMBOL = 50  # px a horizontal legend's entry takes besides its name: its symbol and the gaps

@dataclass(frozen=True)
class Canvas:
    """What a figure is built for, passed to whatever lays it out: a page column of `column` px
    (a width class of SCREEN_WIDTHS) whose text is `font_scale` times a figure's own sizes (the
    reader's text size), a slide of `slide` = (width, height) px (SLIDE_SIZES, or a link preview's
    picture) whose text is `font_scale` times the slide's sizes, or neither (NATIVE: the builder's
    own sizes, as an export of the screen figure draws them, every text then `font_scale` times its size).
    `theme` is the look it is drawn in (figures.style.THEMES)."""

    column: int | None = None
    slide: tuple[int, int] | None = None
    font_scale: float = 1.0
    theme: str = "light"

    @property
    def screen_width(self) -> int | None:
        """The page column's width (None on a slide or natively)."""
        return None if self.slide else self.column

    @property
    def text(self) -> float:
        """How many times a builder's own sizes its text is drawn at on this canvas: the reader's text
        size on a page column; 1 on a slide (figures/layout/slide.py sizes a slide's text) and natively."""
        return self.font_scale if self.screen_width else 1.0

    @property
    def narrow(self) -> bool:
        """Whether the page column is a phone's, for its text: a column that holds less of the builder's
        text than the narrowest that takes the wide layouts at 1× (WIDE, a tablet's) — a 900-px column
        at 1.5× text holds what a 600-px one does at 1× — stacks its panels and moves its labels as a
        phone's does. At 1× that is a column of NARROW px or less."""
        width = self.screen_width
        return width is not None and (narrow(width) or width / self.text < WIDE)

    @property
    def floor(self) -> float:
        """px: the smallest text drawn on this page column (SCREEN_TEXT times the reader's text size)."""
        return SCREEN_TEXT * self.text


NATIVE = Canvas()


def unit(height: float) -> float:
    """px per px-at-1080-lines: every slide size is given for 1080 lines and scales with height."""
    return height / 1080


def slide_size_of(width: int | None, height: int | None) -> tuple[int, int] | None:
    """(width, height) when they are one of the SLIDE_SIZES (a slide is laid out, not stretched), else None."""
    return (width, height) if (width, height) in SLIDE_SIZES.values() else None


def width_class(column_px: float) -> int:
    """The screen width a column of `column_px` draws for: the largest class at most that wide."""
    return max((w for w in SCREEN_WIDTHS if w <= column_px), default=SCREEN_WIDTHS[0])


def narrow(width: int | None) -> bool:
    """Whether a column `width` px wide (None: no column) is a phone's."""
    return width is not None and width <= NARROW


def title_top(size: float) -> float:
    """px from a screen figure's top edge to the letters of its title drawn at `size` px: TITLE_TOP,
    grown with a title larger than the template's (the reader's text size), whose line box reaches
    further above its letters."""
    return TITLE_TOP * max(1.0, size / TEMPLATE.layout.title.font.size)


def title_at_top(title: dict, height: float, size: float) -> dict:
    """A title of several lines (a subtitle, or broken lines) with its letters `title_top` px under the
    figure's top edge: plotly puts the first baseline of such a title at `y` (yanchor top)."""
    return {**title, "yref": "container", "yanchor": "top", "y": 1 - (title_top(size) + ASCENT * size) / height}


def slide_title(title: str, width: int, height: int, font_scale: float = 1.0, beside: float = 0.0) -> list[str]:
    """The title's lines, broken so each fits the safe width (the first leaves `beside` px on its
    right, for a legend level with it): the first at the title size, the <sup> lines under it
    at SUBTITLE of it."""
    u = unit(height)
    room, size = width - 2 * SAFE * u, SLIDE_TITLE * u * font_scale
    out = []
    for line in title.split("<br>"):
        sup = line.startswith("<sup>") and line.endswith("</sup>")
        inner, at = (line[5:-6], size * SUBTITLE) if sup else (line, size)
        for part in wrap(inner, room, partial(text_px, size=at), None if out else room - beside):
            out.append(f"<span style='font-size:{at:g}px'>{part}</span>" if sup else part)
    return out


def title_height(title: str, width: int, height: int, font_scale: float = 1.0, beside: float = 0.0) -> float:
    """px from the slide's top edge to where the drawing may start."""
    u = unit(height)
    lines = len(slide_title(title, width, height, font_scale, beside))
    return SAFE * u + lines * LINE * SLIDE_TITLE * u * font_scale + TITLE_GAP * u


def diagram_area(width: int, height: int, title: str, font_scale: float = 1.0) -> tuple[float, float]:
    """The px a diagram is drawn in on this slide, under this title."""
    u = unit(height)
    return width - 2 * SAFE * u, height - title_height(title, width, height, font_scale) - SAFE * u


def font_sizes(fig: go.Figure) -> list[float]:
    """Every text size a figure sets (resolved to the body size where it sets none)."""
    body = fig.layout.font.size or TEMPLATE.layout.font.size
    sizes = [body, fig.layout.legend.font.size or body]
    for a in fig.layout.annotations:
        sizes.append(a.font.size or body)
        sizes += [float(s) for s in INLINE_SIZE.findall(a.text or "")]
    sizes += [tr.textfont.size for tr in fig.data if "textfont" in tr and tr.textfont.size]
    return sizes


def legend_rows(names: list[str], width: float, size: float) -> int:
    """How many lines of text a horizontal legend of these entries takes in `width` px, its text at
    `size` px: each entry its symbol (LEGEND_SYMBOL px) and its name (of one line or several), side
    by side where they fit, a row as tall as its tallest entry."""
    lines, row, used = 0, 0, 0.0
    for name in names:
        parts = name.split("<br>")
        entry = max(text_px(part, size) for part in parts) + LEGEND_SYMBOL
        if used and used + entry > width:
            lines, row, used = lines + row, 0, 0.0
        used += entry
        row = max(row, len(parts))
    return lines + row


def legend_names(names: list[str], width: float, size: float) -> list[str]:
    """Legend entries' names, each broken to fit `width` px beside its symbol."""
    return ["<br>".join(wrap(name, width - LEGEND_SYMBOL, partial(text_px, size=size))) for name in names]
