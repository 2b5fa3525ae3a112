"""Exports in a real Chromium: the offline site draws from file:// with the network blocked,
and the app's download button hands over an SVG."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

from browser_harness import assert_ready_without_exception, chart, context_slider  # noqa: E402

pytestmark = pytest.mark.browser


def test_a_site_page_draws_offline_from_its_shared_plotly_js(page, site):
    _, tmp_path = site  # `python -m publish site`'s build, opened from its folder
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://")
               else route.abort())
    pages = [p for p in sorted((tmp_path / "en").glob("*.html")) if p.name != "index.html"]  # index: a redirect
    for path in [*pages, tmp_path / "ko" / "v4-flash.html"]:
        page.goto(path.as_uri())  # a folder opened in the browser: file://, nothing from the network
        for figure_id in page.locator("figure.chart").evaluate_all("fs => fs.map(f => f.id)"):
            expect(chart(page, figure_id)).to_be_visible()


def test_the_download_button_hands_over_an_svg_of_the_figure(page, app_url):
    page.goto(f"{app_url}/?lang=en")
    assert_ready_without_exception(page)
    thumb = context_slider(page).get_by_role("slider")
    thumb.focus()
    thumb.press("ArrowRight")  # 128K → 192K: a fragment run; the popover then opens in the fragment
    expect(page.locator('[data-testid="stSidebar"]', has_text="N = 196,608")).to_be_visible()
    assert_ready_without_exception(page)
    page.get_by_text("⤓ Download").first.click()
    with page.expect_download() as info:
        page.get_by_role("button", name="SVG").first.click()
    path = info.value.path()
    text = open(path, encoding="utf-8").read()
    assert text.lstrip().startswith("<svg") and "what is stored and what is read" in text
    assert "196,608" in text and "131,072" not in text  # the figure at the context shown
