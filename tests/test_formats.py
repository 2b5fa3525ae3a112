"""Cache entry sizes derived from their definitions (bits written out), and the checks
that keep a `Layout` honest."""

from __future__ import annotations

import pytest

import core
from core import formats as F

# --- the article's deployed formats, bit by bit --------------------------------------


def deployed(model: str, role: str):
    comp = core.get(model).component(role)
    return comp.layout(comp.deployed)


def test_v3_2_main_kv_is_512_fp8_plus_4_fp32_scales_plus_64_bf16_rope_656_bytes():
    bits = 512 * 8 + (512 // 128) * 32 + 64 * 16
    assert bits == 656 * 8
    lo = deployed("v3.2", "main_kv")
    assert lo.nbytes == 656 and lo.dims == 512 + 64 and lo.precision == "fp8"
    assert lo == F.mla_fp8(512, 64)


def test_v3_2_index_key_is_128_fp8_plus_one_fp32_scale_132_bytes():
    bits = 128 * 8 + 1 * 32
    assert bits == 132 * 8
    lo = deployed("v3.2", "index_key")
    assert lo.nbytes == 132 and lo.dims == 128
    assert lo == F.fp8_blocks(128)


def test_v4_entry_is_448_fp8_plus_7_ue8m0_scales_plus_64_bf16_rope_plus_1_pad_584_bytes():
    bits = 448 * 8 + (448 // 64) * 8 + 64 * 16
    assert bits // 8 + 1 == 584
    for role in ("main_kv", "local_kv"):
        lo = deployed("v4-flash", role)
        assert lo.nbytes == 584 and lo.pad == 1 and lo.dims == 448 + 64
        assert lo == F.v4_fp8(512, 64)


def test_fp4_index_key_is_128_e2m1_plus_4_ue8m0_scales_68_bytes():
    bits = 128 * 4 + (128 // 32) * 8
    assert bits == 68 * 8
    assert F.mxfp4(128).nbytes == 68 and F.mxfp4(128).precision == "fp4"
    for model in ("v4-flash", "v4.1-flash"):
        assert deployed(model, "index_key") == F.mxfp4(128)


def test_v4_1_main_kv_is_512_e2m1_plus_32_e4m3_scales_288_bytes():
    bits = 512 * 4 + (512 // 16) * 8
    assert bits == 288 * 8
    lo = deployed("v4.1-flash", "main_kv")
    assert lo.nbytes == 288
    assert lo.dims == 512 and len(lo.segments) == 1  # the RoPE part is quantised too: no BF16 segment


def test_v4_1_local_kv_is_512_fp8_plus_16_ue8m0_scales_528_bytes():
    bits = 512 * 8 + (512 // 32) * 8
    assert bits == 528 * 8
    assert deployed("v4.1-flash", "local_kv").nbytes == 528 == F.v41_fp8(512).nbytes


def test_describe_spells_out_the_v4_entry_and_its_total():
    text = deployed("v4-flash", "main_kv").describe()
    assert "448" in text and "64" in text and "1 B pad" in text
    assert text.endswith("= 584 B")


def test_formats_follow_the_widths_they_are_given():
    assert F.mla_fp8(256, 32).nbytes == 256 + 2 * 4 + 32 * 2  # FP8 + an FP32 scale per 128 + BF16 RoPE
    assert F.v4_fp8(256, 64).nbytes == 192 + 3 + 64 * 2 + 1  # FP8 + a UE8M0 scale per 64 + BF16 RoPE + pad
    assert F.nvfp4(64).nbytes == 32 + 4 and F.mxfp4(64).nbytes == 32 + 2 and F.v41_fp8(64).nbytes == 64 + 2


@pytest.mark.parametrize("model,role,precision", [
    ("v2", "main_kv", "bf16"),
    ("v3.2", "main_kv", "fp8"),
    ("v3.2", "index_key", "fp8"),
    ("v4-flash", "main_kv", "fp8"),
    ("v4-flash", "index_key", "fp4"),
    ("v4-flash", "local_kv", "fp8"),
    ("v4.1-flash", "main_kv", "fp4"),
    ("v4.1-flash", "index_key", "fp4"),
    ("v4.1-flash", "local_kv", "fp8"),
])
def test_each_component_deploys_the_articles_precision(model, role, precision):
    assert core.get(model).component(role).deployed == precision


# --- a Layout rejects bad definitions --------------------------------------------------


def test_a_group_that_does_not_divide_the_dims_is_rejected():
    with pytest.raises(ValueError, match="groups of 64"):
        F.Segment(100, F.E4M3, 64, F.UE8M0)


def test_a_group_without_a_scale_is_rejected():
    with pytest.raises(ValueError, match="group and scale"):
        F.Segment(128, F.E4M3, 32, None)


def test_a_scale_without_a_group_is_rejected():
    with pytest.raises(ValueError, match="group and scale"):
        F.Segment(128, F.E4M3, None, F.FP32)


def test_an_unknown_precision_is_rejected():
    with pytest.raises(ValueError, match="fp16"):
        F.Layout("fp16", (F.Segment(128, F.BF16),))


def test_an_entry_that_is_not_a_whole_number_of_bytes_is_rejected():
    with pytest.raises(ValueError, match="whole number of bytes"):
        F.Layout("fp4", (F.Segment(3, F.E2M1),))  # 12 bits


def test_a_component_missing_a_precision_is_rejected():
    with pytest.raises(ValueError, match="fp4"):
        F.choices(F.bf16(128), F.fp8_blocks(128))


def test_a_valid_custom_layout_counts_values_scales_and_padding():
    lo = F.Layout("fp8", (F.Segment(256, F.E4M3, 128, F.FP32), F.Segment(32, F.BF16)), pad=3)
    assert lo.nbytes == (256 * 8 + 2 * 32 + 32 * 16) // 8 + 3


# --- every component offers bf16 / fp8 / fp4 ------------------------------------------

DIMS = {  # values per entry, from the article
    ("mha", "main_kv"): 128 * (128 + 128),
    ("v2", "main_kv"): 512 + 64,
    ("v3", "main_kv"): 512 + 64,
    ("v3.2", "main_kv"): 512 + 64,
    ("v3.2", "index_key"): 128,
    ("v4-flash", "main_kv"): 512,
    ("v4-flash", "index_key"): 128,
    ("v4-flash", "local_kv"): 512,
    ("v4.1-flash", "main_kv"): 512,
    ("v4.1-flash", "index_key"): 128,
    ("v4.1-flash", "local_kv"): 512,
}


def test_the_models_have_exactly_the_components_the_article_describes():
    have = {(m.id, c.role) for m in core.MODELS.values() for c in m.components}
    assert have == set(DIMS)


@pytest.mark.parametrize("model,role", sorted(DIMS), ids=lambda x: str(x))
def test_every_component_offers_bf16_fp8_fp4_with_bf16_two_bytes_per_value(model, role):
    comp = core.get(model).component(role)
    # the MHA baseline's FP8 (an FP32 scale per 128) also answers to an open model's fp8_block
    assert set(comp.layouts) == {"bf16", "fp8", "fp4"} | ({"fp8_block"} if model == "mha" else set())
    dims = DIMS[model, role]
    for name, lo in comp.layouts.items():
        assert lo.precision == name
        assert lo.dims == dims, f"{name} layout holds {lo.dims} values, not {dims}"
    assert comp.layout("bf16").nbytes == dims * 2
    assert comp.layout("fp4").nbytes < comp.layout("fp8").nbytes < comp.layout("bf16").nbytes


def test_the_mha_baselines_fp8_block_is_its_fp8_under_the_open_name():
    comp = core.get("mha").component("main_kv")
    assert comp.layout("fp8_block").segments == comp.layout("fp8").segments
    assert comp.layout("fp8_block").nbytes == 128 * 256 + 128 * 256 // 128 * 4


# --- open models' formats -------------------------------------------------------------------


def test_fp8_per_tensor_is_one_byte_per_value_with_no_scale_in_the_entry():
    lo = F.fp8_tensor(2048)
    assert (lo.precision, lo.nbytes, lo.short) == ("fp8", 2048, "FP8")
    assert lo.describe() == "2048 × FP8 E4M3 = 2,048 B"


def test_block_scaled_fp8_is_named_fp8_in_the_article_and_fp8_block_in_an_open_model():
    assert F.fp8_blocks(128).precision == "fp8" and F.fp8_blocks(128, F.FP8_BLOCK).precision == "fp8_block"
    assert F.fp8_blocks(128, F.FP8_BLOCK).nbytes == 128 + 4 == F.fp8_blocks(128).nbytes
    assert F.mla_fp8(512, 64, F.FP8_BLOCK).nbytes == 656 and F.mla_fp8(512, 64, F.FP8_BLOCK).precision == "fp8_block"


def test_an_open_entry_offers_the_grouped_formats_only_where_their_groups_divide_it():
    assert set(F.open_choices(2048)) == {"bf16", "fp8", "fp8_block", "fp4"}
    assert set(F.open_choices(144)) == {"bf16", "fp8", "fp4"}  # 144 = 9 × 16, not a multiple of 128
    assert set(F.open_choices(72)) == {"bf16", "fp8"}  # nor of NVFP4's 16
    assert set(F.open_choices(96, F.mxfp4)) == {"bf16", "fp8", "fp4"}
    assert F.open_choices(72)["fp8"].nbytes == 72 and F.open_choices(72)["bf16"].nbytes == 144


def test_fitting_skips_only_formats_whose_groups_do_not_divide_and_lets_other_errors_through():
    assert F.fitting(lambda: F.bf16(8), lambda: F.nvfp4(8)) == {"bf16": F.bf16(8)}
    with pytest.raises(ValueError, match="whole number of bytes"):
        F.fitting(lambda: F.Layout("fp4", (F.Segment(3, F.E2M1),)))


def test_a_group_error_is_a_value_error_naming_the_group():
    with pytest.raises(F.GroupError, match="72 dims do not split into groups of 128"):
        F.fp8_blocks(72)


def test_layout_names_are_the_articles_three_plus_fp8_block():
    assert F.LAYOUT_PRECISIONS == ("bf16", "fp8", "fp8_block", "fp4")
    assert F.OPEN_PRECISIONS == ("bf16", "fp8", "fp8_block") and F.PRECISIONS == ("bf16", "fp8", "fp4")
    with pytest.raises(ValueError, match="fp16"):
        F.Layout("fp16", (F.Segment(8, F.BF16),))


def test_a_component_asked_for_a_layout_it_does_not_offer_says_which_it_offers():
    message = r"main_kv \(C\^KV 512 \+ K\^R 64\) has no fp8_block layout; it offers bf16, fp8, fp4"
    with pytest.raises(ValueError, match=message):
        core.get("v3.2").component("main_kv").layout("fp8_block")
