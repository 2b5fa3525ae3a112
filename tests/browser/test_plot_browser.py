"""ui/plot.py's chart component in a real Chromium: a slider step updates a plot in place (the
same plot, new bars and labels), an unchanged chart is left alone, charts below the fold are
drawn only when they come near the viewport, a link that names a figure after # lands on it, and
a cleanup Streamlit calls for an overtaken call does not blank a chart that is still shown."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

import core  # noqa: E402
from browser_harness import APP_READY, DRAWN, PLOTLY_CHART, assert_ready_without_exception, chart, context_slider  # noqa: E402
from browser_harness import REPO_ROOT as ROOT  # noqa: E402
from core.units import fmt_bytes  # noqa: E402

pytestmark = pytest.mark.browser

# Mark each plot div and count the changes inside each: a re-created plot loses its mark.
_MARK_JS = """() => {
  window.__changes = {};
  document.querySelectorAll('.kv-plot').forEach((div, i) => {
    div.dataset.mark = String(i);
    window.__changes[i] = 0;
    new MutationObserver(() => { window.__changes[i] += 1; })
      .observe(div, {subtree: true, childList: true, attributes: true, characterData: true});
  });
}"""


def test_a_slider_step_updates_a1_in_place_and_leaves_the_crossover_alone(page, app_url):
    page.goto(f"{app_url}/?lang=en")
    assert_ready_without_exception(page)
    plots = page.locator(".kv-plot")
    expect(plots).to_have_count(2)  # A1 and the crossover chart
    page.evaluate(_MARK_JS)

    thumb = context_slider(page).get_by_role("slider")
    thumb.focus()
    thumb.press("ArrowRight")  # 128K → 192K
    expected = fmt_bytes(core.reads("v4.1-flash", 3 << 16).total)
    expect(chart(page, "A1").locator("text", has_text=expected).first).to_be_attached()
    assert_ready_without_exception(page)  # the step's run is over and its figure drawn

    assert plots.first.get_attribute("data-mark") == "0"  # the same plot, updated
    changes = page.evaluate("window.__changes")
    assert changes["0"] > 0 and changes["1"] == 0, changes  # the crossover chart did not change


def test_charts_below_the_fold_are_drawn_when_they_come_near(page, app_url):
    """Charts near the first viewport are drawn without scrolling; the last one, far below,
    is not, until it is scrolled to."""
    page.set_viewport_size({"width": 1400, "height": 800})
    page.goto(f"{app_url}/v4-flash?lang=en")
    expect(page.locator(APP_READY)).to_have_count(1, timeout=60_000)
    charts = page.locator(PLOTLY_CHART)
    expect(charts.first.and_(page.locator(DRAWN))).to_have_count(1)
    last = charts.last.locator(".kv-plot")
    expect(last).to_have_count(1)  # its module has loaded and made its plot div
    assert last.evaluate("div => div.getBoundingClientRect().top") > 3 * 800  # far below the fold
    assert last.evaluate("div => div.getBoundingClientRect().height") > 100  # its size is reserved
    # a chart within plot.js's 600 px margin under the column's fold is drawn before it is scrolled to:
    # the page's prose is long, so the column is scrolled until the second chart is 300 px below the fold
    second = charts.nth(1)
    second.evaluate("""el => document.querySelector('[data-testid="stMain"]')
                                 .scrollBy(0, el.getBoundingClientRect().top - (800 + 300))""")
    expect(second.and_(page.locator(DRAWN))).to_have_count(1)
    assert second.evaluate("el => el.getBoundingClientRect().top") > 800  # drawn while still below the fold
    # its observer is made and two frames have been rendered since: an IntersectionObserver reports
    # each target at the first rendering after observe(), so its report has come, and did not draw it
    page.wait_for_function("div => Boolean(div.kv && div.kv.observer)", arg=last.element_handle())
    last.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    expect(last).not_to_have_attribute("data-drawn", "true")

    chart(page, charts.count() - 1)  # scrolled to, it is drawn
    assert_ready_without_exception(page)  # every chart draws, and no exception


def test_a_link_that_names_a_figure_lands_on_it_once_the_page_is_laid_out(page, app_url):
    """The static site's "open it in the app" (#A5, far down V2's page) shows that figure, drawn, in
    the first screen, wherever the page's first run placed it."""
    page.set_viewport_size({"width": 1400, "height": 800})
    page.goto(f"{app_url}/v2-mla?lang=en#A5")
    expect(page.locator(APP_READY)).to_have_count(1, timeout=60_000)
    a5 = page.locator(".st-key-chart-A5 .kv-plot")
    expect(a5).to_have_attribute("data-drawn", "true", timeout=60_000)  # drawn without being scrolled to by us
    page.wait_for_function("""div => { const r = div.getBoundingClientRect();
                                       return r.top >= 0 && r.top < 200; }""", arg=a5.element_handle(), timeout=60_000)
    first = page.locator(".kv-plot").first
    assert first.evaluate("div => div.getBoundingClientRect().bottom") < 0  # the page's first chart is above


# ui/plot.js on a page of its own (no server): Streamlit's component element and a one-bar figure
_BARE_PAGE = '<div class="st-key-chart-X"><div data-testid="stBidiComponentRegular" style="width: 400px"></div></div>'
_MOUNT_JS = """async () => {
  const { default: mount } = await import("/plot.js");
  const parentElement = document.querySelector('[data-testid="stBidiComponentRegular"]');
  const fig = { data: [{ type: "bar", x: ["a"], y: [1] }], layout: { height: 200, title: { text: "One bar" } } };
  const data = { spec: JSON.stringify(fig), config: {}, src: "/plotly.js" };
  window.__first = mount({ data, parentElement });
  window.__second = mount({ data: { ...data }, parentElement });  // the same figure, sent again
}"""


@pytest.fixture
def plot_js_page(browser):
    """A page at a made-up origin that serves ui/plot.js and plotly.js (modules need an origin)."""
    from plotly.offline import get_plotlyjs

    files = {"/": (_BARE_PAGE, "text/html"), "/plot.js": ((ROOT / "ui" / "plot.js").read_text(), "text/javascript"),
             "/plotly.js": (get_plotlyjs(), "text/javascript")}
    context = browser.new_context(viewport={"width": 800, "height": 600})
    page = context.new_page()

    def serve(route):
        body, kind = files[route.request.url.removeprefix("http://plot.test")]
        route.fulfill(body=body, content_type=kind)

    page.route("http://plot.test/**", serve)
    page.goto("http://plot.test/")
    yield page
    context.close()


def test_the_cleanup_of_a_call_a_newer_one_overtook_leaves_the_chart_drawn(plot_js_page):
    """Streamlit calls the cleanup of a call whose element re-rendered while the module was loading,
    though the element stays: the chart must still draw. Off the page, the cleanup frees the plot."""
    page = plot_js_page
    page.evaluate(_MOUNT_JS)
    page.evaluate("window.__first()")  # the overtaken call's cleanup, the element still shown
    plot = chart(page, 0, timeout=10_000).element_handle()
    assert plot.evaluate("div => !!div._fullLayout")

    plot.evaluate("div => { div.parentElement.remove(); return window.__second(); }")
    assert plot.evaluate("div => div._fullLayout === undefined")  # purged once the element has gone
