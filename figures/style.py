"""One look for screen and export: role colours, the shared template, modebar config."""

from __future__ import annotations

import re
from typing import NamedTuple

import plotly.graph_objects as go
import plotly.io as pio

from .contrast import INK, readable
from .text import FONT, INLINE_SIZE

# Colours by role, as the article uses them.
ROLE_COLOURS = {
    "main_kv": "#2f6fd1",  # blue: KV read by attention
    "index_key": "#d63b3b",  # red: indexer (retrieval) key
    "local_kv": "#e8890c",  # orange: local KV (SWA, recent positions)
    "weight": "#7b4bb7",  # purple: learned weight
}
MUTED = "#6b7280"


class OnFill(NamedTuple):
    """Which texts of a drawn figure sit on a fill of their own (a box, a bar, a cell, a badge), by their index
    among the figure's traces and annotations: their colour was chosen for that fill, and a look leaves it alone.
    The drawing passes are append-only, so the indices a drawer gives hold through the layout pass."""

    traces: frozenset[int] = frozenset()
    annotations: frozenset[int] = frozenset()


NONE_ON_FILL = OnFill()


class Drawn(NamedTuple):
    """A drawing and which of its texts sit on fills."""

    figure: go.Figure
    on_fill: OnFill = NONE_ON_FILL

TEMPLATE = go.layout.Template(pio.templates["plotly_white"])
TEMPLATE.layout.font = dict(family=FONT, size=13, color="#1f2937")
TEMPLATE.layout.title = dict(x=0.0, xanchor="left", font=dict(size=17))
TEMPLATE.layout.paper_bgcolor = "white"
TEMPLATE.layout.plot_bgcolor = "white"
TEMPLATE.layout.hoverlabel = dict(font=dict(family=FONT))
pio.templates["kv_atlas"] = TEMPLATE


def heading(title: str, subtitle: str = "") -> dict:
    """A figure's layout title: the title and, under it, the subtitle as a smaller <sup> line. The
    one place that writes this form; `heading_parts` reads it back."""
    return dict(text=title + (f"<br><sup>{subtitle}</sup>" if subtitle else ""))


def heading_parts(text: str) -> tuple[str, str]:
    """(title, subtitle) of a `heading`'s text."""
    title, _, subtitle = (text or "").partition("<br><sup>")
    return title, subtitle.removesuffix("</sup>")


def plotly_config(figure_id: str) -> dict:
    """Modebar: download as SVG named after the figure; no plotly logo."""
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "svg", "filename": f"kv-atlas-{figure_id}", "scale": 1},
    }


THEMES = ("light", "dark", "transparent")
_DARK = dict(paper="#0f172a", plot="#0f172a", font="#e5e7eb", grid="#334155")
# What text may sit on in each look: a transparent figure goes on any slide, so its text must
# read on white and on black alike.
BACKGROUNDS = {"light": ("#ffffff",), "dark": (_DARK["paper"],), "transparent": ("#ffffff", "#000000")}
_INKS = (None, INK, TEMPLATE.layout.font.color)  # the template's dark text


def apply_look(fig: go.Figure, theme: str = "light", font_scale: float = 1.0,
               on_fill: OnFill = NONE_ON_FILL) -> go.Figure:
    """The talk look, identical on screen and in every export: background and text colours
    for the theme (but for the texts `on_fill` names, which keep theirs), every font size times `font_scale`.
    Returns a new figure."""
    if theme not in THEMES:
        raise ValueError(f"unknown theme {theme!r}; choose from {', '.join(THEMES)}")
    if not 0.5 <= font_scale <= 3:
        raise ValueError("font scale must be between 0.5 and 3")
    out = go.Figure(fig)
    if theme == "dark":
        out.update_layout(paper_bgcolor=_DARK["paper"], plot_bgcolor=_DARK["plot"], font_color=_DARK["font"],
                          legend_bgcolor="rgba(0,0,0,0)")
        out.update_xaxes(gridcolor=_DARK["grid"], linecolor=_DARK["grid"])
        out.update_yaxes(gridcolor=_DARK["grid"], linecolor=_DARK["grid"])
    elif theme == "transparent":
        out.update_layout(paper_bgcolor="rgba(0,0,0,0)", plot_bgcolor="rgba(0,0,0,0)", legend_bgcolor="rgba(0,0,0,0)",
                          font_color=readable(TEMPLATE.layout.font.color, BACKGROUNDS[theme]))
    if theme != "light":
        _recolour_text(out, theme, on_fill)
    if font_scale != 1.0:
        scale_fonts(out, font_scale)
    return out


# a text colour in a label's HTML (`color:`, not `background-color:`): a hex, rgb()/rgba() or a name
_INLINE_COLOUR = re.compile(r"(?<![\w-])color:\s*(#[0-9a-fA-F]{3,8}\b|rgba?\([^)]*\)|[a-zA-Z]+)")


def _text_colour(colour, theme: str):
    """A page text's colour in a look: the template's dark ink follows the look's text colour;
    any other colour is nudged until it reads on the look's backgrounds."""
    if colour in _INKS:
        return None
    return readable(colour, BACKGROUNDS[theme])


def _inline_colour(m: re.Match, theme: str) -> str:
    """A `color:` in a label's HTML nudged to read in the look; a keyword (inherit, currentColor) stays."""
    try:
        return f"color:{readable(m[1], BACKGROUNDS[theme])}"
    except ValueError:
        return m[0]


def _recolour_text(fig: go.Figure, theme: str, on_fill: OnFill) -> None:
    """Text on the page takes colours that read on it (an annotation loses its background); text on a fill
    of its own (`on_fill`) keeps the colour its drawer chose."""
    def inline(text: str) -> str:
        return _INLINE_COLOUR.sub(lambda m: _inline_colour(m, theme), text or "")

    for i, a in enumerate(fig.layout.annotations):
        if i in on_fill.annotations:
            continue
        a.bgcolor = None
        a.font.color = _text_colour(a.font.color, theme)
        a.text = inline(a.text)
    for i, tr in enumerate(fig.data):
        if "textfont" not in tr or i in on_fill.traces:
            continue
        c = tr.textfont.color
        tr.textfont.color = [_text_colour(x, theme) for x in c] if isinstance(c, (list, tuple)) else \
            _text_colour(c, theme)
        if isinstance(tr.text, (list, tuple)):
            tr.text = [inline(x) if isinstance(x, str) else x for x in tr.text]



def scale_fonts(fig: go.Figure, scale: float) -> None:
    """Every font size the figure sets (resolved through the template where it sets none), an axis's
    tick labels', and sizes given inline in a label's HTML, times `scale`."""
    body = fig.layout.font.size or TEMPLATE.layout.font.size

    def inline(html):
        return INLINE_SIZE.sub(lambda m: f"font-size:{float(m.group(1)) * scale:g}px", html) \
            if isinstance(html, str) else html

    fig.update_layout(font_size=body * scale,
                      title_font_size=(fig.layout.title.font.size or TEMPLATE.layout.title.font.size) * scale,
                      legend_font_size=(fig.layout.legend.font.size or body) * scale)
    fig.layout.title.text = inline(fig.layout.title.text or "")
    for a in fig.layout.annotations:
        a.font.size = (a.font.size or body) * scale
        a.text = inline(a.text or "")
    for tr in fig.data:
        if "textfont" in tr and tr.textfont.size:
            sizes = tr.textfont.size
            tr.textfont.size = [s * scale for s in sizes] if isinstance(sizes, (list, tuple)) else sizes * scale
        if isinstance(tr.text, (list, tuple)) and any(isinstance(x, str) and "font-size" in x for x in tr.text):
            tr.text = [inline(x) for x in tr.text]
    fig.for_each_xaxis(lambda ax: _scale_title(ax, scale))
    fig.for_each_yaxis(lambda ax: _scale_title(ax, scale))


def _scale_title(axis, scale: float) -> None:
    if axis.title.font.size:  # set where plotly would round its own (1.2 × the body)
        axis.title.font.size *= scale
    if axis.tickfont.size:
        axis.tickfont.size *= scale
