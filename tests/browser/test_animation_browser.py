"""The ▶ Play toggle in a real Chromium: ui/plot.py's component hands plotly.js the animation's
frames, and pressing ▶ steps A14 through them with plotly's own `animate`, drawing each step
the static figure draws; ❚❚ stops it; the toggle off brings the static chart back. No page
error, no exception."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

from browser_harness import assert_opens_without_exception, assert_ready_without_exception, chart  # noqa: E402
from figures import FIGURES  # noqa: E402
from figures.animation import steps  # noqa: E402
from i18n import t  # noqa: E402

pytestmark = pytest.mark.browser

# every frame plotly.js starts drawing, by name (the stepped value)
_LISTEN_JS = "div => { window.__played = []; div.on('plotly_animatingframe', e => window.__played.push(e.name)); }"
# plotly.js's animation loop has ended and has no frame queued: no further frame will start
_STOPPED_JS = "div => !div._transitionData._animationRaf && div._transitionData._frameQueue.length === 0"


def box_title(step: int) -> str:
    """A14's first box title at step t, as the figure writes it (its tail depends on the step)."""
    return t("a14.box", "en", t=step, n=0, c=0, w=0).split(":")[0] + ":"


def test_pressing_play_steps_a14_through_its_frames(page, app_url):
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    spec = FIGURES["A14"]
    assert_opens_without_exception(page, f"{app_url}/v4-flash?lang=en")
    page.locator(".st-key-toggle-play-A14 label").first.click()

    plot = chart(page, "A14", play=True)
    buttons = plot.locator(".updatemenu-button")
    expect(buttons).to_have_count(2)  # ▶ and ❚❚
    assert plot.evaluate("div => div._transitionData._frames.length") == len(steps(spec))
    at = spec.defaults["t_"]
    expect(plot.locator("text", has_text=box_title(at))).to_have_count(1)  # the page's own step first

    plot.evaluate(_LISTEN_JS)
    buttons.first.click()  # ▶
    page.wait_for_function("() => window.__played.length >= 3")
    buttons.nth(1).click()  # ❚❚
    page.wait_for_function(_STOPPED_JS, arg=plot.element_handle())
    played = page.evaluate("window.__played")  # paused: the loop that starts frames is over
    assert played[:3] == [str(v) for v in steps(spec)[:3]], played  # from the first step, one by one
    assert int(played[-1]) < steps(spec)[-1], played  # stopped by ❚❚, not by running out of steps
    last = int(played[-1])
    expect(plot.locator("text", has_text=box_title(last))).to_have_count(1)  # the paused step is drawn
    shown = 1 if at in (last, last + 1) else 0  # A14 draws lanes t and t + 1
    expect(plot.locator("text", has_text=box_title(at))).to_have_count(shown)

    page.locator(".st-key-toggle-play-A14 label").first.click()  # off: the static chart again
    expect(page.locator(".st-key-play-A14")).to_have_count(0)
    expect(page.locator(".kv-plot .updatemenu-button")).to_have_count(0)
    assert_ready_without_exception(page)
    assert errors == []
