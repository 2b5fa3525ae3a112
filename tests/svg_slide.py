"""What an exported SVG shows a projector's audience, read from the SVG itself: each text with
its size, colour and box, and what is painted behind it (page, plot, shapes, bars, heatmap
pixels), in paint order. Sizes of texts are estimated where the SVG does not state them
(annotations carry a measured background box; other texts are as wide as their characters in the
figures' font, figures.text.ems)."""

from __future__ import annotations

import base64
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from PIL import Image

from figures.canvas import SAFE
from figures.contrast import RGBA, contrast, over, rgba
from figures.layout.chart_slide import overlap
from figures.text import ems

NS = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"
_TRANSLATE = re.compile(r"translate\(\s*(-?[\d.e+-]+)(?:[ ,]+(-?[\d.e+-]+))?\s*\)")
_ROTATE = re.compile(r"rotate\(\s*(-?[\d.]+)")
_NUM = r"-?[\d.]+(?:e[+-]?\d+)?"
ASCENT = 0.8  # ems: how far the font's tall letters reach above the baseline


def style(el) -> dict:
    return {k.strip(): v.strip() for k, _, v in (p.partition(":") for p in (el.get("style") or "").split(";"))
            if k.strip()}


@dataclass
class Run:
    text: str
    size: float
    colour: RGBA


@dataclass
class Text:
    runs: list[Run]
    box: tuple[float, float, float, float]  # x0, y0, x1, y1
    title: bool = False
    measured: bool = False  # the box is the annotation's own background, as the browser measured it

    @property
    def plain(self) -> str:
        return "".join(r.text for r in self.runs)


@dataclass
class Paint:
    box: tuple[float, float, float, float]
    colour: RGBA | None = None  # a flat fill
    image: Image.Image | None = None  # a heatmap's pixels over `box`
    stroke: RGBA | None = None
    dashed: bool = False


@dataclass
class Slide:
    width: float
    height: float
    texts: list[Text] = field(default_factory=list)
    paints: list[tuple[int, Paint]] = field(default_factory=list)  # (paint order, what)
    text_order: list[int] = field(default_factory=list)

    def behind(self, i: int, x: float, y: float, page: str) -> RGBA:
        """The colour painted at (x, y) below text i, over the page colour `page`."""
        colour = rgba(page)
        for order, p in self.paints:
            if order > self.text_order[i]:
                break
            x0, y0, x1, y1 = p.box
            if not (x0 <= x <= x1 and y0 <= y <= y1):
                continue
            if p.image is not None:
                px = p.image.getpixel((min(int((x - x0) / (x1 - x0) * p.image.width), p.image.width - 1),
                                       min(int((y - y0) / (y1 - y0) * p.image.height), p.image.height - 1)))
                colour = over((*px[:3], px[3] / 255), colour)
            elif p.colour is not None:
                colour = over(p.colour, colour)
        return colour

    def contrast(self, i: int, page: str) -> float:
        """The lowest contrast of text i's runs against what is behind its left, middle and right."""
        x0, y0, x1, y1 = self.texts[i].box
        ym, inset = (y0 + y1) / 2, min(6.0, (x1 - x0) / 4)
        worst = 21.0
        for x in (x0 + inset, (x0 + x1) / 2, x1 - inset):
            bg = self.behind(i, x, ym, page)
            for r in self.texts[i].runs:
                if r.text.strip():
                    worst = min(worst, contrast(over(r.colour, bg), bg))
        return worst


def _colour(st: dict, key: str, opacity: float = 1.0) -> RGBA | None:
    value = st.get(key)
    if not value or value == "none":
        return None
    c = rgba(value)
    return (*c[:3], c[3] * float(st.get(f"{key}-opacity", 1)) * opacity)


def _path_box(d: str) -> tuple[float, float, float, float] | None:
    xs, ys, x, y = [], [], 0.0, 0.0
    for cmd, args in re.findall(r"([MLHVZ])([^MLHVZ]*)", d or ""):
        nums = [float(n) for n in re.findall(_NUM, args)]
        if cmd in "ML":
            for j in range(0, len(nums) - 1, 2):
                x, y = nums[j], nums[j + 1]
                xs.append(x)
                ys.append(y)
        elif cmd == "H" and nums:
            x = nums[-1]
            xs.append(x)
            ys.append(y)
        elif cmd == "V" and nums:
            y = nums[-1]
            xs.append(x)
            ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def _size(value: str | None, parent: float) -> float:
    if not value:
        return parent
    if value.endswith("%"):
        return parent * float(value[:-1]) / 100
    return float(value.replace("px", ""))


def _runs(el, size: float, colour: RGBA) -> list[Run]:
    out = [Run(el.text or "", size, colour)] if el.text else []
    for child in el:
        st = style(child)
        out += _runs(child, _size(st.get("font-size"), size), _colour(st, "fill") or colour)
        if child.tail:
            out.append(Run(child.tail, size, colour))
    return out


def _text(el, dx: float, dy: float, bg_rect) -> Text:
    st = style(el)
    size = _size(st.get("font-size"), 12)
    colour = _colour(st, "fill", float(st.get("opacity", 1))) or rgba("black")
    runs = [r for r in _runs(el, size, colour) if r.text.replace("\u200b", "")]
    lines = [t for t in el.iter(f"{NS}tspan") if t.get("class") == "line"] or [el]
    if bg_rect is not None:  # an annotation: its background box, as the browser measured the text
        return Text(runs, bg_rect, measured=True)
    x = float(el.get("x", 0)) + dx
    first = lines[0]
    if first is not el and first.get("y") is not None:  # lines placed by their own y: the text's dy does not apply
        baseline = float(first.get("y")) + dy + _em(first.get("dy"), size)
    else:
        baseline = float(el.get("y", 0)) + dy + _em(el.get("dy"), size)
    widths = [sum(r.size * ems(r.text.replace("\u200b", "")) for r in _runs(line, size, colour)) for line in lines]
    width = max(widths, default=0.0)
    anchor = el.get("text-anchor", "start")
    x0 = x - {"start": 0, "middle": width / 2, "end": width}[anchor]
    bottom = baseline + 0.22 * size + 1.3 * size * (len(lines) - 1)
    return Text(runs, (x0, baseline - ASCENT * size, x0 + width, bottom), title="gtitle" in (el.get("class") or ""))


def _em(value: str | None, size: float) -> float:
    if not value:
        return 0.0
    return float(value.replace("em", "")) * size if value.endswith("em") else float(value.replace("px", ""))


def read(svg: str) -> Slide:
    root = ET.fromstring(svg)
    slide = Slide(float(root.get("width")), float(root.get("height")))
    order = [0]

    def walk(el, dx: float, dy: float, opacity: float, bg=None, within=None):
        tag = el.tag.replace(NS, "")
        st = style(el)
        if tag in ("defs", "clipPath"):
            return
        for m in _TRANSLATE.finditer(el.get("transform") or ""):
            dx, dy = dx + float(m[1]), dy + float(m[2] or 0)
        rot = _ROTATE.search(el.get("transform") or "")
        if rot and float(rot[1]) != 0:
            raise AssertionError(f"rotated element: {ET.tostring(el)[:200]}")
        opacity *= float(st.get("opacity", 1))
        order[0] += 1
        if tag == "text":
            text = _text(el, dx, dy, bg)
            if within and not text.measured:  # the legend's box, as the browser measured its entries
                x0, y0, x1, y1 = text.box
                text.box = (max(x0, within[0]), y0, min(x1, within[2]), y1)
            slide.texts.append(text)
            slide.text_order.append(order[0])
            return
        paint = _paint(el, tag, st, dx, dy, opacity, slide)
        if paint:
            slide.paints.append((order[0], paint))
        if "cursor-pointer" in (el.get("class") or ""):  # an annotation: its text and its background box
            rect = el.find(f"{NS}rect")
            x, y = float(rect.get("x", 0)) + dx, float(rect.get("y", 0)) + dy
            bg = (x, y, x + float(rect.get("width")), y + float(rect.get("height")))
        if (el.get("class") or "") == "legend":
            rect = el.find(f"{NS}rect")
            within = (dx, dy, dx + float(rect.get("width")), dy + float(rect.get("height")))
        for child in el:
            walk(child, dx, dy, opacity, bg, within)

    walk(root, 0.0, 0.0, 1.0)
    return slide


def _paint(el, tag, st, dx, dy, opacity, slide) -> Paint | None:
    fill = _colour(st, "fill", opacity)
    stroke = _colour(st, "stroke", opacity) if float(st.get("stroke-width", "1").replace("px", "") or 1) > 0 else None
    if tag == "rect":
        x, y = float(el.get("x", 0)) + dx, float(el.get("y", 0)) + dy
        if el.get("width") is None:
            return None
        w, h = float(el.get("width")), float(el.get("height", 0))
        box = (x, y, x + w, y + h)
        return Paint(box, colour=fill) if fill and fill[3] > 0 else None
    if tag == "path":
        box = _path_box(el.get("d"))
        if not box:
            return None
        box = (box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy)
        dashed = "dasharray" in (el.get("style") or "")
        return Paint(box, colour=fill if fill and fill[3] > 0 else None, stroke=stroke, dashed=dashed)
    if tag == "image":
        href = el.get(XLINK) or el.get("href") or ""
        if not href.startswith("data:image/png;base64,"):
            return None
        img = Image.open(io.BytesIO(base64.b64decode(href.split(",", 1)[1]))).convert("RGBA")
        x, y = float(el.get("x", 0)) + dx, float(el.get("y", 0)) + dy
        return Paint((x, y, x + float(el.get("width")), y + float(el.get("height"))), image=img)
    return None


# What the slide checks ask of a read slide (tests/test_slides.py, tests/test_animation.py).

def shown(s: Slide) -> list[tuple[int, Text]]:
    """The texts with something to read, with their paint order."""
    return [(i, t) for i, t in enumerate(s.texts) if t.plain.replace("\u200b", "").strip()]


def drawn(p: Paint, s: Slide) -> bool:
    """A painted mark of the figure itself (not the page or an invisible hover box)."""
    x0, y0, x1, y1 = p.box
    if (x1 - x0) >= s.width - 1 and (y1 - y0) >= s.height - 1:
        return False  # the page
    return (p.colour is not None and p.colour[3] > 0) or p.image is not None or \
        (p.stroke is not None and p.stroke[3] > 0)


def outside_margins(s: Slide) -> str | None:
    """The first text or mark that reaches into the safe margin, or None."""
    safe = SAFE * s.height / 1080
    boxes = [t.box for _, t in shown(s)] + [p.box for _, p in s.paints if drawn(p, s)]
    for x0, y0, x1, y1 in boxes:
        if x0 < safe - 1 or y0 < safe - 1 or x1 > s.width - safe + 1 or y1 > s.height - safe + 1:
            return f"({x0:.0f},{y0:.0f})–({x1:.0f},{y1:.0f})"
    return None


def clashes(s: Slide) -> list[str]:
    """Pairs of texts that overlap."""
    texts, out = shown(s), []
    for n, (_, a) in enumerate(texts):
        for _, b in texts[n + 1:]:
            if overlap(_shrunk(a), _shrunk(b)) > 0.2:
                out.append(f"{a.plain[:20]!r} × {b.plain[:20]!r}")
    return out


def _shrunk(t: Text):
    """An estimated box loses a little on each side (estimates run wide); a measured one stays."""
    x0, y0, x1, y1 = t.box
    if t.measured:
        return t.box
    dx, dy = (x1 - x0) * 0.06, (y1 - y0) * 0.1
    return x0 + dx, y0 + dy, x1 - dx, y1 - dy
