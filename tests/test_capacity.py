"""The capacity planner and the decode read floor on cases worked out by hand (the arithmetic is
written next to each number), their monotonic properties, and bad inputs."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

import core
from core import DEPLOYED, MODELS, Dims, Layer, capacity
from core.capacity import plan, read_floor_seconds, request_bytes, weights_bytes
from core.gpus import GPUS

# Llama-3.1-8B's KV: 32 layers, 8 KV heads of 128. An MHA spec with 8 heads caches exactly what
# GQA's 8 KV heads cache: 32 × 2 × 8 × 128 × 2 B = 131,072 B/token in BF16.
LLAMA_8B = replace(MODELS["mha"], id="llama-3.1-8b-like", name="Llama-3.1-8B-like",
                   dims=Dims(hidden_size=4096, num_attention_heads=8, head_dim=128),
                   layers=tuple(Layer("MHA") for _ in range(32)))
LLAMA_WEIGHTS = 8_030_000_000 * 2  # 8.03 B parameters in BF16
V32_WEIGHTS = 685_000_000_000  # 671 B + the 14 B MTP module, FP8: 1 B a parameter
POWERS_OF_TWO = (1, 2, 4, 8, 16, 32, 64, 128, 256)
CONTEXTS = (1, 2, 3, 100, 127, 128, 129, 144, 1000, 4095, 4096, 4097, 131_071, 131_072, 1 << 20)


def test_the_llama_like_spec_is_131072_bytes_a_token():
    assert core.storage_per_token(LLAMA_8B).total == 131_072
    assert capacity.kv_heads(LLAMA_8B) == 8


# --- weights and heads ----------------------------------------------------------------


def test_weights_are_parameters_times_bytes_rounded_up_to_a_byte():
    assert weights_bytes(8_030_000_000, 2) == 16_060_000_000
    assert weights_bytes(671_000_000_000, 1) == 671_000_000_000
    assert weights_bytes(3, 0.5) == 2  # 1.5 B → 2 B


@pytest.mark.parametrize("model,heads", [("mha", 128), ("v2", None), ("v3", None), ("v3.2", None),
                                         ("v4-flash", None), ("v4.1-flash", None)])
def test_only_head_caches_split_across_ranks(model, heads):
    assert capacity.kv_heads(model) == heads


# --- what a request holds -------------------------------------------------------------


def test_a_dense_request_holds_whole_blocks_of_tokens():
    assert request_bytes(LLAMA_8B, 8192).total == 8192 * 131_072 == 1_073_741_824
    assert request_bytes(LLAMA_8B, 1000, block_tokens=16).total == 63 * 16 * 131_072  # ⌈1000/16⌉ = 63 blocks
    assert request_bytes(LLAMA_8B, 1000, block_tokens=64).total == 16 * 64 * 131_072  # ⌈1000/64⌉ = 16 blocks


def test_v4_flash_blocks_by_hand():
    # B = 64, N = 1. CSA (m = 4): one block of 16 entries × 21 layers × (584 + 68) B = 219,072.
    # HCA (m = 128 > B): a block is one entry spanning 128 tokens: 1 × 20 × 584 = 11,680.
    # Local KV: ⌈1/64⌉ = 1 block of 64 positions × 43 windowed layers × 584 B = 1,607,168.
    got = request_bytes("v4-flash", 1, block_tokens=64)
    assert got == core.Parts(21 * 16 * 584 + 11_680, 21 * 16 * 68, 1_607_168)
    assert got.total == 219_072 + 11_680 + 1_607_168 == 1_837_920
    # B = 16, N = 129. CSA: ⌈129/16⌉ = 9 blocks × 4 entries = 36 × 21 × 652 = 492,912.
    # HCA: ⌈129/128⌉ = 2 entries × 20 × 584 = 23,360.
    # Local: the window [1, 129) straddles blocks 0..8: 9 blocks = 144 positions × 43 × 584 = 3,616,128.
    got = request_bytes("v4-flash", 129, block_tokens=16)
    assert (got.main_kv + got.index_key, got.local_kv) == (492_912 + 23_360, 3_616_128)
    assert got.total == 4_132_400


def test_a_window_holds_the_most_blocks_it_can_straddle():
    # W = 128 positions touch at most ⌈127/B⌉ + 1 blocks; before the window fills, ⌈N/B⌉.
    per_position = 43 * 584
    for b, blocks in ((1, 128), (16, 9), (64, 3), (128, 2), (256, 2)):
        assert request_bytes("v4-flash", 1 << 20, block_tokens=b).local_kv == blocks * b * per_position
    assert request_bytes("v4-flash", 20, block_tokens=16).local_kv == 2 * 16 * per_position


@pytest.mark.parametrize("model", MODELS)
def test_block_size_one_at_a_context_every_ratio_divides_is_the_cache_itself(model):
    assert request_bytes(model, 131_072, block_tokens=1) == core.cache_at(model, 131_072)


@pytest.mark.parametrize("model", MODELS)
def test_a_longer_context_never_holds_fewer_bytes(model):
    for b in (1, 16, 64, 256):
        totals = request_bytes(model, np.array(CONTEXTS), block_tokens=b).total
        assert np.all(np.diff(totals) >= 0), (model, b)


@pytest.mark.parametrize("model", MODELS)
def test_a_larger_block_never_holds_fewer_bytes(model):
    # power-of-two blocks and ratios: each larger block is a whole number of smaller ones
    totals = np.array([request_bytes(model, np.array(CONTEXTS), block_tokens=b).total for b in POWERS_OF_TWO])
    assert np.all(np.diff(totals, axis=0) >= 0), model
    assert np.all(totals >= core.cache_at(model, np.array(CONTEXTS)).total)


def test_an_array_of_contexts_gives_what_each_context_gives():
    ns = np.array(CONTEXTS)
    for model in MODELS:
        got = request_bytes(model, ns, block_tokens=64)
        one_by_one = [request_bytes(model, int(n), block_tokens=64) for n in ns]
        for role in core.ROLES:
            assert list(getattr(got, role)) == [getattr(p, role) for p in one_by_one]
        assert all(isinstance(p.total, int) for p in one_by_one)


# --- the plan -------------------------------------------------------------------------


def test_llama_like_on_one_h100():
    # 80e9 − 8e9 reserved (10 %) − 16.06e9 weights = 55.94e9 B; ⌊55.94e9 / 1,073,741,824⌋ = 52
    p = plan(LLAMA_8B, 8192, "h100-sxm", LLAMA_WEIGHTS)
    assert (p.reserved_per_gpu_bytes, p.kv_budget_per_gpu_bytes) == (8_000_000_000, 55_940_000_000)
    assert (p.per_request_bytes, p.per_request_per_gpu_bytes, p.max_requests) == (1_073_741_824, 1_073_741_824, 52)
    assert p.fits and p.kv_heads == 8 and p.notes == ("KV heads split: each GPU holds 8 of the 8 KV heads",)


def test_llama_like_split_over_two_and_replicated_over_sixteen():
    # tp = 2: weights 8.03e9 a GPU, budget 63.97e9; 4 of 8 heads: 536,870,912 B; ⌊119.15⌋ = 119
    p = plan(LLAMA_8B, 8192, "h100-sxm", LLAMA_WEIGHTS, tp=2)
    assert p.kv_budget_per_gpu_bytes == 63_970_000_000
    assert (p.per_request_per_gpu_bytes, p.max_requests) == (536_870_912, 119)
    # tp = 16 > 8 heads: one head a GPU (each on 2 GPUs): 134,217,728 B; weights 1,003,750,000 a GPU;
    # budget 70,996,250,000; ⌊528.96⌋ = 528
    p = plan(LLAMA_8B, 8192, "h100-sxm", LLAMA_WEIGHTS, tp=16)
    assert (p.kv_budget_per_gpu_bytes, p.per_request_per_gpu_bytes, p.max_requests) == (
        70_996_250_000, 134_217_728, 528)
    assert p.notes == ("KV heads replicated: 16 GPUs for 8 KV heads, each GPU holds one, each head is on 2 GPUs",)


def test_v32_on_eight_h200():
    # 141e9 − 14.1e9 reserved − 685e9/8 = 85.625e9 weights = 41.275e9 B a GPU, 330.2e9 B in all.
    # The latent is replicated: each GPU holds a whole request, 131,072 × 48,068 = 6,300,368,896 B;
    # ⌊41.275e9 / 6,300,368,896⌋ = ⌊6.55⌋ = 6.
    p = plan("v3.2", 131_072, GPUS["h200"], V32_WEIGHTS, tp=8)
    assert p.kv_budget_per_gpu_bytes == 41_275_000_000
    assert p.per_request == core.Parts(61 * 131_072 * 656, 61 * 131_072 * 132, 0)
    assert p.per_request_bytes == p.per_request_per_gpu_bytes == 6_300_368_896
    assert p.max_requests == 6 and p.kv_heads is None
    assert p.notes == ("latent KV, no heads to split: every GPU holds each request's whole cache",)


def test_weights_that_do_not_fit_leave_no_request_and_say_so():
    p = plan("v3.2", np.array([1024, 131_072]), "h100-sxm", V32_WEIGHTS)
    assert not p.fits and p.kv_budget_per_gpu_bytes == 0
    assert list(p.max_requests) == [0, 0]
    assert "no request fits" in p.notes[1] and "short by 613,000,000,000 B" in p.notes[1]  # 80e9 − 8e9 − 685e9


def test_more_context_never_fits_more_requests():
    ns = np.array(CONTEXTS)
    for model in MODELS:
        for b in (16, 64):
            counts = plan(model, ns, "b200", 100 * 10**9, block_tokens=b, tp=8).max_requests
            assert np.all(np.diff(counts) <= 0), (model, b)


def test_a_larger_reserve_or_more_weights_never_fits_more():
    base = plan("v4-flash", 131_072, "mi300x", 284 * 10**9, tp=4).max_requests
    assert plan("v4-flash", 131_072, "mi300x", 284 * 10**9, tp=4, reserved=0.3).max_requests <= base
    assert plan("v4-flash", 131_072, "mi300x", 400 * 10**9, tp=4).max_requests <= base


def test_a_custom_gpu_plans_like_a_preset():
    mine = core.gpus.custom_gpu(80, 3.35, name="H100 again")
    assert plan(LLAMA_8B, 8192, mine, LLAMA_WEIGHTS).max_requests == 52


# --- the read floor -------------------------------------------------------------------


def test_the_read_floor_of_a_dense_head_cache():
    # 8192 × 131,072 = 1,073,741,824 B a step on 3.35e12 B/s
    one = read_floor_seconds(LLAMA_8B, 8192, DEPLOYED, GPUS["h100-sxm"].bandwidth_bytes_per_s)
    assert one == pytest.approx(1_073_741_824 / 3.35e12, rel=1e-12)
    assert read_floor_seconds(LLAMA_8B, 8192, DEPLOYED, 3.35e12, batch=4) == pytest.approx(4 * one)
    assert read_floor_seconds(LLAMA_8B, 8192, DEPLOYED, 3.35e12, tp=2) == pytest.approx(one / 2)
    assert read_floor_seconds(LLAMA_8B, 8192, DEPLOYED, 3.35e12, tp=16) == pytest.approx(one / 8)  # 8 heads


def test_the_read_floor_of_v32_does_not_fall_with_tp():
    # 61 × 2,048 × 656 + 61 × 131,072 × 132 = 81,952,768 + 1,055,391,744 = 1,137,344,512 B on 4.8e12 B/s
    one = read_floor_seconds("v3.2", 131_072, DEPLOYED, 4.8e12)
    assert one == pytest.approx(1_137_344_512 / 4.8e12, rel=1e-12)
    assert read_floor_seconds("v3.2", 131_072, DEPLOYED, 4.8e12, batch=2, tp=8) == pytest.approx(2 * one)


def test_the_read_floor_is_vectorised_and_grows_with_context():
    ns = np.array(CONTEXTS)
    for model in MODELS:
        floor = read_floor_seconds(model, ns, DEPLOYED, 8e12, batch=3)
        assert np.allclose(floor, [read_floor_seconds(model, int(n), DEPLOYED, 8e12, batch=3) for n in ns])
        assert np.allclose(floor, core.reads(model, ns).total * 3 / 8e12)
        assert np.all(np.diff(floor) >= 0)


def test_the_read_floor_says_it_is_a_bound_not_a_prediction():
    doc = " ".join(read_floor_seconds.__doc__.split())
    assert "A lower bound, not a speed prediction" in doc and "weights" in doc


# --- bad inputs -----------------------------------------------------------------------


@pytest.mark.parametrize("kwargs,message", [
    ({"context": 0}, "context length must be at least 1"),
    ({"context": -5}, "context length must be at least 1"),
    ({"context": 1.5}, "context length must be a whole number"),
    ({"context": [100, 0]}, "context length must be at least 1"),
    ({"reserved": 1}, "reserved must be a number ≥ 0 and < 1"),
    ({"reserved": 1.5}, "reserved must be a number ≥ 0 and < 1"),
    ({"reserved": -0.1}, "reserved must be a number ≥ 0 and < 1"),
    ({"reserved": math.nan}, "reserved must be a number"),
    ({"tp": 0}, "tp must be an integer ≥ 1"),
    ({"tp": -2}, "tp must be an integer ≥ 1"),
    ({"tp": 2.0}, "tp must be an integer ≥ 1"),
    ({"tp": True}, "tp must be an integer ≥ 1"),
    ({"block_tokens": 0}, "block_tokens must be an integer ≥ 1"),
    ({"block_tokens": -16}, "block_tokens must be an integer ≥ 1"),
    ({"weights": -1}, "weights must be a number ≥ 0"),
    ({"weights": math.inf}, "weights must be a number ≥ 0"),
    ({"gpu": "h300"}, "unknown GPU 'h300'"),
    ({"model": "v5"}, "unknown model 'v5'"),
])
def test_a_bad_plan_input_is_a_clear_value_error(kwargs, message):
    args = {"model": "v3.2", "context": 4096, "gpu": "h200", "weights": V32_WEIGHTS} | kwargs
    with pytest.raises(ValueError, match=message):
        plan(args.pop("model"), args.pop("context"), args.pop("gpu"), args.pop("weights"), **args)


@pytest.mark.parametrize("args,message", [
    ((0, 2), "parameters must be an integer ≥ 1"),
    ((-8, 2), "parameters must be an integer ≥ 1"),
    ((8e9, 2), "parameters must be an integer ≥ 1"),
    ((8_000_000_000, 0), "bytes_per_parameter must be a number > 0"),
    ((8_000_000_000, -1), "bytes_per_parameter must be a number > 0"),
])
def test_bad_weights_are_clear_value_errors(args, message):
    with pytest.raises(ValueError, match=message):
        weights_bytes(*args)


@pytest.mark.parametrize("kwargs,message", [
    ({"bandwidth_bytes_per_s": 0}, "bandwidth_bytes_per_s must be a number > 0"),
    ({"bandwidth_bytes_per_s": -1e12}, "bandwidth_bytes_per_s must be a number > 0"),
    ({"batch": 0}, "batch must be an integer ≥ 1"),
    ({"tp": 0}, "tp must be an integer ≥ 1"),
    ({"context": 0}, "context length must be at least 1"),
])
def test_bad_read_floor_inputs_are_clear_value_errors(kwargs, message):
    args = {"context": 4096, "bandwidth_bytes_per_s": 4.8e12} | kwargs
    with pytest.raises(ValueError, match=message):
        read_floor_seconds("v3.2", args.pop("context"), DEPLOYED, args.pop("bandwidth_bytes_per_s"), **args)


# --- parallel modes ----------------------------------------------------------------------------------

from core.parallel import Parallel, attention_parameters, stages  # noqa: E402


def test_v32s_attention_weights_from_its_widths():
    # a layer: q 7,168 × 1,536 + 1,536 × 128 × 192; kv 7,168 × 576 + 512 × 128 × 256; o 128 × 128 × 7,168;
    # indexer 1,536 × 64 × 128 + 7,168 × (128 + 64) = 201,064,448; × 61 layers
    assert attention_parameters("v3.2") == 61 * 201_064_448 == 12_264_931_328
    # Llama-like: q, k, v and o of 4,096 × 1,024 each (8 heads of 128) × 32 layers
    assert attention_parameters(LLAMA_8B) == 32 * 4 * 4096 * 1024


def test_dp_attention_keeps_a_latent_on_one_gpu_and_fits_more_than_tp():
    # 8 × H200, V3.2 at 128K, FP8 weights 671e9 B. TP 8: every GPU holds the whole latent of every request: 6.
    # DP attention 8: attention weights 12,264,931,328 B whole on each GPU, the rest ÷ 8 = 82,341,883,584 B:
    # 94,606,814,912 B a GPU; 141e9 − 14.1e9 − that = 32,293,185,088 B; ⌊/ 6,300,368,896⌋ = 5 a GPU, 40 in all.
    weights, attention = 671 * 10**9, attention_parameters("v3.2")
    tp = plan("v3.2", 131_072, "h200", weights, parallel=Parallel(tp=8), attention_weights=attention)
    dp = plan("v3.2", 131_072, "h200", weights, parallel=Parallel(dp=8), attention_weights=attention)
    assert tp.max_requests == 6 and tp.weights_per_gpu_bytes == 83_875_000_000
    assert dp.weights_per_gpu_bytes == 94_606_814_912 and dp.kv_budget_per_gpu_bytes == 32_293_185_088
    assert dp.per_request_per_gpu_bytes == 6_300_368_896 and dp.max_requests == 8 * 5 == 40


from core.open_models import OPEN_MODELS  # noqa: E402
from core.parallel import published_config, weights, whole_parameters  # noqa: E402
from core.registry import get  # noqa: E402


def test_v32s_weights_by_part_from_its_published_config():
    # config.json: hidden 7,168, vocab 129,280 (embedding and head untied), first_k_dense_replace 3 dense layers of
    # 18,432, then 58 MoE layers of 256 routed experts and 1 shared, 2,048 wide; gated MLPs, 3 matrices each
    w = weights("v3.2")
    assert w.attention == 61 * 201_064_448 == 12_264_931_328
    assert w.embeddings == 2 * 129_280 * 7_168 == 1_853_358_080
    assert w.dense == 3 * 3 * 7_168 * 18_432 == 1_189_085_184
    assert w.shared == 58 * 1 * 3 * 7_168 * 2_048 == 2_554_331_136
    assert w.routers == 58 * 7_168 * 256 == 106_430_464
    assert w.experts == 58 * 256 * 3 * 7_168 * 2_048 == 653_908_770_816
    assert w.mixers == 0 and w.total == 671_876_907_008  # 671B as published, with the indexers
    # SGLang (and the theory) keep the attention whole; vLLM all but the routed experts
    assert whole_parameters("v3.2", "sglang") == whole_parameters("v3.2") == 12_264_931_328
    assert whole_parameters("v3.2", "vllm") == 12_264_931_328 + 1_853_358_080 + 1_189_085_184 + 2_554_331_136 \
        + 106_430_464 == 17_968_136_192
    assert weights("deepseek-v3.2") == w  # the article's V3.2 has the preset's widths


def test_the_widths_give_the_published_counts_less_the_norms():
    # Llama 3.1 8B: q, o 4,096²; k, v 4,096 × 1,024; MLP 3 × 4,096 × 14,336; embedding and head 128,256 × 4,096
    # each: 8,029,995,008; the safetensors count 8,030,261,248 adds 65 RMSNorms of 4,096
    w = weights("llama-3.1-8b")
    assert w.total == 32 * (2 * 4096**2 + 2 * 4096 * 1024 + 3 * 4096 * 14_336) + 2 * 128_256 * 4096 == 8_029_995_008
    assert get("llama-3.1-8b").parameters - w.total == 65 * 4096
    # a model without experts is whole on every vLLM DP rank: its published count
    assert whole_parameters("llama-3.1-8b", "vllm") == 8_030_261_248
    # gpt-oss-120b (an exact count): the widths leave out only biases, sinks and norms, 0.04 %
    assert 0 < get("gpt-oss-120b").parameters - weights("gpt-oss-120b").total < 0.0005 * get("gpt-oss-120b").parameters
    # every preset with experts or a state: the parts within 6 % of the published (often rounded) count
    for m in OPEN_MODELS.values():
        w = weights(m)
        if w.experts or w.mixers:
            assert abs(w.total - m.parameters) < 0.06 * m.parameters, m.id


def test_sglang_keeps_the_mixers_whole_beside_the_attention():
    # Qwen3-Next: 12 attention layers, q and o 2,048 × 16 × 256, k and v 2,048 × 2 × 256: 18,874,368 each;
    # 36 Gated DeltaNet layers: in_proj_qkvz 2,048 × (2 × 16 × 128 + 2 × 32 × 128), in_proj_ba 2,048 × 64,
    # conv1d 4 × (2 × 16 × 128 + 32 × 128), out_proj 32 × 128 × 2,048: 33,718,272 each
    # (sglang models/qwen3_next.py:132: the attention TP group, one rank under DP attention)
    attention = 2 * 2048 * 16 * 256 + 2 * 2048 * 2 * 256
    mixer = 2048 * (2 * 16 * 128 + 2 * 32 * 128) + 2048 * 64 + 4 * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 2048
    assert (attention, mixer) == (18_874_368, 33_718_272)
    assert whole_parameters("qwen3-next-80b-a3b", "sglang") == 12 * attention + 36 * mixer == 1_440_350_208
    assert published_config("qwen3-next-80b-a3b")["num_experts"] == 512


def test_vllms_dp_attention_fits_fewer_than_sglangs_on_v32():
    # 8 × H200, V3.2 at 128K, FP8 weights 671e9 B (1 B a parameter), 10 % reserved: 126.9e9 B a GPU.
    # vLLM: 17,968,136,192 B whole and ⌈(671e9 − 17,968,136,192) / 8⌉ = 81,628,982,976 B: 99,597,119,168 B a GPU;
    # 126.9e9 − that = 27,302,880,832 B; ⌊/ 6,300,368,896⌋ = 4 a GPU, 32 in all.
    # SGLang: 12,264,931,328 B whole: 94,606,814,912 B a GPU, 32,293,185,088 B left, 5 a GPU, 40 in all.
    par, weights_fp8 = Parallel(dp=8), 671 * 10**9
    v = plan("v3.2", 131_072, "h200", weights_fp8, parallel=par, engine="vllm", block_tokens=64)
    s = plan("v3.2", 131_072, "h200", weights_fp8, parallel=par, engine="sglang", block_tokens=1)
    assert v.whole_weights_bytes == 17_968_136_192 and v.weights_per_gpu_bytes == 99_597_119_168
    assert v.kv_budget_per_gpu_bytes == 27_302_880_832 and v.per_request_per_gpu_bytes == 6_300_368_896
    assert v.max_requests == 8 * 4 == 32
    assert s.weights_per_gpu_bytes == 94_606_814_912 and s.max_requests == 8 * 5 == 40
    # under TP both engines split every weight: 6 either way
    assert plan("v3.2", 131_072, "h200", weights_fp8, parallel=Parallel(tp=8), engine="vllm").max_requests == 6


def test_sglang_sets_v4s_ratio_128_rings_aside_before_the_pools():
    # 8 × H200, V4-Flash, TP 8: 256 + 1 request slots × 128 rows, padded to 33,152 rows, × 4,096 B × 20 layers
    # (core.engines.Allocation.reserved); under DP attention 8, 32 + 1 slots a rank: 4,480 rows
    tp = plan("v4-flash", 131_072, "h200", 284 * 10**9, parallel=Parallel(tp=8), engine="sglang", block_tokens=1)
    assert tp.engine_reserved_per_gpu_bytes == 33_152 * 4096 * 20 == 2_715_811_840
    assert tp.kv_budget_per_gpu_bytes == 141 * 10**9 - 14_100_000_000 - 284 * 10**9 // 8 - 2_715_811_840
    dp = plan("v4-flash", 131_072, "h200", 284 * 10**9, parallel=Parallel(dp=8), engine="sglang", block_tokens=1)
    assert dp.engine_reserved_per_gpu_bytes == 4_480 * 4096 * 20 == 367_001_600
    assert plan("v4-flash", 131_072, "h200", 284 * 10**9, parallel=Parallel(tp=8)).engine_reserved_per_gpu_bytes == 0


def test_dp_attention_on_a_gqa_model_gains_nothing_from_the_heads_it_no_longer_splits():
    # 8 KV heads on 8 GPUs: TP holds 1/8 of each request on every GPU; DP holds whole requests on one
    tp = plan(LLAMA_8B, 8192, "h100-sxm", LLAMA_WEIGHTS, parallel=Parallel(tp=8))
    dp = plan(LLAMA_8B, 8192, "h100-sxm", LLAMA_WEIGHTS, parallel=Parallel(dp=8),
              attention_weights=attention_parameters(LLAMA_8B) * 2)
    assert tp.per_request_per_gpu_bytes * 8 == dp.per_request_per_gpu_bytes == 1_073_741_824
    assert dp.max_requests <= tp.max_requests


def test_pipeline_stages_split_the_layers_as_vllm_does():
    # vllm/distributed/utils.py get_pp_indices: ⌊61/8⌋ = 7 a stage, the 5 left one each to the stages before the last
    assert [s.n_layers for s in stages("v3.2", 8)] == [7, 7, 8, 8, 8, 8, 8, 7]
    p = plan("v3.2", 131_072, "h200", 671 * 10**9, parallel=Parallel(pp=8))
    assert p.per_request_per_gpu_bytes == 8 * 131_072 * 788  # the 8-layer stages hold the most
    with pytest.raises(ValueError, match="stage"):
        stages(LLAMA_8B, 33)


def test_tp_beyond_the_kv_heads_replicates_them_in_the_engines_too():
    from core.engines import allocation
    full = allocation(LLAMA_8B, 8192, DEPLOYED, "vllm").charge
    assert plan(LLAMA_8B, 8192, "h100-sxm", 0, parallel=Parallel(tp=16), engine="vllm",
                block_tokens=64).per_request_per_gpu_bytes == full // 8  # one of 8 heads a GPU


def test_the_planner_says_why_on_the_chart():
    from figures.builders.planner import build_capacity
    chart = build_capacity(models=("v3.2", "v4.1-flash", "kimi-k2"), parallel="tp", lang="en")
    labels = {row.name: row.label for row in chart.rows}
    assert "DP attention would fit 40" in labels["V3.2"]  # a count another mode changes more than 2×
    assert "parameter count not published" in labels["V4.1-Flash"]
    # Kimi K2's FP8 weights leave 1.90 GB a GPU: 0, and why
    assert labels["Kimi K2"].startswith("0 · 1.90 GB per GPU is left for KV, a request takes 9.21 GB")
    one = build_capacity(models=("v3.2",), tp=1, lang="en")
    assert one.rows[0].label.startswith("0 · weights of 671 GB and a reserve of 14.1 GB per GPU")
    gemma = build_capacity(models=("gemma-3-4b",), lang="en").rows[0].label
    assert "as SGLang runs it: 27" in gemma  # another rule that changes the count more than 2×
    vllm = build_capacity(models=("v4.1-flash",), engine="vllm", lang="en")
    assert "no CSA2 layers" in vllm.rows[0].label and vllm.numbers[0]["max_requests"] is None


def test_the_planner_runs_each_engine_as_core_serving_does():
    """Each bar is core.serving's count; a row says what caps it, the DCP width the engine takes, each assumption
    that moves it more than 10 %, and a layout the engine refuses with its reason."""
    from core.serving import serve
    from figures.builders.planner import build_capacity
    v = build_capacity(models=("v3.2", "llama-3.1-8b", "kimi-k2"), engine="vllm", context=8192, lang="en")
    bars = {row.name: row.count for row in v.rows}
    labels = {row.name: row.label for row in v.rows}
    assert bars["V3.2"] == serve("v3.2", 8192, "h200", "vllm", Parallel(tp=8)).requests == 152
    assert bars["Llama 3.1 8B"] == 1_024 and "capped at 1,024 by vLLM's max_num_seqs" in labels["Llama 3.1 8B"]
    assert "assumes CUDA graphs of 2.15 GB; without it 36" in labels["Kimi K2"]  # tests/test_serving.py
    dcp = build_capacity(models=("v3.2", "gemma-3-4b"), engine="vllm", parallel="dcp", lang="en")
    labels = {row.name: row.label for row in dcp.rows}
    assert "DCP 4: 4 of the 8 TP ranks" in labels["V3.2"]
    assert labels["Gemma 3 4B"].startswith("vLLM refuses this layout") and "sliding window" in labels["Gemma 3 4B"]
    assert dcp.numbers[0]["dcp"] == 4 and dcp.numbers[1]["max_requests"] is None
    ctx = build_capacity(models=("v3.2",), engine="vllm", ask="context", requests=5, lang="en")
    assert [row.count for row in ctx.rows] == [249_472] and ctx.numbers[0]["longest_context"] == 249_472


def test_the_planner_on_a_card_smaller_than_the_runtime_says_so_for_every_rule():
    """A custom GPU of 1 GB: less than the runtime SGLang and vLLM set aside. No traceback: each row says why."""
    from figures.builders.planner import build_capacity
    for engine in ("theory", "vllm", "sglang"):
        chart = build_capacity(models=("v3.2", "llama-3.1-8b"), gpu="custom", memory_gb=1.0, engine=engine,
                               lang="en")
        assert [row.count for row in chart.rows] == [0, 0]
