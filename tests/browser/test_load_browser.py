"""Ten protocol readers (tests/test_load_short.py) beside two real Chromium tabs stepping the
Overview's context slider: every tab redraws, no reader sees an error."""

from __future__ import annotations

import threading

from test_load_short import assert_clean, readers, run

import browser_harness as bh
from benchmarks.load import Tally, warm


def test_two_browsers_beside_ten_protocol_readers(app_url, browser):
    run(warm(app_url, 30.0, ["/"], stops=1))
    result: dict[str, Tally] = {}
    thread = threading.Thread(target=lambda: result.setdefault("tally", readers(app_url)))
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
    tabs = [context.new_page() for context in contexts]
    for tab in tabs:
        tab.goto(app_url + "/")
    thread.start()
    for tab in tabs:
        bh.assert_ready_without_exception(tab)
        bh.watch_charts(tab)
    for key in ["ArrowRight", "ArrowRight", "ArrowLeft", "ArrowRight", "ArrowLeft"]:
        for tab in tabs:
            since = bh.page_clock(tab)
            bh.context_slider(tab).get_by_role("slider").press(key)
            bh.wait_charts_redrawn(tab, since, timeout=30_000)
    for tab in tabs:
        bh.assert_ready_without_exception(tab)
    for context in contexts:
        context.close()
    thread.join(timeout=60)
    assert_clean(result["tally"])
