"""The 'Any model · GPU' page in a real Chromium: its charts draw, an uploaded config.json joins
the models, and a variant switched on shows its chart."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

from browser_harness import REPO_ROOT, assert_opens_without_exception, assert_ready_without_exception, chart  # noqa: E402

pytestmark = pytest.mark.browser
LLAMA = REPO_ROOT / "tests" / "fixtures" / "configs" / "llama-3.1-8b.json"


def test_an_uploaded_config_joins_the_models_and_every_chart_draws(page, app_url, screenshot):
    assert_opens_without_exception(page, f"{app_url}/any-model?lang=en")
    page.get_by_text("Import a config.json").click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(LLAMA))
    expect(page.get_by_text("llama-3.1-8b: read as GQA")).to_be_visible()
    assert_ready_without_exception(page)
    screenshot("any-model-imported")


def test_a_variant_switched_on_draws_the_reconciliation_chart(page, app_url):
    assert_opens_without_exception(page, f"{app_url}/any-model?lang=en&var-mtp-layer=true")
    expect(chart(page, "reconciliation").locator("text", has_text="71,424 B").first).to_be_attached()
