"""Every reader, whatever they read with: axe-core (through axe-playwright-python) finds no
violation on any page, in either language, in the light look and the dark one; every chart is a
figure named by its title and described by a text with its numbers from core."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
axe_playwright = pytest.importorskip("axe_playwright_python.sync_playwright",
                                     reason="axe-playwright-python is not installed (requirements-dev.txt)")

import core  # noqa: E402
from browser_harness import PLOTLY_CHART, assert_opens_without_exception, chart  # noqa: E402
from core.units import fmt_bytes, fmt_exact  # noqa: E402
from figures import FIGURES  # noqa: E402

pytestmark = pytest.mark.browser

PAGES = ("", "v2-mla", "v3-2-dsa", "v4-flash", "v4-1-flash", "token-axis", "any-model", "export")
AXE = axe_playwright.Axe()


def violations(page) -> list[str]:
    """axe-core's violations on the page as it is, by its default rules and by WCAG 2.2's touch
    target size (24 × 24 px, or space around), which is not among them."""
    found = [*AXE.run(page).response["violations"],
             *AXE.run(page, options={"runOnly": {"type": "rule", "values": ["target-size"]}}).response["violations"]]
    return [f"{v['id']} ({v['impact']}) at {n['target']}: {n.get('failureSummary', '')[:300]}"
            for v in found for n in v["nodes"]]


@pytest.mark.parametrize("look", ["light", "dark"])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_no_page_has_an_accessibility_violation(browser, app_url, lang, look):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=look)
    page = context.new_page()
    found = {}
    for path in PAGES:
        assert_opens_without_exception(page, f"{app_url}/{path}?lang={lang}&theme={look}")
        found[path or "overview"] = violations(page)
    context.close()
    assert not any(found.values()), "\n".join(f"/{p}: {v}" for p, vs in found.items() for v in vs)


@pytest.mark.parametrize("path", PAGES)
def test_every_chart_is_a_figure_named_and_described(page, app_url, path):
    assert_opens_without_exception(page, f"{app_url}/{path}?lang=en")
    for i in range(page.locator(PLOTLY_CHART).count()):
        plot = chart(page, i)
        assert plot.get_attribute("role") == "figure"
        assert plot.get_attribute("aria-label"), f"chart {i} on /{path} has no name"
        described = page.locator(f"#{plot.get_attribute('aria-describedby')}").text_content()
        assert described.startswith(plot.get_attribute("aria-label")), described


def test_a1s_description_carries_every_models_numbers_in_the_readers_language(page, app_url):
    for lang in ("en", "ko"):
        assert_opens_without_exception(page, f"{app_url}/?lang={lang}")
        a1 = chart(page, "A1")
        assert a1.get_attribute("aria-label") == FIGURES["A1"].title(lang).split("<br>")[0]
        described = page.locator(f"#{a1.get_attribute('aria-describedby')}").text_content()
        for model in core.A1_MODELS:
            assert fmt_exact(core.storage_per_token(model).total) in described
            assert fmt_bytes(core.reads(model, core.ARTICLE_CONTEXT).total) in described
