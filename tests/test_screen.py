"""figures/layout/screen.py: a figure laid out for a page column."""

import plotly.graph_objects as go
import pytest

from figures.canvas import LINE, TITLE_TOP
from figures.layout.screen import SCREEN_TITLE_GAP, SUP_FOOT, TITLE_FOOT, screen_layout
from figures.style import TEMPLATE, heading

SIZE = TEMPLATE.layout.title.font.size


@pytest.mark.parametrize("title, subtitle", [
    ("A title long enough to be broken on a phone's column, twice over", ""),
    ("Short", "a subtitle long enough to be broken on a phone's column · and then once more"),
    ("한국어 제목이 휴대폰 화면의 너비에서 두 줄로 나뉠 만큼 길다",
     "부제목도 한 줄에 들어가지 않을 만큼 충분히 길어서 나뉜다 · 두 번"),
])
def test_a_broken_title_grows_the_figure_by_plotlys_line_spacing_of_the_title_size(title, subtitle):
    """plotly spaces every line of a title by the title's size, its <sup> subtitle lines too: each
    line the column adds takes LINE × that size off a drawing that must keep its own height (here a
    top margin that holds a legend too)."""
    fig = go.Figure(layout=dict(template=TEMPLATE, title=heading(title, subtitle), height=400, margin_t=90,
                                legend=dict(orientation="h", y=1.02, yanchor="bottom")))
    lines = fig.layout.title.text.count("<br>")
    screen_layout(fig, 320)
    added = fig.layout.title.text.count("<br>") - lines
    assert added > 0
    assert fig.layout.margin.t == pytest.approx(90 + added * LINE * SIZE)
    assert fig.layout.height == pytest.approx(400 + added * LINE * SIZE)


LONG = "a subtitle long enough to be broken on a phone's column · and then once more"


@pytest.mark.parametrize("subtitle, lines", [("", 1), ("one line", 2), (LONG, 3)])
def test_a_top_margin_that_holds_only_the_title_is_as_tall_as_its_lines(subtitle, lines):
    """No empty band under a title: the drawing starts SCREEN_TITLE_GAP under the title's last line, wherever
    the builder put it, and keeps its own height."""
    fig = go.Figure(layout=dict(template=TEMPLATE, title=heading("Short", subtitle), height=400, margin_t=120))
    screen_layout(fig, 320)
    assert fig.layout.title.text.count("<br>") + 1 == lines
    foot = (SUP_FOOT if subtitle else TITLE_FOOT) * SIZE
    assert fig.layout.margin.t == pytest.approx(TITLE_TOP + (lines - 1) * LINE * SIZE + foot + SCREEN_TITLE_GAP)
    assert fig.layout.height - fig.layout.margin.t == pytest.approx(400 - 120)


@pytest.mark.parametrize("layout", [dict(legend=dict(y=1.1)), dict(annotations=[dict(text="N", x=0, y=1, xref="paper",
                                                                                    yref="paper", yanchor="bottom")]),
                                    dict(xaxis=dict(side="top"))])
def test_a_top_margin_that_holds_more_than_the_title_is_kept(layout):
    fig = go.Figure(layout=dict(template=TEMPLATE, title=heading("Short", "one line"), height=400, margin_t=120,
                                **layout))
    screen_layout(fig, 900)
    assert fig.layout.margin.t == 120 and fig.layout.height == 400


# --- the reader's text size: every figure laid out for a phone's column with larger text ---------------

import math  # noqa: E402

from figures import SPECS  # noqa: E402
from figures.canvas import ASCENT, SCREEN_TEXT, Canvas, title_top  # noqa: E402
from figures.layout.chart_slide import overlap, text_boxes  # noqa: E402
from figures.layout.screen import title_bottom  # noqa: E402
from figures.text import runs, text_px  # noqa: E402

AXIS_TITLE = 1.2  # plotly's axis titles, of the body size (rounded)


def drawn_sizes(fig: go.Figure) -> list[tuple[float, str]]:
    """Every run of characters a figure draws, at the size it draws it (sub- and superscripts at 70 %
    of their label's size unless a span gives them their own), with its text."""
    body = fig.layout.font.size or TEMPLATE.layout.font.size
    labels = [(fig.layout.title.text or "", fig.layout.title.font.size or TEMPLATE.layout.title.font.size)]
    labels += [(a.text or "", a.font.size or body) for a in fig.layout.annotations]
    for tr in fig.data:
        size = (tr.textfont.size if "textfont" in tr else None) or body
        sizes = size if isinstance(size, (list, tuple)) else None
        texts = tr.text if isinstance(tr.text, (list, tuple)) else [tr.text] if isinstance(tr.text, str) else []
        labels += [(x, sizes[i] if sizes else size) for i, x in enumerate(texts) if isinstance(x, str)]
        if tr.showlegend is not False and tr.name and fig.layout.showlegend is not False:
            labels.append((tr.name, fig.layout.legend.font.size or body))
    for ax in (*fig.select_xaxes(), *fig.select_yaxes()):
        if ax.visible is False:
            continue
        labels += [(str(x), ax.tickfont.size or body) for x in (ax.ticktext or ["0"])]
        if ax.title.text:
            labels.append((ax.title.text, ax.title.font.size or round(AXIS_TITLE * body)))
    return [(at, text) for html, size in labels for line in html.split("<br>") for text, at, _ in runs(line, size)
            if text.strip()]


def title_box(fig: go.Figure) -> tuple[float, float, float, float] | None:
    """The title's box, where the layout placed it from the top edge (figures.canvas.title_at_top)."""
    title = fig.layout.title
    if not title.text or title.yref != "container" or title.y is None:
        return None
    size = title.font.size or TEMPLATE.layout.title.font.size
    lines = title.text.split("<br>")
    top = (1 - title.y) * fig.layout.height - ASCENT * size
    assert top == pytest.approx(title_top(size), abs=0.5), "the title's letters start title_top under the edge"
    return 0.0, top, max(text_px(line, size) for line in lines), title_bottom(lines, size)


def laid_out(width: int, scale: float, lang: str):
    for figure_id, spec in SPECS.items():
        values = {**spec.defaults, **({"lang": lang} if "lang" in spec.defaults else {})}
        yield figure_id, spec.build(values, Canvas(column=width, font_scale=scale))


@pytest.mark.parametrize("width", [320, 360])
@pytest.mark.parametrize("scale", [1.25, 1.5, 2.0])
def test_every_figure_is_laid_out_for_a_phones_column_at_the_readers_text_size(width, scale):
    """The reader's text size (the app's fs) is part of the canvas: every figure, built for a phone's
    column at 1.25, 1.5 and 2 times its text, in both languages, draws no text under `scale` × 11 px
    (sub- and superscripts included), is no wider than the column, breaks its title's lines to it, and
    has no text over another or past its edges where the layout fixes its place (the title; labels on
    the paper or on axes of fixed range: every diagram's, the bar charts' on a phone), as the figures'
    font measures them (figures.text). The browser tests measure what plotly draws."""
    problems = []
    floor = SCREEN_TEXT * scale
    for lang in ("ko", "en"):
        for figure_id, built in laid_out(width, scale, lang):
            fig, name = built.figure, f"{figure_id} {lang}"
            assert built.font_scale == scale
            small = [(round(at, 2), text[:30]) for at, text in drawn_sizes(fig) if at < floor - 1e-6]
            if small:
                problems.append(f"{name}: text under {floor:g} px: {small[:3]}")
            w = fig.layout.width or width
            if w > width:
                problems.append(f"{name}: {w:g} px wide in a {width} px column")
            margin = fig.layout.margin
            size = fig.layout.title.font.size or TEMPLATE.layout.title.font.size
            room = w - (margin.l or 0) - (margin.r or 0) - 10
            wide = [line for line in (fig.layout.title.text or "").split("<br>") if text_px(line, size) > room + 1]
            if wide:
                problems.append(f"{name}: title lines wider than {room:g} px: {wide[:2]}")
            boxes = text_boxes(fig, w, fig.layout.height, {k: margin[k] or 0 for k in "lrtb"})
            title = title_box(fig)
            boxes += [(fig.layout.title.text, title)] if title else []
            out = [text[:30] for text, (x0, y0, x1, y1) in boxes
                   if x0 < -1 or y0 < -1 or x1 > w + 1 or y1 > fig.layout.height + 1]
            if out:
                problems.append(f"{name}: texts past its edges: {out[:3]}")
            over = [(a[:20], b[:20]) for i, (a, box) in enumerate(boxes) for b, other in boxes[i + 1:]
                    if overlap(box, other) > 0.1]
            if over:
                problems.append(f"{name}: {len(over)} texts over others, e.g. {over[:3]}")
    assert not problems, f"{width} px at {scale:g}×:\n" + "\n".join(problems)


def test_a_figure_built_for_a_larger_text_size_is_only_coloured_by_the_look():
    """The canvas's look scales a figure built natively; one built for a column's text size has its text laid
    out already, and is not scaled again."""
    spec = SPECS["A1"]
    built = spec.build(spec.defaults, Canvas(column=320, font_scale=2.0))
    dark = spec.build(spec.defaults, Canvas(column=320, font_scale=2.0, theme="dark"))
    sizes = [a.font.size for a in built.figure.layout.annotations]
    assert [a.font.size for a in dark.figure.layout.annotations] == sizes
    assert dark.figure.layout.title.font.size == built.figure.layout.title.font.size == 2 * SIZE
    assert dark.figure.layout.paper_bgcolor != built.figure.layout.paper_bgcolor
    native = spec.build(spec.defaults, Canvas(font_scale=2.0))
    assert native.figure.layout.font.size == 2 * TEMPLATE.layout.font.size


@pytest.mark.parametrize("width, scale, narrow", [(320, 1.0, True), (700, 1.0, False), (900, 1.25, False),
                                                  (900, 1.5, True), (700, 1.25, True), (1400, 2.0, False)])
def test_a_column_lays_out_for_a_phone_when_it_holds_no_more_of_the_text_than_a_phone_does(width, scale, narrow):
    assert Canvas(column=width, font_scale=scale).narrow is narrow
    assert Canvas(slide=(1920, 1080), font_scale=scale).text == 1.0
    assert Canvas(column=width, font_scale=scale).floor == pytest.approx(SCREEN_TEXT * scale)
    assert not math.isnan(scale)
