"""Every page on the screens readers bring — phones (Galaxy S8 360 px, iPhone SE 375, iPhone 13
390, Pixel 7 412), a tablet (iPad Mini 768) and a desktop (1,400 px) — through Playwright's device
profiles: every chart drawn, laid out for its column (none wider than it), no text under 11 CSS px,
no text over another or cut by the chart's edge, no accessibility violation (touch targets
included), and no exception. Each profile reads every page in one language, the two languages
alternating over the profiles."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")

pytest.importorskip("axe_playwright_python", reason="axe-playwright-python is not installed (requirements-dev.txt)")
from test_a11y_browser import violations  # noqa: E402

from browser_harness import PLOTLY_CHART, assert_opens_without_exception, chart, chart_title, measure  # noqa: E402
from figures.canvas import SCREEN_TEXT  # noqa: E402
from figures.registry import PLAYS  # noqa: E402

pytestmark = pytest.mark.browser

PAGES = ("", "v2-mla", "v3-2-dsa", "v4-flash", "v4-1-flash", "token-axis", "any-model", "export")
DEVICES = [("Galaxy S8", "ko"), ("iPhone SE (3rd gen)", "en"), ("iPhone 13", "ko"), ("Pixel 7", "en"),
           ("iPad Mini", "ko"), ("Desktop 1400", "en")]


def chart_problems(name: str, m: dict) -> list[str]:
    """What a reader would see wrong in one measured chart (browser_harness.measure)."""
    small = [s for s in m["sizes"] if s["size"] < SCREEN_TEXT - 1e-6]
    return [problem for problem, found in (
        (f"{name}: {m['width']:.0f} px wide in a {m['column']:.0f} px column", m["overflow"] > 0.5),
        (f"{name}: {len(small)} texts under {SCREEN_TEXT} px, e.g. {small[:3]}", small),
        (f"{name}: {len(m['overlaps'])} texts over others, e.g. {m['overlaps'][:3]}", m["overlaps"]),
        (f"{name}: texts cut by its edge: {m['cut'][:3]}", m["cut"])) if found]


@pytest.mark.parametrize("device, lang", DEVICES)
def test_every_chart_is_laid_out_for_the_readers_screen(pw, browser, app_url, device, lang):
    desktop = {"viewport": {"width": 1400, "height": 1000}}
    context = browser.new_context(**(desktop if device == "Desktop 1400" else pw.devices[device]))
    page = context.new_page()
    problems = []
    for path in PAGES:
        assert_opens_without_exception(page, f"{app_url}/{path}?lang={lang}")
        problems += [f"/{path}: {v}" for v in violations(page)]
        for i in range(page.locator(PLOTLY_CHART).count()):
            name = f"/{path} {chart_title(page.locator(PLOTLY_CHART).nth(i))[:50]!r}"
            problems += chart_problems(name, measure(chart(page, i)))
    context.close()
    assert not problems, f"{device}, {lang}:\n" + "\n".join(problems)


# the page that shows each figure with a ▶ Play toggle (the registry's PLAYS; a test holds them equal)
PLAYED = (("v4-flash", "A14"), ("v4-flash", "A19"), ("v4-1-flash", "A25"), ("v4-1-flash", "A27"), ("token-axis", "B3"))


def test_every_figure_that_plays_is_measured():
    assert {figure_id for _, figure_id in PLAYED} == set(PLAYS)


def test_a_figure_that_plays_is_laid_out_for_a_phone_too(pw, browser, app_url):
    """With ▶ Play on, the animation's every step is laid out for the column, its controls included."""
    context = browser.new_context(**pw.devices["Galaxy S8"])
    page = context.new_page()
    problems = []
    for path, figure_id in PLAYED:
        assert_opens_without_exception(page, f"{app_url}/{path}?lang=ko")
        page.locator(f".st-key-toggle-play-{figure_id} label").first.click()
        problems += chart_problems(f"/{path} {figure_id} ▶", measure(chart(page, figure_id, play=True)))
    context.close()
    assert not problems, "\n".join(problems)
