"""browser_harness.chart, the one way the tests read a chart: it waits for the chart's drawn
state (not for a time), returns the plot, and a chart that is never drawn fails with its title.
Pages made in place, shaped as ui/plot.js shapes a chart; no server."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

from browser_harness import chart  # noqa: E402

pytestmark = pytest.mark.browser

# a chart as ui/plot.js makes it: Streamlit's component element, the plot div, its figure
CHART = """<div class="st-key-chart-A9"><div data-testid="stBidiComponentRegular">
  <div class="kv-plot" style="height: 300px"><svg><text>t = 3: 4 rows</text></svg></div></div></div>"""
FIGURE_JS = """title => document.querySelector('.kv-plot').kv = {fig: {layout: {title: {text: title}}}}"""


@pytest.fixture
def bare(browser):
    context = browser.new_context(viewport={"width": 800, "height": 600})
    yield context.new_page()
    context.close()


def test_a_chart_never_drawn_fails_with_its_title(bare):
    bare.set_content(CHART)
    bare.evaluate(FIGURE_JS, "Entries readable now<br><sup>m′ = 4, window 4</sup>")
    with pytest.raises(AssertionError, match="'Entries readable now · m′ = 4, window 4' was not drawn"):
        chart(bare, "A9", timeout=500)


def test_a_chart_is_returned_once_its_latest_figure_is_drawn(bare):
    bare.set_content(CHART)
    bare.evaluate(FIGURE_JS, "Entries readable now")
    plot = bare.locator(".kv-plot")
    plot.evaluate("div => { div.dataset.drawn = 'false'; setTimeout(() => div.dataset.drawn = 'true', 300); }")
    found = chart(bare, "A9")
    assert found.get_attribute("data-drawn") == "true"  # read once, not waited for
    expect(found.get_by_text("t = 3: 4 rows")).to_be_visible()


def test_a_chart_below_the_fold_is_scrolled_into_view(bare):
    bare.set_content(f'<div style="height: 3000px"></div>{CHART}')
    plot = bare.locator(".kv-plot")
    # drawn when it comes into view, as plot.js draws it
    plot.evaluate("""div => new IntersectionObserver((es, o) => {
      if (es.some(e => e.isIntersecting)) { o.disconnect(); div.dataset.drawn = 'true'; }
    }).observe(div)""")
    expect(chart(bare, 0)).to_be_in_viewport()


def test_a_figure_that_is_not_on_the_page_fails_with_its_id(bare):
    bare.set_content(CHART)
    with pytest.raises(AssertionError, match="'A14 \\(not on the page, or no figure sent to it\\)' was not drawn"):
        chart(bare, "A14", timeout=500)
