"""A chart on a slide (figures/layout/slide.py): margins that hold its outside text, and how large its
text may grow. A chart's labels sit at data positions (values beside bars, notes under them,
names in A24's layer cells): past some size they run into one another or off the slide, and no
margin helps. So a font scale past the slide's own is clamped to the largest at which the
chart's texts, estimated from the figure itself on the plot that scale leaves, overlap nothing
and leave the safe area nowhere that they do not at the slide's own sizes (font scale 1, the
layout tests/test_slides.py reads)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import plotly.graph_objects as go

from ..canvas import LINE, SAFE, SLIDE_TEXT, SLIDE_TITLE, TITLE_GAP, font_sizes, slide_title, title_height, unit
from ..style import TEMPLATE
from ..text import text_px

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in px from the slide's top-left
SCALE_STEP = 0.02  # font scales closer than this are one
CLEARANCE = 0.1  # ems: what a text keeps clear on its left and right
BORDER_PAD = 1  # px: plotly's padding inside an annotation's box, on every side (its borderpad)


@dataclass(frozen=True)
class _Chart:
    """A chart as plain data, read once: reading a plotly object costs microseconds a key."""

    layout: dict
    data: list
    body: float  # the body text size
    smallest: float  # the smallest text size


def _chart(fig: go.Figure) -> _Chart:
    plain = fig.to_plotly_json()
    layout = {k: v for k, v in plain["layout"].items() if k != "template"}
    return _Chart(layout, plain["data"], layout.get("font", {}).get("size") or TEMPLATE.layout.font.size,
                  min(font_sizes(fig)))


def chart_margins(fig: go.Figure, u: float, top: float) -> dict:
    """Margins that keep a chart's outside text (tick labels, labels left of the plot, axis
    titles, labels above it) inside the safe area."""
    return _margins(_chart(fig), u, top, 1.0)


def _margins(c: _Chart, u: float, top: float, k: float) -> dict:
    """The margins with every text `k` times the chart's size."""
    lay, body = c.layout, c.body * k
    yaxis = lay.get("yaxis", {})
    left = [text_px(str(s), body) + 12 * u for s in yaxis.get("ticktext") or ()] if yaxis.get("visible") \
        is not False else []
    above = 0.0
    for a in lay.get("annotations", []):
        size = a["font"]["size"] * k if a.get("font", {}).get("size") else body
        if a.get("xref") == "paper" and a.get("x") is not None and a["x"] <= 0 and a.get("xanchor") == "right":
            left.append(text_px(a.get("text") or "", size) + 2 * BORDER_PAD - (a.get("xshift") or 0) * k)
        if a.get("yref") == "paper" and a.get("y") is not None and a["y"] >= 1:
            above = max(above, LINE * size * (1 + (a.get("text") or "").count("<br>")) + 8 * u)
    axes = [ax for name, ax in lay.items() if name.startswith("xaxis")]
    below = 0.0
    if any(ax.get("visible", True) for ax in axes) or not axes:
        titled = any((ax.get("title") or {}).get("text") for ax in axes)
        below = body * LINE * (2.5 if titled else 1.2) + 10 * u
    return dict(l=SAFE * u + max(left, default=0), r=SAFE * u, t=top + above, b=SAFE * u + below, autoexpand=False)


def legend_width(fig: go.Figure, k: float = 1.0) -> float:
    """px a horizontal legend of the chart's named traces takes, every text `k` times the
    chart's size (0 where it shows none): each entry its symbol, its name and a gap."""
    return _legend(_chart(fig), k)


def _legend(c: _Chart, k: float) -> float:
    if c.layout.get("showlegend") is False:
        return 0.0
    size = (c.layout.get("legend", {}).get("font", {}).get("size") or c.body) * k
    names = [tr["name"] for tr in c.data if tr.get("showlegend") is not False and tr.get("name")]
    return sum(text_px(n, size) + 2.5 * size for n in names)


def fitting_scale(fig: go.Figure, width: int, height: int, wanted: float) -> float:
    """The largest font scale up to `wanted` (at least 1) at which the chart's texts clash with
    nothing they do not clash with at 1."""
    if wanted <= 1:
        return wanted
    c = _chart(fig)
    ok = _clashes(c, width, height, 1.0)

    def fits(scale: float) -> bool:
        return _clashes(c, width, height, scale) <= ok

    if fits(wanted):
        return wanted
    lo, hi = 1.0, wanted  # more text only clashes more: halve the interval
    while hi - lo > SCALE_STEP:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


def _clashes(c: _Chart, width: int, height: int, scale: float) -> set:
    """Which estimated texts leave the safe area, and which pairs overlap, at this font scale."""
    u = unit(height)
    k = SLIDE_TEXT * u * scale / c.smallest
    title = c.layout.get("title", {}).get("text") or ""
    beside = _legend(c, k)
    lines = slide_title(title, width, height, scale, beside)
    top = title_height(title, width, height, scale, beside)
    margin = _margins(c, u, top, k)
    boxes = [box for _, box in _texts(c, width, height, margin, k)]
    title_w = max((text_px(s, SLIDE_TITLE * u * scale) for s in lines), default=0)
    title_box = (SAFE * u, SAFE * u, SAFE * u + title_w, top - TITLE_GAP * u)
    out = {("out", i) for i, b in enumerate(boxes) if _outside(b, width, height, SAFE * u, title_box[3])}
    boxes.append(title_box)
    for i, a in enumerate(boxes):
        for j in range(i + 1, len(boxes)):
            if overlap(a, boxes[j]) > 0.1:
                out.add((i, j))
    return out


def _outside(b: Rect, width: int, height: int, safe: float, top: float) -> bool:
    return b[0] < safe - 1 or b[2] > width - safe + 1 or b[3] > height - safe + 1 or b[1] < top - 1


def overlap(a: Rect, b: Rect) -> float:
    """The share of the smaller box that the two boxes have in common."""
    w, h = min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / smaller if w > 0 and h > 0 and smaller > 0 else 0.0


def text_boxes(fig: go.Figure, width: float, height: float, margin: dict, k: float = 1.0) -> list[tuple[str, Rect]]:
    """Every annotation's and text trace's text with its estimated box (px from the top-left of a
    `width` × `height` canvas whose plot lies inside `margin`), every text `k` times its size, where its
    place is known: on the paper, or on an axis with a fixed range."""
    return list(_texts(_chart(fig), width, height, margin, k))


def _texts(c: _Chart, width: int, height: int, margin: dict, k: float):
    """Every annotation's and text trace's text and estimated box on the slide, where its position is known."""
    def px(ref, value, across):
        return _px(c.layout, ref, value, across, width, height, margin)

    for a in c.layout.get("annotations", []):
        x, y = px(a.get("xref") or "x", a.get("x"), True), px(a.get("yref") or "y", a.get("y"), False)
        if x is None or y is None or not (a.get("text") or "").strip():
            continue
        if a.get("showarrow") is not False:  # the text sits at the arrow's tail
            x, y = x + a.get("ax", -10), y + a.get("ay", -30)
        size = (a.get("font", {}).get("size") or c.body) * k
        yield a["text"], _box(a["text"], size, x + a.get("xshift", 0) * k, y - a.get("yshift", 0) * k,
                              a.get("xanchor", "center"), a.get("yanchor", "middle"))
    for tr in c.data:
        if tr.get("type", "scatter") != "scatter" or "text" not in tr.get("mode", "") or tr.get("text") is None:
            continue
        texts = [tr["text"]] * len(tr["x"]) if isinstance(tr["text"], str) else list(tr["text"])
        where = tr.get("textposition") or "middle center"
        where = [where] * len(texts) if isinstance(where, str) else list(where)
        size = (tr.get("textfont", {}).get("size") or c.body) * k
        for text, xv, yv, pos in zip(texts, tr["x"], tr["y"], where):
            x, y = px(tr.get("xaxis", "x"), xv, True), px(tr.get("yaxis", "y"), yv, False)
            if x is not None and y is not None and isinstance(text, str) and text.strip():
                vertical, _, horizontal = pos.partition(" ")
                yield text, _box(text, size, x, y, {"left": "right", "right": "left"}.get(horizontal, "center"),
                                 {"top": "bottom", "bottom": "top"}.get(vertical, "middle"))


def _box(text: str, size: float, x: float, y: float, xanchor: str, yanchor: str) -> Rect:
    """The text's box, CLEARANCE wider on each side: texts side by side must not touch to be read apart."""
    lines = text.split("<br>")
    w, h = max(text_px(line, size) for line in lines), LINE * size * len(lines)
    x0 = x - {"left": 0, "right": w}.get(xanchor, w / 2)
    y0 = y - {"top": 0, "bottom": h}.get(yanchor, h / 2)
    return x0 - CLEARANCE * size, y0, x0 + w + CLEARANCE * size, y0 + h


def _px(layout: dict, ref: str, value, across: bool, width: int, height: int, margin: dict) -> float | None:
    """px of `value` from the slide's left (`across`) or top edge, along 'paper' or the axis `ref`
    names ('x', 'y2' …); None where that axis has no fixed range (plotly picks it when it draws)."""
    if value is None or isinstance(value, str):  # categories: not estimated
        return None
    plot = width - margin["l"] - margin["r"], height - margin["t"] - margin["b"]
    f, (d0, d1) = value, (0, 1)
    if ref.endswith(" domain"):  # a fraction of an axis's own length ('x2 domain')
        axis = layout.get(("xaxis" if across else "yaxis") + ref.split()[0][1:], {})
        d0, d1 = axis.get("domain") or (0, 1)
    elif ref != "paper":
        axis = layout.get(("xaxis" if across else "yaxis") + ref[1:], {})
        if axis.get("range") is None:
            return None
        (lo, hi), (d0, d1) = axis["range"], axis.get("domain") or (0, 1)
        f = ((math.log10(value) if axis.get("type") == "log" and value > 0 else value) - lo) / (hi - lo)
    if across:
        return margin["l"] + plot[0] * (d0 + f * (d1 - d0))
    return height - margin["b"] - plot[1] * (d0 + f * (d1 - d0))
