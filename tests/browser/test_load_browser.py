"""Ten protocol readers (tests/test_load_short.py) beside two real Chromium tabs stepping the
Overview's context slider: every tab redraws, no reader sees an error."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from test_load_short import assert_clean, readers, run

import browser_harness as bh
from benchmarks.load import warm


def test_two_browsers_beside_ten_protocol_readers(app_url, browser):
    run(warm(app_url, 30.0, ["/"], stops=1))
    pool = ThreadPoolExecutor(1)
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
    tabs = [context.new_page() for context in contexts]
    for tab in tabs:
        tab.goto(app_url + "/")
    tally = pool.submit(readers, app_url)
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
    done = tally.result(timeout=60)  # a reader's exception is raised here, as itself
    pool.shutdown()
    assert_clean(done)
