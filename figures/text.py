"""What a label's text measures. Plotly labels are HTML whose tags are not drawn: a label has
narrow and wide (Hangul/CJK) characters, a width estimated from them or measured in the
figures' font, and lines wrapped to a width. Every layout (screen, slide, phone, the deck's
text boxes) measures text here."""

from __future__ import annotations

import functools
import re
import subprocess
from collections.abc import Callable
from html import unescape

FONT = "Noto Sans CJK KR, Noto Sans KR, Apple SD Gothic Neo, Malgun Gothic, Arial, sans-serif"  # every label's
TAGS = re.compile(r"<[^>]+>")
INLINE_SIZE = re.compile(r"font-size:\s*([\d.]+)px")  # a size given in a label's HTML
NARROW_EM = 0.56  # a narrow character's width, in ems of its size; a wide one is two
SUP = 0.7  # plotly draws <sup> and <sub> at 70 % of their label's size
_TAG_SPLIT = re.compile(f"({TAGS.pattern})")  # the tags, kept by re.split
_EM = 100  # px: the size text is measured at (widths scale with the size)


def strip_tags(html: str) -> str:
    """The characters a label draws (its tags dropped, entities left as written)."""
    return TAGS.sub("", html or "")


def plain(html: str) -> str:
    """A label as plain text: line breaks kept, sub/superscripts as _x/^x, tags dropped, entities read."""
    text = re.sub(r"<br\s*/?>", "\n", html or "")
    text = re.sub(r"<sub>(.*?)</sub>", r"_\1", text)
    text = re.sub(r"<sup>(.*?)</sup>", r"^\1", text)
    return unescape(strip_tags(text)).strip()


def narrow_wide(html: str) -> tuple[int, int]:
    """How many narrow and how many wide (Hangul/CJK) characters a label shows."""
    shown = strip_tags(html)
    wide = sum(1 for ch in shown if ord(ch) >= 0x1100)
    return len(shown) - wide, wide


def chars(html: str) -> int:
    """A label's width in narrow characters (Hangul/CJK count double)."""
    narrow, wide = narrow_wide(html)
    return narrow + 2 * wide


def text_px(html: str, size: float, narrow: float = 1.0) -> float:
    """Estimated width of one line of a label at `size` (in the size's unit), its narrow
    characters `narrow` times their usual width (an estimate that must not run short widens them)."""
    n, w = narrow_wide(html)
    return NARROW_EM * size * (narrow * n + 2 * w)


def measured_px(html: str, size: float) -> float:
    """A line's width as the browser draws it, measured in the font fontconfig gives the figures'
    family (bold where the label says <b>); `text_px`'s estimate, which errs wide, where no font
    is to be had."""
    faces = _faces()
    if faces is None:
        return text_px(html, size)
    total, bold = 0.0, False
    for part in _TAG_SPLIT.split(html):
        if part.startswith("<"):
            bold = {"<b>": True, "</b>": False}.get(part.lower(), bold)
        elif part:
            total += faces[bold].getlength(unescape(part))
    return total * size / _EM


@functools.cache
def _faces() -> tuple | None:
    """The figures' font, regular and bold, at _EM px (None without fontconfig)."""
    from PIL import ImageFont

    faces = []
    for style in ("", ":bold"):
        try:
            found = subprocess.run(["fc-match", "-f", "%{file}\n%{index}", FONT.split(",")[0] + style],
                                   capture_output=True, text=True, timeout=10, check=True).stdout
            path, index = found.split("\n")
            faces.append(ImageFont.truetype(path, _EM, index=int(index)))
        except (OSError, ValueError, subprocess.SubprocessError):
            return None
    return tuple(faces)


def wrap(text: str, width: float, measure: Callable[[str], float], first: float | None = None) -> list[str]:
    """`text` broken at spaces into lines no wider than `width` (the first no wider than `first`)
    as `measure` measures a line (a word wider than that keeps a line of its own; tags stay whole
    where they hold no space)."""
    lines = [""]
    for w in text.split(" "):
        trial = f"{lines[-1]} {w}" if lines[-1] else w
        if lines[-1] and measure(trial) > (first if first is not None and len(lines) == 1 else width):
            lines.append(w)
        else:
            lines[-1] = trial
    return lines


def wrapped(html: str, width: float, size: float) -> list[str]:
    """A label's lines (its own <br>s kept) broken at spaces to `width` px at `size`, by the estimate."""
    return [part for line in html.split("<br>") for part in wrap(line, width, lambda s: text_px(s, size))]


_SCRIPT = re.compile(r"<(sup|sub)>(.*?)</\1>")


def scripts_at_least(html: str, size: float, floor: float) -> str:
    """Sub- and superscripts of a label drawn at `size` (plotly draws them at 70 %) raised to
    `floor` where they would fall under it (never above the label's own size), still raised or
    lowered."""
    target = min(floor, size)
    if SUP * size >= target:
        return html
    return _SCRIPT.sub(lambda m: f"<{m[1]}><span style='font-size:{target:g}px'>{m[2]}</span></{m[1]}>", html)


def raise_scripts(fig, floor: float, body: float) -> None:
    """Every label of a figure (annotations, text traces; `body` the size of those that set none)
    with its sub- and superscripts raised to `floor` (`scripts_at_least`), in place."""
    for a in fig.layout.annotations:
        a.text = scripts_at_least(a.text or "", a.font.size or body, floor)
    for tr in fig.data:
        if isinstance(tr.text, (list, tuple)) and "textfont" in tr:
            size = tr.textfont.size or body
            tr.text = [scripts_at_least(x, size, floor) if isinstance(x, str) else x for x in tr.text]
