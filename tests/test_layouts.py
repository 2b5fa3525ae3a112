"""core.layouts: what vLLM 0.34.0 and SGLang 0.5.23 refuse of a way to spread a model, each with its reason and
source; a layout they run is not refused; the theory refuses only what cannot be."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

import core.layouts as L
from core.cost import ALL_BF16
from core.layouts import Refusal, block_refusal, experts, has_experts, refusal
from core.open_models import OPEN_MODELS
from core.parallel import Parallel
from core.registry import get

VLLM, SGLANG = "vLLM 0.34.0 (commit 62d4bc3c7)", "SGLang 0.5.23"


def refused(model, layout, engine, node=None, **kw) -> Refusal:
    r = refusal(model, layout, engine, node, **kw)
    assert isinstance(r, Refusal), (model, layout, engine)
    assert r.engine in ("theory", engine) and r.reason and r.source
    return r


# --- attention heads -----------------------------------------------------------------------------------------


def test_vllm_refuses_a_tp_that_does_not_divide_the_heads_in_its_own_words():
    r = refused("llama-3.1-8b", Parallel(tp=3), "vllm")  # 32 heads, 32 % 3 = 2
    assert r.rule == "heads" and r.release == VLLM
    assert r.reason == "Total number of attention heads (32) must be divisible by tensor parallel size (3)"
    assert r.source == "vllm/config/model.py:1576-1584"
    assert str(r) == f"{VLLM} refuses it: {r.reason} [{r.source}]"


@pytest.mark.parametrize("model,tp,heads,where", [
    ("llama-3.1-8b", 3, 32, "sglang/srt/layers/linear.py:1139"),  # GQA: QKVParallelLinear
    ("kimi-k2", 3, 64, "sglang/srt/models/deepseek_v2.py:2051-2058"),  # MLA
    ("v4-flash", 6, 64, "sglang/srt/models/deepseek_v4.py:1025-1037"),  # V4: 64 % 6 = 4
])
def test_sglang_refuses_heads_its_attention_tp_does_not_divide(model, tp, heads, where):
    r = refused(model, Parallel(tp=tp), "sglang")
    assert r.rule == "heads" and r.release == SGLANG
    assert f"'{heads} is not divisible by {tp}'" in r.reason
    assert r.source.startswith(where) and r.source.endswith("distributed/utils.py:68-79")


# --- KV heads: a TP past them is a multiple of them, a TP below them divides them ------------------------------


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_tp_wider_than_the_kv_heads_must_be_a_multiple_of_them(engine):
    # Qwen3.5 27B: 24 heads, 4 KV heads. tp 6 divides 24, but 6 > 4 and 6 % 4 = 2: no whole copies
    r = refused("qwen3.5-27b", Parallel(tp=6), engine)
    assert r.rule == "kv-heads" and "'6 is not divisible by 4'" in r.reason and "copied to tp / 4" in r.reason
    # Phi-4-mini: 24 heads, 8 KV heads; tp 12: 24 % 12 = 0, 12 % 8 = 4
    assert "'12 is not divisible by 8'" in refused("phi-4-mini", Parallel(tp=12), engine).reason


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_tp_narrower_than_the_kv_heads_must_divide_them(engine):
    r = refused("qwen3.5-27b", Parallel(tp=3), engine)  # 24 % 3 = 0, but 4 KV heads % 3 = 1
    assert r.rule == "kv-heads" and "'4 is not divisible by 3'" in r.reason
    assert r.source == ("vllm/model_executor/layers/linear.py:1112-1119; vllm/distributed/utils.py:52-56, 143-147"
                        if engine == "vllm" else "sglang/srt/layers/linear.py:1139-1145; distributed/utils.py:68-79")


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
@pytest.mark.parametrize("model,tp", [
    ("llama-3.1-8b", 16),  # 8 KV heads, each on 16 / 8 = 2 ranks: replicated, allowed
    ("llama-3.1-8b", 32),  # one head a rank, each on 4 ranks
    ("qwen3.5-27b", 12),  # 24 % 12 = 0, 12 % 4 = 0
    ("gpt-oss-120b", 8),  # 64 heads, 8 KV heads: one each
    ("v3.2", 8), ("kimi-k2", 64),  # MLA: no KV heads to split
])
def test_a_layout_both_engines_run_is_not_refused(engine, model, tp):
    assert refusal(model, Parallel(tp=tp), engine, 64) is None


def test_a_sliding_layers_own_kv_heads_are_checked_too():
    # Gemma 4 26B: 16 heads, 2 KV heads in its full layers, 8 in its sliding ones: tp 4 runs (4 % 2, 8 % 4)
    g4 = get("gemma-4-26b-a4b")
    assert refusal(g4, Parallel(tp=4), "vllm") is None
    six = replace(g4, dims=replace(g4.dims, swa_num_key_value_heads=6))  # 6 sliding KV heads: 6 % 4 = 2
    assert "'6 is not divisible by 4'" in refused(six, Parallel(tp=4), "vllm").reason


# --- GPUs of one node --------------------------------------------------------------------------------------------


def test_vllm_refuses_a_world_larger_than_the_node():
    r = refused("llama-3.1-8b", Parallel(tp=16), "vllm", 8)
    assert r.rule == "node"
    assert r.reason == "World size (16) is larger than the number of available GPUs (8) in this node"
    assert r.source == "vllm/config/parallel.py:1057-1061, 1158-1170"
    # tp × pp = 4 fits; its 4 DP engines take 4 GPUs each: 16
    r = refused("v3.2", Parallel(tp=4, dp=4), "vllm", 8)
    assert "4 × 1 × 4 = 16 GPUs, more than the node's 8" in r.reason and r.source == "vllm/v1/engine/utils.py:439-485"


def test_sglang_counts_attention_dp_in_its_tp_size_on_the_node():
    r = refused("v3.2", Parallel(tp=2, dp=8), "sglang", 8)
    assert r.rule == "node" and "(2 × 8 = 16)" in r.reason and "'assert gpu_id < num_gpus'" in r.reason
    assert r.source == ("sglang/srt/runtime_context.py:73-76; entrypoints/engine.py:929-938; "
                        "utils/common.py:435-436")


@pytest.mark.parametrize("engine", ["theory", "vllm", "sglang"])
def test_a_node_filled_exactly_and_a_plan_across_nodes_are_not_refused(engine):
    assert refusal("v3.2", Parallel(tp=8), engine, 8) is None
    assert refusal("v3.2", Parallel(tp=2, pp=2, dp=2), engine, 8) is None
    assert refusal("v3.2", Parallel(tp=16), engine) is None  # no node given: ranks may span nodes


# --- DP attention --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["llama-3.1-8b", "nemotron-h-56b", "qwen3.5-27b"])  # no experts in their configs
def test_vllm_has_no_dp_attention_for_a_model_without_experts(model):
    r = refused(model, Parallel(dp=8), "vllm", 8)
    assert r.rule == "dp-attention" and "Non-MoE DP ranks are completely independent" in r.reason
    assert "'Number of experts in the model must be greater than 0 when expert parallelism is enabled'" in r.reason
    assert r.source == "vllm/v1/engine/core.py:1719-1728; vllm/config/model.py:1518-1523"


@pytest.mark.parametrize("model", ["v3.2", "nemotron-3-nano-30b-a3b", "qwen3-next-80b-a3b", "gpt-oss-120b", "kimi-k2"])
def test_vllm_runs_dp_attention_for_a_model_with_experts(model):
    assert refusal(model, Parallel(dp=8), "vllm", 8) is None


@pytest.mark.parametrize("model,file", [
    ("llama-3.1-8b", "llama.py:181-184"), ("mistral-7b-v0.1", "llama.py:181-184"),
    ("gemma-3-4b", "gemma3_causal.py:137-141"), ("gemma-4-26b-a4b", "gemma4_causal.py:323-343"),
    ("granite-4.0-h-small", "granitemoehybrid.py:195-197"),
])
def test_sglang_has_no_dp_attention_where_the_model_file_splits_heads_over_the_whole_tp_group(model, file):
    r = refused(model, Parallel(dp=2), "sglang")
    assert r.rule == "dp-attention" and "get_parallel().tp_size" in r.reason
    assert r.source.startswith("sglang/srt/models/") and file in r.source


@pytest.mark.parametrize("model", ["qwen3-8b", "nemotron-h-56b", "v3.2", "v4-flash", "gpt-oss-120b",
                                   "qwen3-next-80b-a3b"])
def test_sglang_runs_dp_attention_where_attention_is_on_the_attention_tp_group(model):
    assert refusal(model, Parallel(dp=8), "sglang", 8) is None  # dense Qwen3 and Nemotron-H too


def test_whether_a_model_has_experts_comes_from_its_config_as_vllm_reads_it():
    assert experts({"num_local_experts": 128}) == 128  # gpt-oss
    assert experts({"text_config": {"num_experts": 256}, "num_experts": 0}) == 256  # the text config decides
    assert experts({"moe_num_experts": [64, 64]}) == 64  # a list: its first value
    assert experts({"block_configs": [{"block_type": "moe", "n_routed_experts": 8},
                                      {"block_type": "attention"}]}) == 8
    assert experts({"num_experts": True}) == 0 and experts({"hidden_size": 4096}) == 0
    assert [has_experts(m) for m in ("gpt-oss-120b", "nemotron-h-56b", "nemotron-3-nano-30b-a3b", "v4-flash", "mha")] \
        == [True, False, True, True, None]
    assert L._preset_experts("qwen3-next-80b-a3b") == 512 and L._preset_experts("kimi-k2") == 384
    # a model nothing here knows: not refused unless the caller says it has no experts
    mha = get("mha")
    assert refusal(mha, Parallel(dp=2), "vllm") is None
    assert refused(mha, Parallel(dp=2), "vllm", moe=False).rule == "dp-attention"


def test_every_preset_family_sglang_serves_is_read_for_dp_attention():
    unread = {m.family for m in OPEN_MODELS.values()} - set(L.SGLANG_DP_ATTENTION)
    assert unread == {"jamba", "minimax_m1", "olmo3"}  # no model file of theirs in SGLang 0.5.23


# --- pipeline stages -----------------------------------------------------------------------------------------


def test_vllm_refuses_pp_for_an_architecture_without_supportspp():
    r = refused("gemma-3n-e2b", Parallel(pp=2), "vllm")
    assert r.rule == "pp-support" and "'Pipeline parallelism is not supported for this model." in r.reason
    assert r.source.startswith("vllm/config/model.py:1589-1596; ") and "gemma3n_mm.py:575-577" in r.source
    assert refusal("gemma-3n-e2b", Parallel(pp=2), "sglang") is None
    assert refusal("llama-3.1-8b", Parallel(pp=2), "vllm") is None


@pytest.mark.parametrize("engine", ["theory", "vllm", "sglang"])
def test_more_stages_than_layers_is_refused_and_as_many_is_not(engine):
    r = refused("llama-3.1-8b", Parallel(pp=33), engine)  # 32 layers
    assert r.rule == "pp-layers" and r.reason.startswith("pp = 33 stages for 32 layers")
    assert r.source.endswith("core/parallel.py (stages)")
    if engine != "theory":  # ⌊32/33⌋ = 0 layers to 33 − 32 = 1 stage; no check of the engine's own
        assert "⌊32/33⌋ = 0 layers to 1 of them" in r.reason and "no check of its own" in r.reason
    assert refusal("llama-3.1-8b", Parallel(pp=32), engine) is None


# --- the theory refuses only what cannot be --------------------------------------------------------------------


def test_the_theory_refuses_only_impossible_layouts():
    for layout in (Parallel(tp=3), Parallel(tp=1000), Parallel(dp=8), Parallel(tp=6)):
        assert refusal("llama-3.1-8b", layout, "theory") is None  # heads, KV heads and DP are the engines' rules
    r = refused("llama-3.1-8b", (0, 1, 1), "theory")
    assert r.rule == "ranks" and r.release == "the theory (core)" and "tp = 0" in r.reason
    assert "pp = -2" in refused("llama-3.1-8b", (1, -2, 1), "sglang").reason
    assert refused("llama-3.1-8b", (1, 1, 0), "vllm").source == "vllm/config/parallel.py:148-156"
    assert "16 GPUs, more than the node's 8" in refused("llama-3.1-8b", Parallel(tp=16), "theory", 8).reason


def test_what_is_not_a_layout_is_a_value_error():
    with pytest.raises(ValueError, match="unknown engine"):
        refusal("v3.2", Parallel(), "trt")
    with pytest.raises(ValueError, match="three whole numbers"):
        refusal("v3.2", (1.5, 1, 1), "vllm")
    with pytest.raises(ValueError, match="gpus_per_node"):
        refusal("v3.2", Parallel(), "vllm", 0)


# --- block sizes -------------------------------------------------------------------------------------------------


def test_sglang_sets_the_page_size_of_dsa_and_v4_itself():
    r = block_refusal("v3.2", "sglang", 16)
    assert r.rule == "block" and "page size to 64 itself" in r.reason
    assert r.source == "sglang/srt/arg_groups/model_overrides/deepseek_v2.py:99-173"
    assert "page size to 256 itself" in block_refusal("v4-flash", "sglang", 64).reason
    assert block_refusal("v3.2", "sglang", 64) is None and block_refusal("v4-flash", "sglang", 256) is None
    assert block_refusal("llama-3.1-8b", "sglang", 1) is None


def test_vllm_refuses_a_block_no_hopper_backend_takes():
    r = block_refusal("v3.2", "vllm", 16)  # sparse MLA: multiples of 64
    assert "'No valid attention backend found'" in r.reason and "multiple of 64" in r.reason
    assert r.source.startswith("vllm/platforms/cuda.py:511-516; ")
    assert "multiple of 16" in block_refusal("llama-3.1-8b", "vllm", 1).reason
    assert "multiple of 16" in block_refusal("v3", "vllm", 1).reason  # dense MLA's kernels too
    for model, block in (("v3.2", 64), ("v3.2", 256), ("llama-3.1-8b", 16), ("v3", 16),
                         ("qwen3-next-80b-a3b", 1)):  # a hybrid with states: vLLM raises the block itself
        assert block_refusal(model, "vllm", block) is None, (model, block)
    assert all(block_refusal(m, "theory", b) is None for m in ("v3.2", "v4-flash") for b in (1, 16, 64, 256))


# --- the docstring cites every file a refusal names --------------------------------------------------------------


def test_the_module_docstring_cites_every_file_a_refusal_names():
    found = [refusal(m, lay, e, node, moe=moe) for m, lay, e, node, moe in (
        ("llama-3.1-8b", Parallel(tp=3), "vllm", None, None), ("llama-3.1-8b", Parallel(tp=3), "sglang", None, None),
        ("kimi-k2", Parallel(tp=3), "sglang", None, None), ("v4-flash", Parallel(tp=6), "sglang", None, None),
        ("qwen3.5-27b", Parallel(tp=6), "vllm", None, None), ("qwen3.5-27b", Parallel(tp=6), "sglang", None, None),
        ("v3.2", Parallel(tp=16), "vllm", 8, None), ("v3.2", Parallel(tp=4, dp=4), "vllm", 8, None),
        ("v3.2", Parallel(tp=4, dp=4), "sglang", 8, None), ("llama-3.1-8b", Parallel(dp=2), "vllm", None, None),
        ("gemma-3n-e2b", Parallel(pp=2), "vllm", None, None), ("llama-3.1-8b", Parallel(pp=33), "vllm", None, None),
        ("llama-3.1-8b", Parallel(pp=33), "sglang", None, None), ("llama-3.1-8b", (1, 1, 0), "vllm", None, None),
    )]
    found += [block_refusal(m, e, b) for m, e, b in (("v3.2", "sglang", 16), ("v4-flash", "sglang", 64),
                                                      ("v3.2", "vllm", 16), ("llama-3.1-8b", "vllm", 1))]
    files = {f for r in found for f in re.findall(r"([\w/]+\.py)", r.source)}
    doc = L.__doc__
    assert len(files) > 20
    missing = {f for f in files if f.rsplit("/", 1)[-1] not in doc}
    assert not missing


# --- decode context parallelism -----------------------------------------------------------------------------------


def test_dcp_must_divide_tp_in_every_engine():
    r = refused("v3.2", Parallel(tp=8, dcp=3), "vllm")
    assert (r.rule, r.reason) == ("dcp", "tp_size=8 must be divisible by dcp_size=3.")
    assert r.source == "vllm/config/parallel.py:636-641"
    r = refused("kimi-k2", Parallel(tp=8, dcp=3), "sglang")
    assert r.rule == "dcp" and "parallel_state.py:2716-2725" in r.source and "must divide --tp-size 8" in r.reason
    assert refused("v3.2", Parallel(tp=8, dcp=3), "theory").rule == "dcp"
    for engine in ("vllm", "theory"):  # dcp as wide as tp, or a divisor of it, runs (BF16 cache)
        assert refusal("v3.2", Parallel(tp=8, dcp=8), engine, precision=ALL_BF16) is None
    for engine in ("vllm", "sglang", "theory"):
        assert refusal("kimi-k2", Parallel(tp=8, dcp=8), engine) is None
        assert refusal("kimi-k2", Parallel(tp=8, dcp=2), engine) is None


def test_vllm_dcp_for_gqa_needs_more_tp_ranks_than_kv_heads():
    # vllm/config/model.py:1598-1626, Qwen3-Next: 2 KV heads, 16 query heads (8 a KV head)
    r = refused("llama-3.1-8b", Parallel(tp=8, dcp=2), "vllm")  # 8 KV heads: tp 8 is not more
    assert "greater than the model's total number of KV heads (8)" in r.reason
    assert refusal("qwen3-next-80b-a3b", Parallel(tp=8, dcp=4), "vllm") is None  # 4 ≤ 8 // 2, 8 % 4 == 0
    r = refused("qwen3-next-80b-a3b", Parallel(tp=8, dcp=8), "vllm")
    assert "exceeds the maximum supported value (4)" in r.reason and r.source == "vllm/config/model.py:1598-1626"
    # SGLang has no such check on CUDA: each DCP rank holds its group's KV heads (model_config.py:1700-1711)
    assert refusal("llama-3.1-8b", Parallel(tp=8, dcp=2), "sglang") is None


def test_vllm_refuses_dcp_8_at_tp_8_for_v32s_fp8_cache_and_runs_dcp_4():
    # flashmla_sparse.py:460-493, 730-733: 128 heads / 8 = 16 a rank (< 32: the mixed-batch path); DCP gathers
    # 16 × 8 = 128 heads, which pad to 128, the rank's 16 to 64: refused; DCP 4 gathers 64, padding to 64: runs
    r = refused("v3.2", Parallel(tp=8, dcp=8), "vllm")
    assert "16 local heads (pad to 64) vs 128 gathered heads (pad to 128)" in r.reason
    assert refusal("v3.2", Parallel(tp=8, dcp=4), "vllm") is None
    assert refusal("v3.2", Parallel(tp=8, dcp=8), "vllm", precision=ALL_BF16) is None  # the BF16 kernel: no limit
    r = refused("v3.2", Parallel(tp=2, dcp=2), "vllm")  # 64 heads a rank: not the mixed-batch path
    assert "num_heads < 32" in r.reason and "a rank holds 64" in r.reason


def test_a_model_an_engine_offers_no_dcp_for_is_refused_with_its_reason():
    r = refused("gpt-oss-120b", Parallel(tp=8, dcp=2), "vllm")
    assert "DCP not support sliding window" in r.reason and "kv_cache_interface.py:960-964" in r.source
    r = refused("gpt-oss-120b", Parallel(tp=8, dcp=2), "sglang")
    assert "never widens under DCP" in r.reason and r.source == "sglang/srt/mem_cache/kv_cache_configurator.py:406-409"
    assert "no DCP path" in refused("v4-flash", Parallel(tp=8, dcp=2), "sglang").reason
    assert refused("v4-flash", Parallel(tp=8, dcp=2), "vllm").rule == "dcp"
    assert refusal("gpt-oss-120b", Parallel(tp=8, dcp=2), "theory") is None
    assert refusal("kimi-k2", (8, 1, 1, 8), "sglang") is None and refused("v3.2", (8, 1, 1, 0), "vllm").rule == "dcp"
    r = refused("v3.2", Parallel(tp=8, dcp=8), "sglang")  # DSA under DCP: trtllm-gen, Blackwell's only
    assert "SM100" in r.reason and "dsa_dcp.py:65-97" in r.source and "flashinfer-ai/flashinfer#1466" in r.source


def test_the_module_docstring_cites_every_file_a_dcp_refusal_names():
    found = [refused(m, lay, e) for m, lay, e in (
        ("v3.2", Parallel(tp=8, dcp=3), "vllm"), ("kimi-k2", Parallel(tp=8, dcp=3), "sglang"),
        ("v3.2", Parallel(tp=8, dcp=8), "sglang"),
        ("llama-3.1-8b", Parallel(tp=8, dcp=2), "vllm"), ("v3.2", Parallel(tp=8, dcp=8), "vllm"),
        ("gpt-oss-120b", Parallel(tp=8, dcp=2), "vllm"), ("gpt-oss-120b", Parallel(tp=8, dcp=2), "sglang"),
        ("v4-flash", Parallel(tp=8, dcp=2), "vllm"), ("v4-flash", Parallel(tp=8, dcp=2), "sglang"),
    )]
    files = {f for r in found for f in re.findall(r"([\w/]+\.py)", r.source)} - {"core/layouts.py"}
    assert not {f for f in files if f.rsplit("/", 1)[-1] not in L.__doc__}
