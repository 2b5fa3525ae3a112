"""Every page on the screens readers bring, one device per width class the figures are built for
(figures/canvas.py: a column's class is the widest at most its width) — the narrowest phone of
class 320 (Galaxy S8, a 328-px column; the iPhone SE's and iPhone 13's columns, 343 and 358 px, draw
the same figures with more room), a phone of class 360 (Pixel 7), a tablet (iPad Mini) and a desktop
(1,400 px) — through Playwright's device profiles: every chart drawn, laid out for its column (none
wider than it), no text under 11 CSS px, no text over another or cut by the chart's edge, no empty
band under a title or the play controls, no accessibility violation (touch targets included), and
no exception. Each profile reads every page in one language, the two languages alternating over the
profiles. Every page in both languages at the largest text size (fs=2) on an iPhone 13, measured the
same way. Every figure link, and a phone reader's way through the sections (an iPhone 13)."""

from __future__ import annotations

import re
from contextlib import closing

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
pytest.importorskip("axe_playwright_python", reason="axe-playwright-python is not installed (requirements-dev.txt)")

from playwright.sync_api import expect  # noqa: E402

import core  # noqa: E402
from article import SECTIONS  # noqa: E402
from browser_harness import (  # noqa: E402
    APP_READY,
    EXCEPTION,
    PAGES,
    PLOTLY_CHART,
    assert_opens_without_exception,
    assert_ready_without_exception,
    axe_violations,
    canvas_class,
    chart,
    chart_problems,
    chart_title,
    measure,
    read_metric,
)
from core.units import fmt_bytes  # noqa: E402
from figures import SPECS  # noqa: E402
from figures.canvas import SCREEN_WIDTHS, width_class  # noqa: E402
from figures.knobs import FONT_SCALE  # noqa: E402
from figures.registry import PLAYS  # noqa: E402

pytestmark = pytest.mark.browser

DEVICES = [("Galaxy S8", "ko"), ("Pixel 7", "en"), ("iPad Mini", "ko"), ("Desktop 1400", "en")]
DESKTOP = {"viewport": {"width": 1400, "height": 1000}}
CHARTS = 40  # on the pages of PAGES at their defaults (the Any model page: A1, planner, budget, read floor)
PHONE_COLUMN = 358  # px: the iPhone 13's 390 less the column's padding


@pytest.mark.parametrize("device, lang", DEVICES)
def test_every_chart_is_laid_out_for_the_readers_screen(pw, browser, app_url, device, lang):
    with closing(browser.new_context(**(DESKTOP if device == "Desktop 1400" else pw.devices[device]))) as context:
        problems, charts = measure_pages(context.new_page(), app_url, lang, axe=True)
    assert charts == CHARTS, f"{charts} charts measured, not {CHARTS}"
    assert not problems, f"{device}, {lang}:\n" + "\n".join(problems)


def measure_pages(page, app_url: str, lang: str, query: str = "", *, axe: bool = False) -> tuple[list[str], int]:
    """Every page of PAGES opened in `lang` (with `query` added to its address), laid out for the column
    it measured; each chart read through `chart` and measured (`measure`): what `chart_problems` finds,
    one line each, with the screen's width too (and, with `axe`, the page's accessibility violations);
    and how many charts were measured."""
    problems, charts = [], 0
    for path in PAGES:
        assert_opens_without_exception(page, f"{app_url}/{path}?lang={lang}{query}")
        # ready means laid out for the column it measured (ui/column.js), not for a guess
        assert canvas_class(page) in SCREEN_WIDTHS, path
        assert_ready_without_exception(page)  # and the run that drew for that class has finished
        if axe:
            problems += [f"/{path}: {v}" for v in axe_violations(page)]
        for i in range(page.locator(PLOTLY_CHART).count()):
            plot = chart(page, i)
            name = f"/{path}{query} {chart_title(page.locator(PLOTLY_CHART).nth(i))[:50]!r}"
            m = measure(plot)
            problems += chart_problems(name, m, bands=True)
            if m["width"] > page.viewport_size["width"]:
                problems.append(f"{name}: {m['width']:.0f} px wide on a {page.viewport_size['width']} px screen")
            charts += 1
    return problems, charts


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_every_chart_is_laid_out_for_large_text_on_a_phone(pw, browser, app_url, lang):
    """The app's largest text size (fs=2: every text twice its size) on an iPhone 13: every page's charts
    are laid out for the larger text (figures/canvas.py: the text size is part of the canvas), none
    wider than the screen, no text under 11 px, none over another or cut by the chart's edge."""
    with closing(browser.new_context(**pw.devices["iPhone 13"])) as context:
        problems, charts = measure_pages(context.new_page(), app_url, lang, f"&{FONT_SCALE.key}=2")
    assert charts == CHARTS, f"{charts} charts measured, not {CHARTS}"
    assert not problems, f"iPhone 13, {lang}, fs=2:\n" + "\n".join(problems)


# the page that shows each figure with a ▶ Play toggle (the registry's PLAYS; a test holds them equal)
PLAYED = (("v4-flash", "A14"), ("v4-flash", "A19"), ("v4-1-flash", "A25"), ("v4-1-flash", "A27"), ("token-axis", "B3"))


def test_every_figure_that_plays_is_measured():
    assert {figure_id for _, figure_id in PLAYED} == set(PLAYS)


def test_a_figure_that_plays_is_laid_out_for_a_phone_too(pw, browser, app_url):
    """With ▶ Play on, the animation as it first shows (its canvas holds every step) and its
    controls are laid out for the column."""
    problems = []
    with closing(browser.new_context(**pw.devices["Galaxy S8"])) as context:
        page = context.new_page()
        for path, figure_id in PLAYED:
            assert_opens_without_exception(page, f"{app_url}/{path}?lang=ko")
            page.locator(f".st-key-toggle-play-{figure_id} label").first.click()
            problems += chart_problems(f"/{path} {figure_id} ▶", measure(chart(page, figure_id, play=True)), bands=True)
    assert not problems, "\n".join(problems)


# A figure link on a phone: every figure (the registry's), alone and in an iframe's embed form, in
# both languages. Each form's first link is opened; the next ones follow through the address bar's
# history, as the app's own navigation does (Streamlit reruns with the new query, no reload). Every
# wait is for a state: that figure's chart drawn, the run over. (One tab: a second one in the
# background draws several times slower.)
FORMS = ("", "&embed=true")


def figure_links(app_url: str, form: str) -> list[str]:
    return [f"{app_url}/?figure={figure_id}&lang={lang}{form}" for lang in ("ko", "en") for figure_id in SPECS]


def test_every_figure_link_is_laid_out_for_a_phone(pw, browser, app_url):
    """Each link drawn (read through the harness's chart()), laid out for the phone's column (the
    width class it measured), none wider than the screen, no text under 11 px, none over another or
    cut by the chart's edge."""
    problems, measured = [], 0
    with closing(browser.new_context(**pw.devices["iPhone 13"])) as context:
        tab = context.new_page()
        for form in FORMS:
            links = figure_links(app_url, form)
            tab.goto(links[0])
            for url, following in zip(links, [*links[1:], None]):
                figure_id = url.split("figure=")[1].split("&")[0]
                plot = chart(tab, figure_id)
                assert_ready_without_exception(tab)
                assert canvas_class(tab) == width_class(PHONE_COLUMN), url
                m = measure(plot)
                problems += chart_problems(url.removeprefix(app_url), m, bands=True)
                if m["width"] > tab.viewport_size["width"]:
                    problems.append(f"{url}: {m['width']:.0f} px wide on a {tab.viewport_size['width']} px screen")
                measured += 1
                if following:
                    tab.evaluate(_FOLLOW_JS, following)
    assert measured == 4 * len(SPECS)
    assert not problems, "\n".join(problems)


_FOLLOW_JS = "url => { history.pushState(null, '', url); dispatchEvent(new PopStateEvent('popstate')); }"


def test_a_phone_reader_moves_through_the_sections_without_the_sidebar(pw, browser, app_url):
    """At an iPhone 13, from the Overview on: the context moved at the top of the page moves the
    numbers; every section shows the context control and the precision preset there with the sidebar
    closed, keeps them on screen while the page is read to its end, and ends with a link to the next
    section, which the reader follows (the context stays where it was moved)."""
    slugs = list(SECTIONS)
    with closing(browser.new_context(**pw.devices["iPhone 13"])) as context:
        page = context.new_page()
        assert_opens_without_exception(page, f"{app_url}/?lang=ko")
        thumb = page.locator('[data-testid="stMain"] .st-key-phone-controls .st-key-ctx').get_by_role("slider")
        thumb.focus()
        thumb.press("ArrowRight")  # 128K → 192K: the context's part reruns, as from the sidebar
        expect(read_metric(page)).to_have_text(fmt_bytes(core.reads("v4.1-flash", 3 << 16).total))
        expect(page).to_have_url(re.compile(r"ctx=192K"))
        for i, slug in enumerate(slugs):
            expect(page).to_have_url(re.compile(rf"/{'' if slug == 'overview' else re.escape(slug)}\?(.*&)?ctx=192K"))
            expect(page.locator(APP_READY)).to_have_count(1)
            expect(page.locator('[data-testid="stSidebar"]')).to_have_attribute("data-collapsed", "true")
            row = page.locator('[data-testid="stMain"] .st-key-phone-controls')
            for key in ("ctx", "prec"):
                expect(row.locator(f".st-key-{key}")).to_be_in_viewport()
            page.locator('[data-testid="stMain"]').evaluate("main => main.scrollTo(0, main.scrollHeight)")
            expect(row.locator(".st-key-ctx")).to_be_in_viewport()  # still at hand at the page's end
            links = page.locator('.st-key-section-links [data-testid="stPageLink"] a')
            if i + 1 == len(slugs):
                expect(links).to_have_count(1)  # the last section: back only
                break
            following = links.last
            expect(following).to_have_attribute("href", re.compile(rf"(^|/){re.escape(slugs[i + 1])}$"))
            expect(following).to_be_in_viewport()
            following.click()
        expect(page.locator(EXCEPTION)).to_have_count(0)


@pytest.mark.parametrize("width", [340, 1000])
def test_an_embedded_figure_is_laid_out_for_its_iframe(browser, app_url, width):
    """A figure embedded in another site's page, in an iframe of any width, lays itself out for the
    iframe's column, not the screen's."""
    with closing(browser.new_context(viewport={"width": 1400, "height": 1000})) as context:
        page = context.new_page()
        page.set_content(f'<iframe src="{app_url}/?figure=A1&embed=true&lang=en" width="{width}" height="900"'
                         ' style="border:0"></iframe>')
        frame = page.frame_locator("iframe")
        expect(frame.locator(APP_READY)).to_have_count(1, timeout=60_000)
        plot = chart(page.frames[1], "A1")
        column = plot.evaluate(_COLUMN_JS)
        drawn = canvas_class(page.frames[1])
        assert drawn == width_class(column) and column < width, (width, column)
        assert not chart_problems(f"A1 in a {width} px iframe", measure(plot), bands=True)


_COLUMN_JS = """d => { const c = d.closest('[data-testid="stMainBlockContainer"]'), s = getComputedStyle(c);
  return c.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight); }"""
