"""Colour contrast as WCAG 2 defines it: relative luminance, contrast ratio, and the two
choices a figure makes with them — dark or light ink on a fill, and a text colour nudged
until it reads on every background it may sit on."""

from __future__ import annotations

import functools
import re

from PIL import ImageColor

READABLE = 4.5  # WCAG AA for text
VISIBLE = 3.0  # WCAG AA for lines and other marks that carry meaning
INK = "#111827"  # dark ink on light fills
PAPER = "#ffffff"

_RGB = re.compile(r"rgba?\(\s*([\d.]+)\s*,\s*([\d.]+)\s*,\s*([\d.]+)\s*(?:,\s*([\d.]+)\s*)?\)")

RGBA = tuple[float, float, float, float]


def rgba(colour: str) -> RGBA:
    """A plotly colour as (r, g, b, alpha), 0–255 and 0–1: 'rgb(…)' and 'rgba(…)' (alpha 0–1, as
    plotly writes it), 'transparent', and what Pillow reads — hex of 3, 4, 6 or 8 digits (the last
    two with alpha), CSS names ('grey'), hsl(…). A ValueError for anything else."""
    c = colour.strip().lower()
    m = _RGB.fullmatch(c)
    if m:
        return float(m[1]), float(m[2]), float(m[3]), float(m[4]) if m[4] is not None else 1.0
    if c == "transparent":
        return 0.0, 0.0, 0.0, 0.0
    try:
        r, g, b, *a = ImageColor.getrgb(c)
    except ValueError:
        raise ValueError(f"not a colour: {colour!r}") from None
    return float(r), float(g), float(b), a[0] / 255 if a else 1.0


def hex_colour(c: RGBA | tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(min(max(v, 0), 255)):02x}" for v in c[:3])


def over(top: str | RGBA, below: str | RGBA, opacity: float = 1.0) -> RGBA:
    """`top` (times its own alpha and `opacity`) composited over an opaque `below`."""
    t = rgba(top) if isinstance(top, str) else top
    b = rgba(below) if isinstance(below, str) else below
    a = t[3] * opacity
    return (*(a * t[i] + (1 - a) * b[i] for i in range(3)), 1.0)


def luminance(colour: str | RGBA) -> float:
    """WCAG relative luminance of an opaque colour."""
    c = rgba(colour) if isinstance(colour, str) else colour

    def channel(v: float) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in c[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str | RGBA, b: str | RGBA) -> float:
    """WCAG contrast ratio between two opaque colours (1 for the same, most for black on white)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def ink_on(*fills: str) -> str:
    """Dark ink if it reads on every one of `fills`, else white, else black (mid-tones, where
    only black reaches the ratio)."""
    for ink in (INK, PAPER):
        if min(contrast(ink, f) for f in fills) >= READABLE:
            return ink
    return max((INK, PAPER, "#000000"), key=lambda ink: min(contrast(ink, f) for f in fills))


@functools.cache  # pure, and a dark look asks it for the same few colours on every text
def readable(colour: str, backgrounds: tuple[str, ...], ratio: float = READABLE) -> str:
    """`colour` itself if it reads on every background, else the least change towards black or
    white (keeping its hue) that does; mid-grey is the fallback where nothing reads on all."""
    c = rgba(colour)
    if min(contrast(c, b) for b in backgrounds) >= ratio:
        return colour
    best = None
    for pole in ((0, 0, 0, 1.0), (255, 255, 255, 1.0)):
        for step in range(1, 101):
            mixed = over(pole, c, step / 100)  # `step` % of the way towards the pole
            if min(contrast(mixed, b) for b in backgrounds) >= ratio:
                if best is None or step < best[0]:
                    best = (step, mixed)
                break
    return hex_colour(best[1]) if best else "#767676"
