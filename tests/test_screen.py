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
