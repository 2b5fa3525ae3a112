"""figures/screen.py: a figure laid out for a page column."""

import plotly.graph_objects as go
import pytest

from figures.canvas import LINE
from figures.screen import screen_layout
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
    line the column adds takes LINE × that size off a drawing that must keep its own height."""
    fig = go.Figure(layout=dict(template=TEMPLATE, title=heading(title, subtitle), height=400, margin_t=90))
    lines = fig.layout.title.text.count("<br>")
    screen_layout(fig, 320)
    added = fig.layout.title.text.count("<br>") - lines
    assert added > 0
    assert fig.layout.margin.t == pytest.approx(90 + added * LINE * SIZE)
    assert fig.layout.height == pytest.approx(400 + added * LINE * SIZE)
