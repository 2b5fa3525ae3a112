"""One GPU's memory budget (core.budget): the planner's rule, vLLM 0.34.0 and SGLang 0.5.23, each split
computed here by hand for DeepSeek-V3.2 and Llama 3.1 70B on an H200, and the figure that draws them."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import pytest

from core import budget as B
from core import engines
from core.config_import import import_config
from core.gpus import GPUS, MiB
from core.parallel import Parallel
from core.units import fmt_bytes
from figures.canvas import NATIVE

GiB = 1 << 30
H200 = 143_771 * MiB  # nvidia-smi's 143,771 MiB
assert H200 == 150_754_820_096
RUNTIME, GRAPHS = GiB, 2 * GiB  # the stated assumptions

# Llama 3.1 70B's config.json (https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json);
# its parameters from the widths: embeddings and lm_head 2 × 128,256 × 8,192 = 2,101,346,304; a layer's
# q and o 2 × 8,192², k and v 2 × 8,192 × 1,024, MLP 3 × 8,192 × 28,672, two norms 2 × 8,192:
# 855,654,400, × 80 = 68,452,352,000; the final norm 8,192: 70,553,706,496 (its safetensors total)
LLAMA_70B = {"architectures": ["LlamaForCausalLM"], "hidden_size": 8192, "intermediate_size": 28672,
             "max_position_embeddings": 131072, "model_type": "llama", "num_attention_heads": 64,
             "num_hidden_layers": 80, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
             "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                              "original_max_position_embeddings": 8192, "rope_type": "llama3"},
             "tie_word_embeddings": False, "torch_dtype": "bfloat16", "vocab_size": 128256}
LLAMA_LAYER = 2 * 8_192**2 + 2 * 8_192 * 1_024 + 3 * 8_192 * 28_672 + 2 * 8_192
LLAMA_PARAMETERS = 2 * 128_256 * 8_192 + 80 * LLAMA_LAYER + 8_192
assert LLAMA_PARAMETERS == 70_553_706_496
LLAMA = replace(import_config(LLAMA_70B, name="Llama 3.1 70B").model, parameters=LLAMA_PARAMETERS)
TP8 = Parallel(tp=8)


def assert_sums(b: B.Budget):
    assert sum(b.parts.values()) == b.total == b.gpu.reported_bytes
    assert all(v >= 0 for p, v in b.parts.items() if p != "left")


# --- DeepSeek-V3.2 on 8 × H200, FP8 weights (671 × 10⁹ parameters, 1 B each): one GPU ------------------

V32_WEIGHTS = 671_000_000_000 // 8
assert V32_WEIGHTS == 83_875_000_000


def test_v32_under_the_planners_rule():
    """141 × 10⁹ B less 10 % (14.1 × 10⁹) less the weights; the 9.75 GB the card has beyond its data sheet
    is left out."""
    b = B.theory("v3.2", "h200", TP8)
    assert (b.weights, b.reserve) == (V32_WEIGHTS, 14_100_000_000)
    assert b.kv == 141_000_000_000 - 14_100_000_000 - 83_875_000_000 == 43_025_000_000
    assert b.left == H200 - 141_000_000_000 == 9_754_820_096
    assert_sums(b)


def test_v32_under_vllm():
    """H200: 8,192 batched tokens, 1,024 sequences. Forward: 2 B × 8,192 × (2 × 7,168 + 8 experts ×
    (max(2,048/8, 7,168) + max(2 × 2,048/8, 7,168))) = 2 × 8,192 × 129,024; the sampler: 1,024 × 129,280 ×
    10 B. Margin: max(1 GiB, 0.75 × the peak)."""
    b = B.vllm("v3.2", "h200", TP8)
    forward, sampler = 2 * 8_192 * (2 * 7_168 + 8 * (7_168 + 7_168)), 1_024 * 129_280 * 10
    assert (forward, sampler) == (2_113_929_216, 1_323_827_200)
    assert b.activations == forward
    assert b.margin == max(GiB, 3 * forward // 4) == 1_585_446_912
    assert (b.runtime, b.weights, b.graphs) == (RUNTIME, V32_WEIGHTS, GRAPHS)
    assert b.kv == H200 - RUNTIME - V32_WEIGHTS - GRAPHS - forward - 1_585_446_912 == 59_959_218_496
    assert b.left == 0
    assert_sums(b)


def test_v32_under_vllm_without_the_extensible_cache():
    """0.92 × 150,754,820,096 = 138,694,434,488.32, rounded up; less the weights, the peak and the graphs."""
    b = B.vllm("v3.2", "h200", TP8, extensible=False)
    requested = math.ceil(Fraction(92, 100) * H200)
    assert requested == 138_694_434_489
    assert b.kv == requested - V32_WEIGHTS - 2_113_929_216 - GRAPHS == 50_558_021_625
    assert b.left == H200 - RUNTIME - requested == 10_986_643_783 and b.margin == 0
    assert_sums(b)


def test_v32_under_sglang():
    """143,771 MiB (90–160 GiB): chunks of 8,192 tokens, decode graphs to batch 512 at TP 8. Reserve:
    512 + 1.5 × 8,192 + 8 × 1/8 × 1,024 + 2 × 512 (decode graphs) + 1,536 (MLA prefill graphs) = 16,384 MiB;
    f = round(127,387 / 143,771, 3) = 0.886 of the memory free before the weights (the card less 1 GiB)."""
    s = B.sglang_fraction("v3.2", "h200", TP8)
    assert (s.chunked_prefill, s.max_bs, s.graph_mib, s.reserved_mib) == (8_192, 512, 1_024 + 1_536, 16_384)
    assert s.fraction == Fraction(886, 1000) and round(127_387 / 143_771, 3) == 0.886
    b = B.sglang("v3.2", "h200", TP8)
    free = H200 - RUNTIME
    static = 886 * free // 1000
    assert (free, static) == (149_681_078_272, 132_617_435_348)  # 0.886 × free = …348.992
    assert b.kv == static - V32_WEIGHTS == 48_742_435_348
    assert b.graphs == 2_560 * MiB == 2_684_354_560
    assert b.activations == free - static - 2_684_354_560 == 14_379_288_364
    assert (b.runtime, b.states, b.left) == (RUNTIME, 0, 0)
    assert_sums(b)


# --- Llama 3.1 70B on one H200, FP8 weights, and on 8 × H200 ------------------------------------------

def test_llama_70b_on_one_h200_under_each_rule():
    theory = B.theory(LLAMA, "h200")
    assert theory.kv == 141_000_000_000 - 14_100_000_000 - 70_553_706_496 == 56_346_293_504
    # vLLM: a dense MLP, forward 2 × 8,192 × (2 × 8,192 + 3 × 28,672); sampler 1,024 × 128,256 × 10
    forward, sampler = 2 * 8_192 * (2 * 8_192 + 3 * 28_672), 1_024 * 128_256 * 10
    assert (forward, sampler) == (1_677_721_600, 1_313_341_440)
    vllm = B.vllm(LLAMA, "h200", config=LLAMA_70B)
    assert vllm.activations == forward and vllm.margin == 3 * forward // 4 == 1_258_291_200
    assert vllm.kv == H200 - RUNTIME - 70_553_706_496 - GRAPHS - forward - 1_258_291_200 == 74_043_875_328
    # SGLang at TP 1: decode graphs to batch 256; 58 prefill graphs (4 … 8,192 tokens) of 8 MiB:
    # 512 + 12,288 + 1/8 × 1,024 + 2 × 256 + 8 × 58 = 13,904 MiB; f = round(129,867 / 143,771, 3) = 0.903
    s = B.sglang_fraction(LLAMA, "h200", config=LLAMA_70B)
    assert (s.max_bs, s.graph_mib, s.reserved_mib, s.fraction) == (256, 512 + 464, 13_904, Fraction(903, 1000))
    assert B._prefill_graphs(8_192) == 8 + 14 + 8 + 8 + 12 + 8 == 58
    sglang = B.sglang(LLAMA, "h200", config=LLAMA_70B)
    static = 903 * (H200 - RUNTIME) // 1000
    assert static == 135_162_013_679  # 0.903 × 149,681,078,272 = …679.616
    assert sglang.kv == static - 70_553_706_496 == 64_608_307_183
    assert sglang.graphs == 976 * MiB and sglang.activations == H200 - RUNTIME - static - 976 * MiB == 13_495_654_417
    for b in (theory, vllm, sglang):
        assert b.weights == 70_553_706_496 and b.fits
        assert_sums(b)


def test_llama_70b_on_8_h200s_under_each_rule():
    weights = math.ceil(70_553_706_496 / 8)
    assert weights == 8_819_213_312
    theory, vllm, sglang = B.budgets_side_by_side(LLAMA, "h200", TP8, config=LLAMA_70B)
    assert theory.kv == 141_000_000_000 - 14_100_000_000 - weights == 118_080_786_688
    # vLLM: forward 2 × 8,192 × (16,384 + 3 × 28,672/8) = 444,596,224 < the sampler's 1,313,341,440; margin 1 GiB
    assert vllm.activations == 1_313_341_440 and vllm.margin == GiB
    assert vllm.kv == H200 - RUNTIME - weights - GRAPHS - 1_313_341_440 - GiB == 136_327_298_048
    # SGLang: 512 + 12,288 + 1,024 + 1,024 + 464 = 15,312 MiB; f = round(128,459 / 143,771, 3) = 0.893
    assert B.sglang_fraction(LLAMA, "h200", TP8, LLAMA_70B).fraction == Fraction(893, 1000)
    assert sglang.kv == 893 * (H200 - RUNTIME) // 1000 - weights == 124_845_989_584
    for b in (theory, vllm, sglang):
        assert_sums(b)


# --- the rules' other branches ---------------------------------------------------------------------------

def test_a_hybrids_states_take_nine_nineteenths_of_sglangs_pool():
    b = B.sglang("qwen3-next-80b-a3b", "h200", TP8)
    rest = b.kv + b.states
    assert b.states == rest * 9 // 19 and engines.SGLANG_STATE_RATIO == Fraction(9, 10)
    assert B.vllm("qwen3-next-80b-a3b", "h200", TP8).states == 0  # vLLM's states share the KV pool's pages
    assert_sums(b)


def test_dp_attention_adds_sglangs_graph_padding_and_gathers_vllms_moe_rows():
    """DP 8: SGLang reserves 3 × 512 × 8 and, past batch 300, 1.5 × 512 × 8 MiB more for its decode graphs;
    vLLM's MoE takes 8 × 8,192 rows (experts whole: N = 2 × 2,048)."""
    dp = Parallel(dp=8)
    s = B.sglang_fraction("v3.2", "h200", dp)
    assert s.graph_mib == 1_024 + 3 * 512 * 8 + Fraction(3, 2) * 512 * 8 + 1_536 == 20_992
    peak = B.activation_peak(B.widths("v3.2"), 8_192, 1_024, dp)
    assert peak.forward == 2 * (2 * 7_168 * 8_192 + 8 * 8 * 8_192 * (7_168 + 7_168)) == 15_267_266_560


def test_a_model_that_does_not_fit_is_short_of_a_pool():
    """V3.2 at TP 8 on H100s: 83.9 GB of weights a GPU in 81,559 MiB."""
    theory, vllm, sglang = B.budgets_side_by_side("v3.2", "h100-sxm", TP8)
    assert not any(b.fits for b in (theory, vllm, sglang))
    assert theory.short == V32_WEIGHTS + 8_000_000_000 - 80_000_000_000 == 11_875_000_000
    assert vllm.short == -(81_559 * MiB - RUNTIME - V32_WEIGHTS - GRAPHS - 2_113_929_216 - 1_585_446_912)
    assert vllm.left == -vllm.short and vllm.kv == 0
    for b in (theory, vllm, sglang):
        assert_sums(b)


def test_the_batch_and_the_tiers_follow_the_cards_reported_memory():
    assert [B.vllm_batch(g) for g in ("h100-sxm", "h200", "b200", "mi300x")] == [
        (8_192, 1_024), (8_192, 1_024), (16_384, 1_024), (16_384, 1_024)]
    # an A100 of 80 GB (81,920 MiB ≥ 70 GiB) skips the 70 GiB row: the small GPUs' 2,048 tokens and 256 sequences,
    # the same row request_cap caps it at (one walk of the tiers: engines.vllm_batch)
    from core.gpus import GPU
    a100 = GPU(id="a100-80gb", name="NVIDIA A100 80GB", memory_bytes=80 * 10**9, bandwidth_bytes_per_s=2 * 10**12,
               reported_mib=81_920)
    assert B.vllm_batch(a100) == (2_048, 256) and B.vllm_batch is engines.vllm_batch
    assert engines.request_cap("llama-3.1-8b", "vllm", a100)[0] == B.vllm_batch(a100)[1]
    assert B.sglang_fraction("llama-3.1-8b", "b200").chunked_prefill == 16_384  # 183,359 MiB ≥ 160 GiB
    # ROCm: vLLM's margin floor is 3 GiB; SGLang picks aiter for GQA and scales f by 0.85
    assert B.vllm("llama-3.1-8b", "mi300x").margin == 3 * GiB
    s = B.sglang_fraction("llama-3.1-8b", "mi300x")
    assert s.fraction == Fraction(str(round(float((196_592 - s.reserved_mib) / 196_592), 3))) * Fraction(85, 100)


def test_the_constants_agree_with_the_engine_rules_core_quotes():
    assert Fraction(engines.VLLM_UTILIZATION[0]) == B.VLLM_UTILIZATION
    assert Fraction(engines.VLLM_UTILIZATION[1]) == B.VLLM_EXTENSIBLE_UTILIZATION


def test_widths_are_read_from_the_published_config():
    w = B.widths("v3.2")
    assert (w.hidden, w.intermediate, w.expert, w.experts_per_token, w.vocab) == (7_168, 18_432, 2_048, 8, 129_280)
    assert B.widths("gpt-oss-120b").intermediate == 0  # every MLP an expert: intermediate_size is the expert's
    assert B.widths("gpt-oss-120b").expert == 2_880
    assert not B.splittable("v4.1-flash") and not B.splittable("mha") and B.splittable("v3.2")
    with pytest.raises(ValueError, match="no config.json"):
        B.vllm("v2", "h200", TP8)


def test_as_json_gives_the_parts_in_bytes_and_what_each_rests_on():
    j = B.as_json("v3.2", "h200", "vllm", TP8)
    assert j["total_bytes"] == H200 and j["reported_mib"] == 143_771 and j["data_sheet_bytes"] == 141 * 10**9
    assert sum(j["parts"].values()) == H200 and j["parts"]["kv_bytes"] == 59_959_218_496 == j["pool_bytes"]
    assert j["fits"] and j["short_bytes"] == 0 and j["release"] == engines.VLLM
    assert {p["part"] for p in j["basis"]} >= {"weights", "activations", "graphs", "runtime", "margin", "kv"}
    assert all(p["source"] for p in j["basis"])
    assert B.as_json("v4.1-flash", "h200", "sglang") == {
        "engine": "sglang", "error": "V4.1-Flash: no published parameter count, so no weights to place"}
    with pytest.raises(ValueError, match="unknown engine"):
        B.gpu_budget("v3.2", "h200", "trtllm")


# --- the figure: its bars and labels carry core's numbers ------------------------------------------------

def test_the_figures_bars_are_cores_parts_and_its_labels_say_them():
    from figures import SPECS
    from figures.canvas import Canvas

    spec = SPECS["budget"]
    built = spec.build({**spec.defaults, "lang": "en"}, Canvas(column=360, font_scale=1.5))
    budgets = B.budgets_side_by_side("v3.2", "h200", TP8)
    bars = {tr.name: tr for tr in built.figure.data if tr.type == "bar"}
    assert list(bars) == ["runtime (assumed)", "weights", "activations", "CUDA graphs", "margin", "flat reserve",
                          "KV pool", "left"]
    for name, part in zip(bars, ("runtime", "weights", "activations", "graphs", "margin", "reserve", "kv", "left")):
        assert list(bars[name].x) == [getattr(b, part) / 10**9 for b in budgets]
        assert [f"{getattr(b, part):,} B" in h for b, h in zip(budgets, bars[name].customdata)] == [True] * 3
    heads, unders = (tr.text for tr in built.figure.data if tr.type == "scatter")
    for b, head, under in zip(budgets, heads, unders):
        assert f"KV pool {fmt_bytes(b.kv)}" in head.replace("<br>", " ")
        assert f"weights {fmt_bytes(b.weights)}" in under
    assert "activations 2.11 GB" in unders[1] and "activations 14.4 GB" in unders[2]
    assert "9.75 GB beyond the data sheet" in unders[0].replace("<br>", " ")
    assert [r["kv_bytes"] for r in built.numbers] == [43_025_000_000, 59_959_218_496, 48_742_435_348]
    assert all(sum(r[f"{p}_bytes"] for p in B.BUDGET_PARTS) == r["total_bytes"] == H200 for r in built.numbers)
    shape = built.figure.layout.shapes[0]
    assert shape.x0 == shape.x1 == H200 / 10**9  # the card's memory, marked


def test_the_figure_says_a_layout_that_does_not_fit_and_a_custom_card_without_a_report():
    from figures import SPECS

    fig = SPECS["budget"].build(dict(gpu="h100-sxm", lang="en"), NATIVE).figure
    heads = next(tr.text for tr in fig.data if tr.type == "scatter")
    assert all("does not fit" in h for h in heads)
    assert "short by 11.9 GB" in heads[0]
    custom = SPECS["budget"].build(dict(gpu="custom", memory_gb=200.0, lang="en"), NATIVE).figure
    assert "the data sheet's 200 GB" in custom.layout.title.text
    assert GPUS["h200"].reported_mib == 143_771


def test_a_layout_an_engine_refuses_is_said_on_its_row_with_the_reason_never_priced():
    from figures import SPECS

    built = SPECS["budget"].build({**SPECS["budget"].defaults, "model": "llama-3.1-8b", "tp": 3, "lang": "en"}, NATIVE)
    heads = next(tr.text for tr in built.figure.data if tr.type == "scatter")
    assert "KV pool" in heads[0]  # the planner's rule places any TP
    for head in heads[1:]:  # 32 heads over 3 ranks: vLLM and SGLang refuse it
        assert "does not run this layout: the attention heads do not divide by TP" in head
    bars = [tr for tr in built.figure.data if tr.type == "bar"]
    assert all(list(tr.x)[1:] == [0, 0] for tr in bars)  # no segment drawn for a refused row
    theory, vllm, sglang = built.numbers
    assert vllm["kv_bytes"] is None and "divisible by tensor parallel size (3)" in vllm["refused"]
    assert "vllm/config/model.py" in vllm["refused"] and "sglang/srt/layers/linear.py" in sglang["refused"]
    assert theory["refused"] is None and theory["kv_bytes"] > 0
    ko = SPECS["budget"].build(dict(model="llama-3.1-8b", parallel="dp", lang="ko"), NATIVE).figure
    heads = next(tr.text for tr in ko.data if tr.type == "scatter")
    assert all("이 모델에는 DP attention이 없음" in h for h in heads[1:])  # a dense model: no DP attention


@pytest.mark.parametrize("column,scale", [(320, 1.0), (360, 1.0), (320, 2.0), (900, 1.0)])
def test_the_legend_takes_the_rows_its_bottom_margin_reserves_on_any_column_of_its_class(column, scale):
    from figures import SPECS
    from figures.canvas import LEGEND_SYMBOL, LINE, Canvas
    from figures.charts.budget import AXIS_PX, MARGIN_X
    from figures.style import TEMPLATE
    from figures.text import text_px

    built = SPECS["budget"].build({**SPECS["budget"].defaults, "lang": "en"}, Canvas(column=column, font_scale=scale))
    fig, names = built.figure, [tr.name for tr in built.figure.data if tr.type == "bar"]
    body = TEMPLATE.layout.font.size * scale
    widest = max(text_px(n, body) for n in names) + LEGEND_SYMBOL
    room = column - MARGIN_X
    if sum(text_px(n, body) + LEGEND_SYMBOL for n in names) <= room:
        columns = len(names)  # one row: no grid asked for
        assert fig.layout.legend.entrywidth is None
    else:  # a grid of equal columns, each a fraction of the plot's width: the same on a wider column
        columns = int(room // widest)
        assert fig.layout.legend.entrywidthmode == "fraction" and fig.layout.legend.entrywidth == 1 / columns
    rows = math.ceil(len(names) / columns)
    assert fig.layout.margin.b >= AXIS_PX * scale + rows * LINE * body  # the rows fit under the axis
    assert (fig.layout.legend.yref, fig.layout.legend.y, fig.layout.legend.yanchor) == ("container", 0, "bottom")
