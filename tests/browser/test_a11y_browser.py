"""Every reader, whatever they read with: axe-core (through axe-playwright-python) finds no
violation on any page, in either language, in the light look and the dark one (each once); every chart is a
figure named by its title and described by a text with its numbers from core."""

from __future__ import annotations

from contextlib import closing

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
pytest.importorskip("axe_playwright_python", reason="axe-playwright-python is not installed (requirements-dev.txt)")

import core  # noqa: E402
from browser_harness import PAGES, PLOTLY_CHART, assert_opens_without_exception, axe_violations, chart  # noqa: E402
from core.units import fmt_bytes, fmt_exact  # noqa: E402
from figures import FIGURES  # noqa: E402

pytestmark = pytest.mark.browser


# each language and each look read once: a look changes colours, a language words, and neither
# depends on the other (the devices' test reads every page again, in both languages, light)
@pytest.mark.parametrize("lang, look", [("ko", "light"), ("en", "dark")])
def test_no_page_has_an_accessibility_violation(browser, app_url, lang, look):
    found = {}
    with closing(browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=look)) as context:
        page = context.new_page()
        for path in PAGES:
            assert_opens_without_exception(page, f"{app_url}/{path}?lang={lang}&theme={look}")
            found[path or "overview"] = axe_violations(page)
    assert not any(found.values()), "\n".join(f"/{p}: {v}" for p, vs in found.items() for v in vs)


@pytest.mark.parametrize("path", [p for p in PAGES if p not in ("export", "glossary")])  # those draw no chart
def test_every_chart_is_a_figure_named_and_described(page, app_url, path):
    assert_opens_without_exception(page, f"{app_url}/{path}?lang=en")
    count = page.locator(PLOTLY_CHART).count()
    assert count > 0, f"/{path} shows no chart"
    for i in range(count):
        plot = chart(page, i)
        assert plot.get_attribute("role") == "figure"
        name, described_by = plot.get_attribute("aria-label"), plot.get_attribute("aria-describedby")
        assert name and described_by, f"chart {i} on /{path}: name {name!r}, described by {described_by!r}"
        described = page.locator(f"#{described_by}").text_content()
        assert described.startswith(name), described


def test_a1s_description_carries_every_models_numbers_in_the_readers_language(page, app_url):
    for lang in ("en", "ko"):
        assert_opens_without_exception(page, f"{app_url}/?lang={lang}")
        a1 = chart(page, "A1")
        assert a1.get_attribute("aria-label") == FIGURES["A1"].title(lang).split("<br>")[0]
        described = page.locator(f"#{a1.get_attribute('aria-describedby')}").text_content()
        for model in core.A1_MODELS:
            assert fmt_exact(core.storage_per_token(model).total) in described
            assert fmt_bytes(core.reads(model, core.ARTICLE_CONTEXT).total) in described
