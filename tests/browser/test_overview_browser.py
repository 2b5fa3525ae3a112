"""The Overview page in a real Chromium: charts drawn, the context slider moves a number, URLs restore state.

Screenshots of every visited view go to artifacts/screenshots/.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from harness import EXCEPTION, PLOTLY_CHART, context_slider, wait_ready  # noqa: E402
from playwright.sync_api import expect  # noqa: E402

import core  # noqa: E402
from core.units import fmt_bytes  # noqa: E402

pytestmark = pytest.mark.browser

MIN_CHARTS = 2  # A1 and the local/global KV crossover
READ_LABEL = re.compile(r"read|읽는", re.IGNORECASE)


def read_metric(page):
    """The value element of the st.metric whose label mentions reading ("read" / "읽는")."""
    label = page.locator('[data-testid="stMetricLabel"]', has_text=READ_LABEL)
    metric = page.locator('[data-testid="stMetric"]', has=label).first
    return metric.locator('[data-testid="stMetricValue"]')


def open_view(page, url: str):
    page.goto(url)
    wait_ready(page)


def test_overview_draws_its_charts_without_an_exception(page, app_url, screenshot):
    open_view(page, f"{app_url}/")
    screenshot("overview-default")
    drawn = page.locator(PLOTLY_CHART).filter(has=page.locator(".main-svg"))
    assert drawn.count() >= MIN_CHARTS, f"only {drawn.count()} plotly charts drawn, expected >= {MIN_CHARTS}"
    expect(page.locator(EXCEPTION)).to_have_count(0)


def test_moving_the_context_slider_changes_the_read_total_and_the_url(page, app_url, screenshot):
    open_view(page, f"{app_url}/")
    value = read_metric(page)
    expect(value).to_be_visible()
    before = value.inner_text()

    thumb = context_slider(page).get_by_role("slider")
    thumb.focus()
    for _ in range(3):
        thumb.press("ArrowLeft")

    expect(page).to_have_url(re.compile(r"[?&]ctx="))
    expect(value).not_to_have_text(before)
    wait_ready(page)
    assert value.inner_text() != before
    screenshot("overview-ctx-moved")


def test_a_shared_url_restores_language_context_and_precision(page, app_url, screenshot):
    open_view(page, f"{app_url}/")
    default_text = read_metric(page).inner_text()

    open_view(page, f"{app_url}/?lang=en&ctx=1M&prec=bf16")
    screenshot("overview-en-1M-bf16")
    label = page.locator('[data-testid="stMetricLabel"]', has_text=READ_LABEL).first
    expect(label).to_contain_text(re.compile(r"read", re.IGNORECASE))  # English, not "읽는"

    expect(context_slider(page).locator('[data-testid="stSliderThumbValue"]')).to_have_text("1M")

    checked = page.locator('.st-key-prec [data-testid="stRadioOption"]').filter(has=page.locator("input:checked"))
    expect(checked).to_contain_text(re.compile(r"bf16", re.IGNORECASE))

    expect(read_metric(page)).not_to_have_text(default_text)
    expected = core.reads("v4.1-flash", 1 << 20, core.ALL_BF16).total
    expect(read_metric(page)).to_have_text(fmt_bytes(expected))


def nav_urls(page, app_url: str) -> list[str]:
    """Every in-app page URL in the navigation (the root alone if there is none)."""
    more = page.locator('[data-testid="stSidebarNavViewButton"]')
    if more.count() and "more" in more.first.inner_text().lower():
        more.first.click()
    links = page.locator('[data-testid="stSidebarNavLink"], [data-testid="stTopNavLink"]')
    host = urlsplit(app_url).netloc
    urls = [f"{app_url}/"]
    for href in (links.nth(i).get_attribute("href") for i in range(links.count())):
        url = urljoin(f"{app_url}/", href or "")
        parts = urlsplit(url)
        if parts.netloc == host:
            url = f"{parts.scheme}://{parts.netloc}{parts.path}"
            if url not in urls:
                urls.append(url)
    return urls


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_no_page_shows_an_exception(page, app_url, screenshot, lang):
    open_view(page, f"{app_url}/?lang={lang}")
    for url in nav_urls(page, app_url):
        open_view(page, f"{url}?lang={lang}")  # wait_ready asserts no stException
        slug = urlsplit(url).path.strip("/").replace("/", "-") or "overview"
        screenshot(f"page-{lang}-{slug}")
