"""The short load run of benchmarks/load.py, in the normal suite: ten protocol readers at
once (a page each from the mix, one of them exporting), five context-slider steps each; no
exception element, dropped socket, lost download or timeout. tests/browser/test_load_browser.py
runs the same readers beside two real Chromium tabs.

The server is warmed by one reader first: readers arriving together at a process that has
never run the app are benchmarks/load.py's cold start, measured there (RESULTS.md, Load)."""

from __future__ import annotations

import asyncio
import urllib.error

import pytest

import browser_harness as bh
from benchmarks.load import EXPORT, Tally, aside, cold_start, fetch, plans, run_readers, warm
from benchmarks.protocol import Session

READERS, STEPS = 10, 5


run = aside  # asyncio.run on a thread of its own


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    with bh.streamlit_server(bh.REPO_ROOT / "app.py", tmp_path_factory.mktemp("load") / "streamlit.log") as url:
        run(warm(url, 30.0, ["/"], stops=1))
        yield url


def readers(url: str) -> Tally:
    return run(run_readers(url, plans(READERS, STEPS, (0.2, 0.6)), ramp=1.0, timeout=30.0, seed=13))


def assert_clean(tally: Tally) -> None:
    assert not tally.errors, tally.details
    assert len(tally.steps) == READERS * STEPS
    assert len(tally.exports) == 1


def test_ten_protocol_readers_without_errors(app_url):
    assert_clean(readers(app_url))


def test_a_built_zip_outlives_other_readers_runs(app_url):
    """A reader clicks download after two other readers' steps: the zip must still be there."""

    async def scenario() -> None:
        exporter, other = Session(app_url), Session(app_url)
        await exporter.open("/export")
        await other.open("/")
        await exporter.set("ex_ids", exporter.options("ex_ids")[: EXPORT["ex_ids"]], "multiselect")
        await exporter.set("ex_fmt", EXPORT["ex_fmt"], "multiselect")
        await exporter.click()
        url = await exporter.download_url(exporter.widget("None", "download_button"))
        for option in other.options("ctx", "slider")[:2]:
            await other.set("ctx", [option], "slider")
        try:
            assert await asyncio.to_thread(fetch, app_url + "/" + url.lstrip("/"), 10.0)
        except urllib.error.HTTPError as e:
            pytest.fail(f"the zip is gone: HTTP {e.code}")
        finally:
            await exporter.close()
            await other.close()

    run(scenario())


def test_readers_arriving_at_a_fresh_process_see_their_pages_without_errors(tmp_path):
    """Before any session has called st.navigation, Streamlit serves pages/ the old way (a page
    without app.py, found by its file name) and parallel first runs import numpy at once:
    neither may reach a reader, and a deep link finds its page (its file is named as its URL)."""
    from streamlit.runtime.pages_manager import PagesManager

    assert hasattr(PagesManager, "uses_pages_directory"), "ui.view() leaves that mode by this flag"
    with bh.streamlit_server(bh.REPO_ROOT / "app.py", tmp_path / "streamlit.log") as url:
        tally = run(cold_start(url, READERS, 60.0))
    assert not tally.errors, tally.details
    assert len(tally.loads) == READERS and len(tally.steps) == READERS  # every reader opened and stepped
