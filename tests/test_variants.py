"""Every reconciliation number, worked out by hand next to the assertion, and what a variant
leaves alone (other models, the reads padding never touches, the article's own specs)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import core
from core import ARTICLE_CONTEXT as N
from core import MODELS, formats
from core.variants import VARIANTS, Varied, page_padded

V = VARIANTS


def storage(variant: str, model: str):
    return V[variant].apply(model).storage_per_token().total


def test_the_variants_and_what_they_change():
    assert list(V) == ["sglang-fp8-index-key", "mtp-layer", "v4-page-padding", "hf-reference-v3.2",
                       "mha-key-192", "architecture-only"]
    for v in V.values():
        assert v.source, v.id
        assert v.models and set(v.models) <= set(MODELS), v.id
    assert V["architecture-only"].models == ("v3.2", "v4-flash", "v4.1-flash")  # not BF16 as deployed


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_model_a_variant_does_not_change_keeps_the_article_numbers(variant):
    for model in set(MODELS) - set(V[variant].models):
        varied, article = V[variant].apply(model), Varied.of(model)
        assert varied == article
        assert varied.storage_per_token() == core.storage_per_token(model)
        assert varied.cache_at(N) == core.cache_at(model, N) and varied.reads(N) == core.reads(model, N)


@pytest.mark.parametrize("variant", VARIANTS)
def test_applying_a_variant_leaves_the_article_specs_alone(variant):
    before = {i: (m, core.storage_per_token(m)) for i, m in MODELS.items()}
    for model in V[variant].models:
        V[variant].apply(model).cache_at(N)
    assert {i: (m, core.storage_per_token(m)) for i, m in MODELS.items()} == before
    assert core.storage_per_token("v3.2").total == 48_068 and core.storage_per_token("v4-flash").total == 3514.25


# --- SGLang's FP8 index key -----------------------------------------------------------


def test_sglang_fp8_index_key_v4_flash():
    # 21 × (584 + 132)/4 + 20 × 584/128 = 3,759 + 91.25 = 3,850.25 ≈ 3,850 B/token
    assert storage("sglang-fp8-index-key", "v4-flash") == 3850.25 == 21 * (584 + 132) / 4 + 20 * 584 / 128
    (spec,) = V["sglang-fp8-index-key"].apply("v4-flash").stored
    assert core.entry_bytes(spec.model, spec.precision) == {"main_kv": 584, "index_key": 132, "local_kv": 584}
    # the indexer scores every CSA entry: 21 × 131,072/4 × 132 B
    assert V["sglang-fp8-index-key"].apply("v4-flash").reads(N).index_key == 21 * 32_768 * 132 == 90_832_896


# --- the MTP layer --------------------------------------------------------------------


def test_counting_the_mtp_layer():
    assert storage("mtp-layer", "v3") == 71_424 == 62 * 1_152
    assert storage("mtp-layer", "v3.2") == 48_856 == 62 * (656 + 132) == 48_068 + 788
    assert V["mtp-layer"].apply("v3.2").stored[0].model.n_layers == 62
    # it is read like every other DSA layer: 62 × (2,048 × 656 + 131,072 × 132)
    assert V["mtp-layer"].apply("v3.2").reads(N).total == 62 * (2_048 * 656 + N * 132)


# --- V4's padded pages ----------------------------------------------------------------


def test_a_page_is_rounded_up_to_576_byte_rows_and_its_padding_shared():
    v4 = core.get("v4-flash").component("main_kv").layout("fp8")
    assert v4.nbytes == 584
    assert page_padded(v4, 64).nbytes == 585  # CSA page: 64 × 584 = 37,376 → 65 × 576 = 37,440
    assert page_padded(v4, 2).nbytes == 864  # HCA page: 2 × 584 = 1,168 → 3 × 576 = 1,728
    assert page_padded(v4, 256).nbytes == 585  # SWA page: 149,504 → 260 × 576 = 149,760
    assert page_padded(v4, 64).segments == v4.segments  # only the padding grows
    with pytest.raises(ValueError, match="a page of 5 entries pads to 3,456 B"):  # 2,920 → 6 × 576
        page_padded(v4, 5)


def test_v4_page_padding_by_hand():
    # 21 × 585/4 + 21 × 68/4 + 20 × 864/128 = 3,071.25 + 357 + 135 = 3,563.25 ≈ 3,563 B/token
    assert storage("v4-page-padding", "v4-flash") == 3563.25
    assert Fraction(21 * 585, 4) + Fraction(21 * 68, 4) + Fraction(20 * 864, 128) == Fraction(14253, 4)
    padded = V["v4-page-padding"].apply("v4-flash")
    # the cache at 131,072: 3,563.25 × 131,072 + the local KV, 43 × 128 × 585
    assert padded.cache_at(N).total == 467_042_304 + 3_219_840 == 470_262_144
    assert padded.cache_at(N).local_kv == 43 * 128 * 585
    # index keys are not padded; padding is never read
    assert padded.storage_per_token().index_key == 357
    assert padded.reads(N) == core.reads("v4-flash", N)


# --- the HF reference code ------------------------------------------------------------


def test_the_hf_reference_cache_of_v32():
    assert storage("hf-reference-v3.2", "v3.2") == 78_324 == 61 * (1_152 + 132)
    (spec,) = V["hf-reference-v3.2"].apply("v3.2").stored
    assert core.entry_bytes(spec.model, spec.precision) == {"main_kv": 1_152, "index_key": 132, "local_kv": 0}


@pytest.mark.parametrize("n", [1, 2_048, 2_049, 4_096, N])
def test_the_hf_reference_reads_every_position(n):
    # it scores all N positions, then masks: 61 × N × (1,152 + 132), past top-k too
    read = V["hf-reference-v3.2"].apply("v3.2").reads(n)
    assert (read.main_kv, read.index_key, read.total) == (61 * n * 1_152, 61 * n * 132, 61 * n * 1_284)
    assert V["hf-reference-v3.2"].apply("v3.2").reads(N).total == 10_266_083_328
    assert core.reads("v3.2", N).total == 1_137_344_512  # the article's sparse read, for contrast


# --- MHA with V2's real key -----------------------------------------------------------


def test_mha_with_v2s_key_head_dim_192():
    # 60 layers × 128 heads × (K 192 + V 128) × 2 B = 4,915,200 B/token
    assert storage("mha-key-192", "mha") == 4_915_200 == 60 * 128 * (128 + 64 + 128) * 2
    assert V["mha-key-192"].ratio("v2") == pytest.approx(4_915_200 / 69_120)
    assert round(V["mha-key-192"].ratio("v2")) == 71  # ≈ 1/71, against the article's 1/57
    assert round(core.ratio_to("v2")) == 57
    (spec,) = V["mha-key-192"].apply("mha").stored
    assert spec.model.component("main_kv").holds == "K 192 + V 128 per head × 128 heads"


def test_the_wider_mha_key_has_every_precision():
    (spec,) = V["mha-key-192"].apply("mha").stored
    layouts = spec.model.component("main_kv").layouts
    n = 128 * 320
    assert {p: lo.nbytes for p, lo in layouts.items() if p in formats.PRECISIONS} == {
        "bf16": 2 * n, "fp8": n + n // 128 * 4, "fp4": n // 2 + n // 16}


# --- architecture only ----------------------------------------------------------------


@pytest.mark.parametrize("model,bytes_per_token,ratio", [
    ("v3.2", 85_888, 46),  # 3,932,160 / 85,888 = 45.78
    ("v4-flash", 6_880, 572),  # 3,932,160 / 6,880 = 571.53
    ("v4.1-flash", 3_200, 1_229),  # 3,932,160 / 3,200 = 1,228.8
])
def test_architecture_only_ratios(model, bytes_per_token, ratio):
    assert storage("architecture-only", model) == bytes_per_token
    assert V["architecture-only"].ratio(model) == pytest.approx(3_932_160 / bytes_per_token)
    assert round(V["architecture-only"].ratio(model)) == ratio


def test_the_article_default_is_no_variant():
    assert Varied.of("v3.2").storage_per_token().total == 48_068
    assert Varied.of("v4-flash").storage_per_token().total == 3514.25
    assert Varied.of("v4.1-flash").storage_per_token().total == 890
    assert Varied.of("v4-flash").reads(N) == core.reads("v4-flash", N)
