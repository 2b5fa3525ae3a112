"""The Overview page in a real Chromium: charts drawn, the context slider moves a number, URLs restore state,
the sidebar reaches every page.

Screenshots of every visited view go to artifacts/screenshots/.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

import core  # noqa: E402
from browser_harness import (  # noqa: E402
    EXCEPTION,
    PAGES,
    READ_LABEL,
    assert_opens_without_exception,
    assert_ready_without_exception,
    chart,
    context_slider,
    finished_as,
    read_metric,
    run_messages,
    websocket_frames,
)
from core.units import fmt_bytes  # noqa: E402

pytestmark = pytest.mark.browser

def test_overview_draws_its_charts_without_an_exception(page, app_url, screenshot):
    assert_opens_without_exception(page, f"{app_url}/")
    for figure_id in ("A1", "crossover"):
        chart(page, figure_id)
    screenshot("overview-default")
    expect(page.locator(EXCEPTION)).to_have_count(0)


def test_moving_the_context_slider_changes_the_read_total_and_the_url(page, app_url, screenshot):
    assert_opens_without_exception(page, f"{app_url}/")
    value = read_metric(page)
    expect(value).to_be_visible()
    before = value.inner_text()

    thumb = context_slider(page).get_by_role("slider")
    thumb.focus()
    for _ in range(3):
        thumb.press("ArrowLeft")

    expect(page).to_have_url(re.compile(r"[?&]ctx="))
    expect(value).not_to_have_text(before)
    assert_ready_without_exception(page)
    assert value.inner_text() != before
    screenshot("overview-ctx-moved")


def test_a_context_step_sends_only_what_the_context_moves(page, app_url):
    """The step reruns the Overview's numbers (a fragment) and the sidebar's N line, not the page:
    the server sends no sidebar control and no title again, and the numbers still move."""
    frames = websocket_frames(page)
    assert_opens_without_exception(page, f"{app_url}/?lang=en")
    value = read_metric(page)
    thumb = context_slider(page).get_by_role("slider")
    thumb.focus()
    run_messages(page, frames)  # the load's own run has arrived whole: none of its frames comes after the clear
    del frames[:]
    thumb.press("ArrowRight")  # 128K → 192K
    expect(value).to_have_text(fmt_bytes(core.reads("v4.1-flash", 3 << 16).total))
    expect(page.locator('[data-testid="stSidebar"]', has_text="N = 196,608")).to_be_visible()
    assert_ready_without_exception(page)

    msgs = run_messages(page, frames)
    finished = finished_as(msgs)
    assert "FINISHED_FRAGMENT_RUN_SUCCESSFULLY" in finished and "FINISHED_SUCCESSFULLY" not in finished, finished
    elements = [m.delta.new_element for m in msgs if m.delta.WhichOneof("type") == "new_element"]
    drawn = {e.WhichOneof("type") for e in elements}
    assert {"metric", "table", "download_button"} <= drawn
    assert not drawn & {"slider", "radio", "selectbox", "multiselect"}, drawn  # no sidebar control
    assert "h1" not in {e.heading.tag for e in elements if e.WhichOneof("type") == "heading"}  # no title

    # the page's other controls rerun it whole, at the stepped context
    page.locator('.st-key-prec [data-testid="stRadioOption"]', has_text=re.compile("bf16", re.I)).click()
    expect(value).to_have_text(fmt_bytes(core.reads("v4.1-flash", 3 << 16, core.ALL_BF16).total))
    expect(page).to_have_url(re.compile(r"ctx=192K"))


def test_a_shared_url_restores_language_context_and_precision(page, app_url, screenshot):
    assert_opens_without_exception(page, f"{app_url}/")
    default_text = read_metric(page).inner_text()

    assert_opens_without_exception(page, f"{app_url}/?lang=en&ctx=1M&prec=bf16")
    screenshot("overview-en-1M-bf16")
    label = page.locator('[data-testid="stMetricLabel"]', has_text=READ_LABEL).first
    expect(label).to_contain_text(re.compile(r"read", re.IGNORECASE))  # English, not "읽는"

    expect(context_slider(page).locator('[data-testid="stSliderThumbValue"]')).to_have_text("1M")

    checked = page.locator('.st-key-prec [data-testid="stRadioOption"]').filter(has=page.locator("input:checked"))
    expect(checked).to_contain_text(re.compile(r"bf16", re.IGNORECASE))

    expect(read_metric(page)).not_to_have_text(default_text)
    expected = core.reads("v4.1-flash", 1 << 20, core.ALL_BF16).total
    expect(read_metric(page)).to_have_text(fmt_bytes(expected))


# Every page by its URL path (browser_harness.PAGES), and the start of its title (st.title) per language.
TITLES = {
    "": {"ko": "DeepSeek의 KV 캐시", "en": "DeepSeek's KV cache"},
    "v2-mla": {"ko": "DeepSeek-V2:", "en": "DeepSeek-V2:"},
    "v3-2-dsa": {"ko": "DeepSeek-V3.2:", "en": "DeepSeek-V3.2:"},
    "v4-flash": {"ko": "DeepSeek-V4-Flash:", "en": "DeepSeek-V4-Flash:"},
    "v4-1-flash": {"ko": "DeepSeek-V4.1-Flash:", "en": "DeepSeek-V4.1-Flash:"},
    "token-axis": {"ko": "토큰 축 압축", "en": "Token-axis compression"},
    "any-model": {"ko": "모델별 KV 캐시", "en": "Any model's KV cache"},
    "glossary": {"ko": "용어 풀이", "en": "Glossary"},
    "export": {"ko": "그림 내보내기", "en": "Export figures"},
}
TITLE = '[data-testid="stMain"] h1'


def nav_link(page, path: str):
    """The sidebar's link to the page at `path` (after "View more", if the list is folded)."""
    more = page.locator('[data-testid="stSidebarNavViewButton"]')
    if more.count() and "more" in more.first.inner_text().lower():
        more.first.click()
    return page.locator(f'[data-testid="stSidebarNavLink"][href$="/{path}"]')


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_navigation_reaches_every_page_and_no_page_shows_an_exception(page, app_url, screenshot, lang):
    assert_opens_without_exception(page, f"{app_url}/?lang={lang}")
    assert set(TITLES) == set(PAGES)
    for path, titles in TITLES.items():
        link = nav_link(page, path)
        expect(link).to_have_count(1)
        link.click()
        expect(page).to_have_url(re.compile(rf"^{re.escape(app_url)}/{re.escape(path)}(\?|$)"))
        assert_ready_without_exception(page)
        # either language: a click in the sidebar does not carry ?lang= (yet)
        expect(page.locator(TITLE).first).to_contain_text(re.compile("|".join(map(re.escape, titles.values()))))

        page.goto(f"{app_url}/{path}?lang={lang}")  # and in this language
        assert_ready_without_exception(page)
        expect(page.locator(TITLE).first).to_contain_text(titles[lang])
        screenshot(f"page-{lang}-{path or 'overview'}")


def checked(page, key: str):
    """The option of the radio `key` that is chosen."""
    return page.locator(f'.st-key-{key} [data-testid="stRadioOption"]').filter(has=page.locator("input:checked"))


def test_switching_the_language_keeps_the_choices_shown_in_it(page, app_url):
    """Streamlit keeps a choice by the text it shows, and the language changes that text (배포 형식 /
    deployed, 2진 / binary): BF16 and binary units stay chosen through a switch to English and back,
    and the link says so in the language shown."""
    assert_opens_without_exception(page, f"{app_url}/?prec=bf16&units=binary")
    for lang, title in (("en", "DeepSeek's"), ("ko", "DeepSeek의")):
        page.locator('.st-key-lang [data-testid="stRadioOption"]', has_text=lang).click()
        expect(page.locator(TITLE).first).to_contain_text(title)
        assert_ready_without_exception(page)
        expect(checked(page, "prec")).to_have_text(re.compile("^bf16$", re.I))
        expect(checked(page, "units")).to_contain_text("binary" if lang == "en" else "MiB")
        expect(read_metric(page)).to_contain_text("MiB")
        expect(page).to_have_url(re.compile("prec=bf16" if lang == "en" else "prec=BF16"))
