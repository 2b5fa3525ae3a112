"""Fixtures for the browser tests: a live `streamlit run app.py` and a headless Chromium.

Everything collected under this folder gets the `browser` marker, so
`pytest -m "not browser"` skips the slow part. scripts/test.sh installs
Playwright and finds (or installs) a Chromium; $CHROMIUM names it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import browser_harness
import publish.site as static_site

HERE = Path(__file__).resolve().parent

SCREENSHOTS = browser_harness.REPO_ROOT / "artifacts" / "screenshots"
EXPECT_TIMEOUT_MS = 30_000


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def app_url(tmp_path_factory, hub_url):
    """`streamlit run app.py`, asking the fake Hub (tests/conftest.py): a link's ?hf= never reaches the real one."""
    log = tmp_path_factory.mktemp("streamlit") / "streamlit.log"
    env = {"HF_ENDPOINT": hub_url[0], "KV_ATLAS_HUB_CACHE": str(tmp_path_factory.mktemp("hub"))}
    with browser_harness.streamlit_server(browser_harness.REPO_ROOT / "app.py", log, env=env) as url:
        yield url


@pytest.fixture(scope="session")
def pw():
    """Playwright itself (its device profiles: pw.devices["iPhone 13"])."""
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (scripts/test.sh installs it)")
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)  # a rerun on a busy 2-core CI box can exceed the 5 s default
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(pw):
    b = browser_harness.launch_chromium(pw)
    yield b
    b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR")
    context.set_default_timeout(EXPECT_TIMEOUT_MS)
    p = context.new_page()
    yield p
    context.close()


# Streamlit scrolls inside `stMain`, not the document, so a plain full_page screenshot stops at
# the viewport: grow the viewport to the content's height for the shot, then put it back.
_CONTENT_HEIGHT_JS = """() => Math.max(window.innerHeight, ...Array.from(
  document.querySelectorAll('[data-testid="stMain"], [data-testid="stSidebarContent"]'), e => e.scrollHeight))"""
_TWO_FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


@pytest.fixture
def screenshot(page):
    """Call screenshot("name") to save a full-page PNG under artifacts/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        size = page.viewport_size
        height = min(int(page.evaluate(_CONTENT_HEIGHT_JS)), 20_000)
        page.set_viewport_size({"width": size["width"], "height": height})
        page.evaluate(_TWO_FRAMES_JS)
        page.screenshot(path=str(path), full_page=True)
        page.set_viewport_size(size)
        return path

    return take


SITE_APP = "https://kv-atlas.example/app"  # the app the test site links to (no server: the links are read)


@pytest.fixture(scope="session")
def site_app():
    return SITE_APP


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The static site's URL and folder, served from one fresh build for every test that reads it."""
    out = tmp_path_factory.mktemp("site")
    # as a reader's build runs: the command, in a process of its own (the build's language processes
    # start from a clean __main__, which a test process that ran AppTest's scripts is not)
    with subprocess.Popen([sys.executable, "-m", "publish", "site", "--out", str(out), "--app-url", SITE_APP],
                          cwd=browser_harness.REPO_ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) as build:
        # meanwhile V2 · MLA again, with every per-component precision (as --precisions builds every page)
        figures = static_site.Figures("ko")
        v2 = static_site.page("v2-mla", "ko", figures, every=True, app_url=SITE_APP)
        _, stderr = build.communicate(timeout=600)
    assert build.returncode == 0, stderr[-3000:]
    static_site.write_page(out, v2, figures, None, True)  # in place of the build's page, with its preview
    static_site.write_classes(out, v2, figures)
    with browser_harness.static_server(out, tmp_path_factory.mktemp("server") / "http.log") as url:
        yield url, out
