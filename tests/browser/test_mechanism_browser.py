"""Mechanism pages in a real Chromium: the knobs change what the figures compute."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

import core  # noqa: E402
from browser_harness import (  # noqa: E402
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


def test_choosing_fp8_makes_the_three_orders_differ(page, app_url, screenshot):
    assert_opens_without_exception(page, f"{app_url}/v2-mla")
    diff = page.locator('[data-testid="stMetric"]').nth(3).locator('[data-testid="stMetricValue"]')
    before = diff.inner_text()
    assert float(before) < 1e-12  # fp64: absorbed == expanded
    page.locator(".st-key-calc").get_by_text("FP8").click()
    expect(page).to_have_url(re.compile(r"[?&]calc=FP8"))
    expect(diff).not_to_have_text(before)
    assert_ready_without_exception(page)
    assert float(diff.inner_text()) > 1e-3
    screenshot("v2-mla-fp8")


def test_a_link_with_knobs_reproduces_the_dsa_view(page, app_url):
    assert_opens_without_exception(page, f"{app_url}/v3-2-dsa?T=8&k=2&seed=5&lang=en")
    # the prose reads A9 at the linked knobs: 8 tokens, rows choose min(2, t + 1): 1 + 2 × 7 = 15 positions
    expect(page.get_by_text("keeps the top k = 2 of each row to make M; here 15 cells are 0")).to_be_visible()


def test_the_v4_stepper_draws_the_rows_read_at_the_linked_step(page, app_url, screenshot):
    assert_opens_without_exception(page, f"{app_url}/v4-flash?t=10&m=4&win=4&lang=en")
    # ⌊11/4⌋ = 2 complete entries + 4 window rows at t = 10; 3 + 4 at t = 11
    a14 = chart(page, "A14")
    expect(a14.get_by_text("t = 10: 6 rows (2 compressed + 4 window)")).to_be_visible()
    expect(a14.get_by_text("t = 11: 7 rows (3 compressed + 4 window)")).to_be_visible()
    screenshot("v4-flash-t10")


def test_the_v41_layout_and_the_ced_grid_draw_from_the_spec(page, app_url):
    assert_opens_without_exception(page, f"{app_url}/v4-1-flash?lang=en&prompt=8&win=2")
    expect(chart(page, "A24").get_by_text("DeepSeek-V4.1-Flash: the 40-layer layout")).to_be_visible()
    expect(chart(page, "A27").get_by_text("20 of 32 cells executed (62%)")).to_be_visible()


def test_a_context_step_on_v4_flash_reruns_its_top_and_the_knobs_below_still_work(page, app_url):
    """A step reruns the page's top (numbers and A11) as a fragment; a knob further down then
    reruns the page as before, at the stepped context."""
    frames = websocket_frames(page)
    assert_opens_without_exception(page, f"{app_url}/v4-flash?t=10&m=4&win=4&lang=en")
    read = read_metric(page)
    thumb = context_slider(page).get_by_role("slider")
    thumb.focus()
    run_messages(page, frames)  # the load's own run has arrived whole: none of its frames comes after the clear
    del frames[:]
    thumb.press("ArrowRight")  # 128K → 192K
    expect(read).to_have_text(fmt_bytes(core.reads("v4-flash", 3 << 16).total))
    assert_ready_without_exception(page)
    finished = finished_as(run_messages(page, frames))
    assert "FINISHED_FRAGMENT_RUN_SUCCESSFULLY" in finished and "FINISHED_SUCCESSFULLY" not in finished, finished

    step = page.locator(".st-key-t").get_by_role("slider")
    step.focus()
    step.press("ArrowRight")  # t = 10 → 11: ⌊12/4⌋ = 3 complete entries + 4 window rows
    expect(chart(page, "A14").get_by_text("t = 11: 7 rows (3 compressed + 4 window)")).to_be_visible()
    expect(page).to_have_url(re.compile(r"ctx=192K"))
    expect(read).to_have_text(fmt_bytes(core.reads("v4-flash", 3 << 16).total))
