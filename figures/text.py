"""What a label's text measures. Plotly labels are HTML whose tags are not drawn: a label is
as wide as its characters' advances in the figures' font (their real metrics, read from the
font once by scripts/measure_font.py into font_widths.json), at the sizes its tags give them,
and is wrapped to a width by that measure. Every layout (screen, slide, phone, the matrix
renderer, the deck's text boxes) measures text here, with `text_px`."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from html import unescape
from pathlib import Path

FONT = "Noto Sans CJK KR, Noto Sans KR, Apple SD Gothic Neo, Malgun Gothic, Arial, sans-serif"  # every label's
TAGS = re.compile(r"<[^>]+>")
INLINE_SIZE = re.compile(r"font-size:\s*([\d.]+)px")  # a size given in a label's HTML
SUP = 0.7  # plotly draws <sup> and <sub> at 70 % of their label's size
OTHER = 1.0  # ems: a character the table lacks, drawn in some fallback font (wide, never short)
WIDTHS_FILE = Path(__file__).with_name("font_widths.json")
_TAG_SPLIT = re.compile(f"({TAGS.pattern})")  # the tags, kept by re.split
KEPT_AFTER = ("=", "·")  # a line never starts with these: they stay with the word before
UNIT = re.compile(r"(?:[kKMGTP]i?)?B(?:/s)?|[µm]s")  # a unit after a number stays with it ("6.30 GB")
CLOSING = ",.;:)]"  # what may follow a unit in the same word ("240 GB)")
PARTICLE = re.compile("[\uac00-\ud7a3]+$")  # a Korean particle after a unit stays with it too ("141 GB에")


def strip_tags(html: str) -> str:
    """The characters a label draws (its tags dropped, entities left as written)."""
    return TAGS.sub("", html or "")


def plain(html: str) -> str:
    """A label as plain text: line breaks kept, sub/superscripts as _x/^x, tags dropped, entities read."""
    text = re.sub(r"<br\s*/?>", "\n", html or "")
    text = re.sub(r"<sub>(.*?)</sub>", r"_\1", text)
    text = re.sub(r"<sup>(.*?)</sup>", r"^\1", text)
    return unescape(strip_tags(text)).strip()


@functools.cache
def _widths() -> dict:
    """The figures' font's advance widths (scripts/measure_font.py wrote them from the font itself)."""
    return json.loads(WIDTHS_FILE.read_text(encoding="utf-8"))


def ems(text: str, bold: bool = False) -> float:
    """How wide characters are in ems of their size: the font's own advances; a Hangul/CJK character
    one em, one the font lacks (a fallback font draws it) OTHER em. A reader without Noto Sans CJK
    sees Latin in the system's sans (SF, Roboto, Arial: lower case 0.50–0.53 em on average), which
    runs no wider than Noto's (0.53 em), and Hangul one em wide in every Korean font."""
    table = _widths()
    advances, em = table["bold" if bold else "regular"], table["em"]
    return sum(advances[ch] / em if ch in advances else OTHER for ch in text)


def runs(html: str, size: float) -> Iterator[tuple[str, float, bool]]:
    """The runs of characters a label draws at `size` px: (text, its size, whether bold), bold inside
    <b>, sub- and superscripts at SUP of their size, a span's `font-size` its own, entities read, tags
    not drawn."""
    bold, sizes = False, [size]
    for part in _TAG_SPLIT.split(html or ""):
        if not part.startswith("<"):
            if part:
                yield unescape(part), sizes[-1], bold
            continue
        tag = part.lower()
        if tag in ("<b>", "</b>"):
            bold = tag == "<b>"
        elif tag in ("<sup>", "<sub>"):
            sizes.append(sizes[-1] * SUP)
        elif tag.startswith("<span"):
            given = INLINE_SIZE.search(part)
            sizes.append(float(given[1]) if given else sizes[-1])
        elif tag in ("</sup>", "</sub>", "</span>") and len(sizes) > 1:
            sizes.pop()


def text_px(html: str, size: float) -> float:
    """How many px wide one line of a label is drawn at `size` px, in the figures' font (`runs`)."""
    return sum(ems(text, bold) * at for text, at, bold in runs(html, size))


def wrap(text: str, width: float, measure: Callable[[str], float], first: float | None = None) -> list[str]:
    """`text` broken at spaces into lines no wider than `width` (the first no wider than `first`)
    as `measure` measures a line (a word wider than that keeps a line of its own, broken after a
    hyphen where it has one; a tag stays whole). A number, `=` or `·` stays with the word before it:
    "seed 1", "t = 11," and a separator end a line, never start one."""
    lines = [""]
    for w in _words(text):
        trial = f"{lines[-1]} {w}" if lines[-1] else w
        if lines[-1] and measure(trial) > (first if first is not None and len(lines) == 1 else width):
            lines.append(w)
        else:
            lines[-1] = trial
        if measure(lines[-1]) > width and "-" in strip_tags(lines[-1]):  # a word too wide: after a hyphen
            *done, last = _at_hyphens(lines.pop(), width, measure)
            lines += [*done, last]
    return lines


def _at_hyphens(line: str, width: float, measure: Callable[[str], float]) -> list[str]:
    """A line wider than `width` broken after hyphens ("DeepSeek-V4.1-" / "Flash의") as far as that
    brings each part within it (a tag is never cut)."""
    parts = re.split(r"(?<=-)(?=[^\s<>-])(?![^<]*>)", line)
    out = [""]
    for part in parts:
        if out[-1] and measure(out[-1] + part) > width:
            out.append(part)
        else:
            out[-1] += part
    return out


_IN_TAG = "\x00"  # a space inside a tag (<span style='…'>) while a text is split into words


def _split(text: str) -> list[str]:
    """The text split at its spaces (not those inside a tag)."""
    kept = TAGS.sub(lambda m: m[0].replace(" ", _IN_TAG), text)
    return [w.replace(_IN_TAG, " ") for w in kept.split(" ")]


def _words(text: str) -> list[str]:
    """The text's words (a tag's own spaces split nothing), each number, `=` or `·` joined to the word
    before it, and a unit to the number before it (a number after a number and its unit starts a word
    of its own: "141 GB에 128K" may break before 128K)."""
    out: list[str] = []
    numeric = False  # whether the word before was a number, or a unit after one
    for w in _split(text):
        bare = strip_tags(w)
        unit = bool(out and UNIT.fullmatch(PARTICLE.sub("", bare.rstrip(CLOSING)))
                    and strip_tags(out[-1])[-1:].isdigit())
        number = bare[:1].isdigit()
        if out and (unit or bare[:1] in KEPT_AFTER or (number and not numeric)):
            out[-1] += f" {w}"
        else:
            out.append(w)
        numeric = bool(number or unit)
    return out


def wrapped(html: str, width: float, size: float) -> list[str]:
    """A label's lines (its own <br>s kept) broken at spaces to `width` px at `size`."""
    return [part for line in html.split("<br>") for part in wrap(line, width, lambda s: text_px(s, size))]


def wrapped_parts(parts: list[str], width: float, size: float, sep: str = "  ") -> list[str]:
    """Parts of a label (a name, its value, a ratio) joined by `sep` on lines no wider than `width` px
    at `size`: a part that does not fit after the one before starts a line (broken at spaces where it
    is itself too wide), so a line breaks between parts before it breaks inside one."""
    lines: list[str] = []
    for part in parts:
        if lines and text_px(f"{lines[-1]}{sep}{part}", size) <= width:
            lines[-1] = f"{lines[-1]}{sep}{part}"
        else:
            lines += wrapped(part, width, size)
    return lines


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
