"""The 'Any model · GPU' page in a real Chromium: its charts draw, an uploaded config.json joins
the models, and a variant switched on shows its chart."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

from article.sections.any_model import design_name  # noqa: E402
from browser_harness import REPO_ROOT, assert_opens_without_exception, assert_ready_without_exception, chart  # noqa: E402

pytestmark = pytest.mark.browser
CONFIGS = REPO_ROOT / "core" / "configs"
LLAMA = CONFIGS / "llama-3.1-8b.json"


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


# a config of each kind of layer beyond plain attention: (a preset's fixture, or the fields of one whose
# published file is not kept; what the import reads it as, a layer kind its table lists, that kind's state
# per layer in bytes)
FALCON_H1_7B = {"model_type": "falcon_h1", "num_hidden_layers": 44, "num_attention_heads": 12,
                "num_key_value_heads": 2, "head_dim": 128, "hidden_size": 3072, "mamba_d_conv": 4, "mamba_d_head": 128,
                "mamba_d_ssm": 3072, "mamba_d_state": 256, "mamba_expand": 2, "mamba_n_groups": 1, "mamba_n_heads": 24}
LFM2_1_2B = {"model_type": "lfm2", "num_hidden_layers": 16, "hidden_size": 2048, "num_attention_heads": 32,
             "num_key_value_heads": 8, "conv_L_cache": 3, "full_attn_idxs": [2, 5, 8, 10, 12, 14]}
HYBRIDS = {
    "qwen3-next-80b-a3b": ("hybrid GDN + GQA", "GDN", 3 * (2 * 16 * 128 + 32 * 128) * 2 + 32 * 128 * 128 * 2),
    "kimi-linear-48b-a3b": ("hybrid KDA + MLA", "KDA", 3 * 3 * 32 * 128 * 2 + 32 * 128 * 128 * 4),
    "nemotron-3-nano-30b-a3b": ("hybrid Mamba2 + GQA", "Mamba2", 3 * (64 * 64 + 2 * 8 * 128) * 2 + 64 * 64 * 128 * 4),
    "jamba-1.5-mini": ("hybrid Mamba1 + GQA", "Mamba1", 3 * 8192 * 2 + 8192 * 16 * 2),
    "minimax-m1-80k": ("hybrid Lightning + GQA", "Lightning", 64 * 128 * 128 * 2),
    "gemma-3n-e2b": ("hybrid local/global GQA", "SWA (reads another layer's KV)", 0),
    "falcon-h1": ("parallel hybrid: GQA beside Mamba2 in every layer", "GQA + Mamba2",
                  3 * (3072 + 2 * 256) * 2 + 24 * 128 * 256 * 2, FALCON_H1_7B),
    "lfm2": ("hybrid ShortConv + GQA", "ShortConv", 2 * 2048 * 2, LFM2_1_2B),
}


def _config_bytes(fixture: str, fields: dict | None) -> bytes:
    return json.dumps(fields).encode() if fields else (CONFIGS / f"{fixture}.json").read_bytes()


def test_an_uploaded_config_of_each_layer_kind_shows_its_layers_and_its_state(page, app_url, tmp_path):
    assert_opens_without_exception(page, f"{app_url}/any-model?lang=en&models=v3.2")
    page.get_by_text("Import a config.json").click()
    picker = page.locator('[data-testid="stMultiSelect"] input').first
    for fixture, (design, kind, state, *fields) in HYBRIDS.items():
        name = f"up-{fixture}"  # a name of its own, apart from the preset's
        (tmp_path / f"{name}.json").write_bytes(_config_bytes(fixture, fields[0] if fields else None))
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(tmp_path / f"{name}.json"))
        expect(page.get_by_text(f"{name}: read as {design_name(design, 'en')}")).to_be_visible()  # as the page names it
        assert_ready_without_exception(page)  # the run that read it has drawn the picker anew
        picker.click()
        picker.fill(name)
        page.get_by_role("option", name=name, exact=True).click()  # once the list has filtered to it
        assert_ready_without_exception(page)
        # the layer-by-layer table (a plain table: no toolbar in English), its numbers with separators
        layers = page.locator('[data-testid="stTable"]').filter(has=page.locator("th", has_text="layer kind"))
        layers.scroll_into_view_if_needed()
        row = layers.locator("tbody tr").filter(has_text=name).filter(
            has=page.locator("td", has_text=re.compile(f"^{re.escape(kind)}$")))
        expect(row).to_have_count(1)
        expect(row.locator("td").last).to_have_text(f"{state:,}")
        picker.press("Backspace")  # off the charts again: the next one's rows stay in view
        assert_ready_without_exception(page)


def test_a_link_naming_a_hugging_face_model_shows_its_row_and_its_layers(page, app_url, screenshot):
    """?hf= on the fake Hub (tests/fakehub.py, the server's HF_ENDPOINT): the model fetched once, read as GQA, its row
    among the models compared and its layer kinds in the layers table."""
    from fakehub import COMMIT

    name = f"fake/llama-fp8@{COMMIT[:7]}"
    assert_opens_without_exception(page, f"{app_url}/any-model?lang=en&hf=fake/llama-fp8")
    expect(page.get_by_text(f"{name}: read as GQA")).to_be_visible()
    assert_ready_without_exception(page)
    tables = page.locator('[data-testid="stTable"]')
    expect(tables.filter(has_text=name)).to_have_count(3)  # the comparison, the layers table, the engines table
    screenshot("any-model-hf-link")
    assert_opens_without_exception(page, f"{app_url}/any-model?lang=en&hf=meta-llama/gated")
    gated = page.locator('[data-testid="stAlertContentError"]').filter(has_text="accept its owner's terms")
    expect(gated).to_be_visible()
