"""The open presets, imported from published config.json files, against values worked out by
hand from those files (2 bytes per BF16 element, K and V per KV head), and the DeepSeek
presets against the article's own V3 and V3.2 numbers."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import core
from core import ALL_BF16, DEPLOYED, Precision
from core.capacity import plan, request_bytes
from core.config_import import import_config
from core.open_models import CONFIGS, OPEN_IMPORTS, OPEN_MODELS
from core.summary import summarise
from core.variants import VARIANTS

N = 131072
CONTEXTS = (1, 100, 127, 128, 129, 1023, 1024, 1025, 2048, 2049, 4096, 65536, N, 1 << 20)
BF16 = Precision.every("bf16")
FP8 = Precision.every("fp8")
FP8_BLOCK = Precision.every("fp8_block")

# Bytes per token a global layer adds (K and V of every KV head, 2 bytes each), and full local KV
# (sliding layers × window × the same entry), from each config by hand.
HAND = {
    "llama-3.1-8b": dict(storage=32 * 2 * 8 * 128 * 2, local=0),  # 131,072 B/token
    "llama-3.1-70b": dict(storage=80 * 2 * 8 * 128 * 2, local=0),  # 327,680 B/token
    "qwen3-8b": dict(storage=36 * 2 * 8 * 128 * 2, local=0),  # head_dim 128 given
    "qwen3-32b": dict(storage=64 * 2 * 8 * 128 * 2, local=0),  # head_dim 128, not 5120 / 64 = 80
    # 34 layers, every 6th global (layers 6, 12, 18, 24, 30): 5 global, 29 sliding over 1,024
    "gemma-3-4b": dict(storage=5 * 2 * 4 * 256 * 2, local=29 * 1024 * 2 * 4 * 256 * 2),
    "gpt-oss-20b": dict(storage=12 * 2 * 8 * 64 * 2, local=12 * 128 * 2 * 8 * 64 * 2),
    "gpt-oss-120b": dict(storage=18 * 2 * 8 * 64 * 2, local=18 * 128 * 2 * 8 * 64 * 2),
    "kimi-k2": dict(storage=61 * (512 + 64) * 2, local=0),  # MLA: latent + RoPE key
    "mistral-7b-v0.1": dict(storage=0, local=32 * 4096 * 2 * 8 * 128 * 2),  # every layer slides
    "deepseek-v3": dict(storage=61 * (512 + 64) * 2, local=0),
    "deepseek-v3.2": dict(storage=61 * ((512 + 64) * 2 + 128 * 2), local=0),  # + the index key, BF16 too
    # 2025–26. A Gated DeltaNet layer (Qwen3-Next, Qwen3.5) holds a convolution over its last 3 inputs
    # (kernel 4 − 1) of 2 × 16 key heads × 128 + value heads × 128 channels, and a value heads × 128 × 128
    # recurrent state: BF16 in Qwen3-Next, FP32 where Qwen3.5's mamba_ssm_dtype says so
    "qwen3-next-80b-a3b": dict(storage=12 * 2 * 2 * 256 * 2, local=0,  # every 4th of 48 layers attends
                               state=36 * (3 * (2 * 16 * 128 + 32 * 128) * 2 + 32 * 128 * 128 * 2)),
    "qwen3.5-27b": dict(storage=16 * 2 * 4 * 256 * 2, local=0,
                        state=48 * (3 * (2 * 16 * 128 + 48 * 128) * 2 + 48 * 128 * 128 * 4)),
    "qwen3.5-35b-a3b": dict(storage=10 * 2 * 2 * 256 * 2, local=0,
                            state=30 * (3 * (2 * 16 * 128 + 32 * 128) * 2 + 32 * 128 * 128 * 4)),
    "qwen3.5-397b-a17b": dict(storage=15 * 2 * 2 * 256 * 2, local=0,
                              state=45 * (3 * (2 * 16 * 128 + 64 * 128) * 2 + 64 * 128 * 128 * 4)),
    # Kimi Delta Attention: q, k, v convolutions over 3 inputs of 32 heads × 128, an FP32 32 × 128 × 128
    # state; 7 of 27 layers are MLA
    "kimi-linear-48b-a3b": dict(storage=7 * (512 + 64) * 2, local=0,
                                state=20 * (3 * 3 * 32 * 128 * 2 + 32 * 128 * 128 * 4)),
    "kimi-k2.5": dict(storage=61 * (512 + 64) * 2, local=0),
    # Mamba2: a convolution over 3 inputs of heads × 64 + 2 × 8 groups × state channels, an SSM state of
    # heads × 64 × state in FP32 (the file's mamba_ssm_cache_dtype; vLLM's default for Nemotron-H);
    # the pattern's '-' and 'E' layers (MLP, MoE) cache nothing
    "nemotron-3-nano-30b-a3b": dict(storage=6 * 2 * 2 * 128 * 2, local=0,
                                    state=23 * (3 * (64 * 64 + 2 * 8 * 128) * 2 + 64 * 64 * 128 * 4)),
    "nemotron-h-56b": dict(storage=10 * 2 * 8 * 128 * 2, local=0,  # attention_head_dim 128
                           state=54 * (3 * (256 * 64 + 2 * 8 * 256) * 2 + 256 * 64 * 256 * 4)),
    # Mamba1: the inner width 2 × 4,096, a convolution over 3 inputs and a state of 16 per channel; every
    # 8th layer (offset 4) attends
    "jamba-1.5-mini": dict(storage=4 * 2 * 8 * 128 * 2, local=0, state=28 * (3 * 8192 * 2 + 8192 * 16 * 2)),
    # full every 5th of 30; the last 10 layers share: 4 full and 16 sliding layers store
    "gemma-3n-e2b": dict(storage=4 * 2 * 2 * 256 * 2, local=16 * 512 * 2 * 2 * 256 * 2),
    # full layers: 2 global KV heads × 512; sliding ones 8 × 256
    "gemma-4-26b-a4b": dict(storage=5 * 2 * 2 * 512 * 2, local=25 * 1024 * 2 * 8 * 256 * 2),
    # full layers: 4 KV heads, K 192 + V 128; sliding ones 8 KV heads, same widths, window 128
    "mimo-v2-flash": dict(storage=9 * 4 * (192 + 128) * 2, local=39 * 128 * 8 * (192 + 128) * 2),
    "minimax-m2.7": dict(storage=62 * 2 * 8 * 128 * 2, local=0),  # attn_type_list: every layer full
    "glm-5": dict(storage=78 * ((512 + 64) * 2 + 128 * 2), local=0),
    "glm-5.1": dict(storage=78 * ((512 + 64) * 2 + 128 * 2), local=0),
    "qwen3-235b-a22b": dict(storage=94 * 2 * 4 * 128 * 2, local=0),
    "llama-4-scout": dict(storage=48 * 2 * 8 * 128 * 2, local=0),  # chunked layers at full length, as vLLM
    "olmo-3-7b": dict(storage=8 * 2 * 32 * 128 * 2, local=24 * 4096 * 2 * 32 * 128 * 2),
    "phi-4-mini": dict(storage=32 * 2 * 8 * 128 * 2, local=0),  # its window (262,144) exceeds any context
    # Granite's Mamba2 names: inner width 2 × 4,096, a convolution over 3 inputs of 8,192 + 2 × 1 group × 128
    # channels, 128 heads × 64 × 128 of BF16 state; attention at layers 5, 15, 25, 35
    "granite-4.0-h-small": dict(storage=4 * 2 * 8 * 128 * 2, local=0,
                                state=36 * (3 * (8192 + 2 * 128) * 2 + 128 * 64 * 128 * 2)),
    # lightning attention: 64 heads × 128 × 128 per layer, no convolution; every 8th of 80 layers softmax
    "minimax-m1-80k": dict(storage=10 * 2 * 8 * 128 * 2, local=0, state=70 * 64 * 128 * 128 * 2),
}
DESIGNS = {
    "llama-3.1-8b": "GQA", "llama-3.1-70b": "GQA", "qwen3-8b": "GQA", "qwen3-32b": "GQA",
    "gemma-3-4b": "hybrid local/global GQA",
    "gpt-oss-20b": "hybrid local/global GQA", "gpt-oss-120b": "hybrid local/global GQA", "kimi-k2": "MLA",
    "mistral-7b-v0.1": "sliding-window GQA", "deepseek-v3": "MLA", "deepseek-v3.2": "MLA + DSA indexer",
    "qwen3-next-80b-a3b": "hybrid GDN + GQA", "qwen3.5-27b": "hybrid GDN + GQA", "qwen3.5-35b-a3b": "hybrid GDN + GQA",
    "qwen3.5-397b-a17b": "hybrid GDN + GQA", "kimi-linear-48b-a3b": "hybrid KDA + MLA", "kimi-k2.5": "MLA",
    "nemotron-3-nano-30b-a3b": "hybrid Mamba2 + GQA", "nemotron-h-56b": "hybrid Mamba2 + GQA",
    "jamba-1.5-mini": "hybrid Mamba1 + GQA", "gemma-3n-e2b": "hybrid local/global GQA",
    "gemma-4-26b-a4b": "hybrid local/global GQA", "mimo-v2-flash": "hybrid local/global GQA", "minimax-m2.7": "GQA",
    "glm-5": "MLA + DSA indexer", "glm-5.1": "MLA + DSA indexer", "qwen3-235b-a22b": "GQA", "llama-4-scout": "GQA",
    "olmo-3-7b": "hybrid local/global MHA", "phi-4-mini": "GQA", "granite-4.0-h-small": "hybrid Mamba2 + GQA",
    "minimax-m1-80k": "hybrid Lightning + GQA",
}


def test_the_presets_are_at_least_the_families_the_issue_names():
    assert set(OPEN_MODELS) == set(HAND)
    assert all(m.id == model_id and model_id == model_id.lower() for model_id, m in OPEN_MODELS.items())


@pytest.mark.parametrize("model_id", HAND)
def test_storage_per_token_and_local_kv_at_bf16_match_the_hand_computed_values(model_id):
    assert core.storage_per_token(model_id, BF16).total == HAND[model_id]["storage"]
    assert core.local_kv(model_id, BF16) == HAND[model_id]["local"]
    assert core.state_bytes(model_id) == HAND[model_id].get("state", 0)
    assert OPEN_IMPORTS[model_id].design == DESIGNS[model_id]


@pytest.mark.parametrize("model_id", HAND)
def test_an_open_model_deploys_bf16_so_deployed_and_bf16_agree(model_id):
    for n in CONTEXTS:
        assert core.cache_at(model_id, n, DEPLOYED) == core.cache_at(model_id, n, BF16) == core.cache_at(
            model_id, n, ALL_BF16)


def test_llama_3_1_8b_cache_and_reads_at_128k():
    per_token = 32 * 2 * 8 * 128 * 2
    assert core.cache_at("llama-3.1-8b", N, BF16).total == per_token * N
    assert core.reads("llama-3.1-8b", N, BF16).total == per_token * N  # a dense layer reads all it holds


def test_gemma_3_local_layers_stop_growing_at_their_window_and_global_ones_grow_per_token():
    entry = 2 * 4 * 256 * 2
    for n in (10, 1024, 5000, N):
        c = core.cache_at("gemma-3-4b", n, BF16)
        assert c.main_kv == 5 * entry * n
        assert c.local_kv == 29 * entry * min(n, 1024)
    assert core.crossover_tokens("gemma-3-4b", BF16) == 29 * 1024 // 5 + 1  # 5,939.2 → 5,940


def test_gemma_3_global_layers_are_every_sixth_from_the_config_class_default():
    layers = core.get("gemma-3-4b").layers
    assert [i for i, ly in enumerate(layers) if ly.kind != "SWA"] == [5, 11, 17, 23, 29]


def test_gpt_oss_alternates_sliding_and_full_layers_as_its_layer_types_say():
    config = json.loads((CONFIGS / "gpt-oss-120b.json").read_text())
    kinds = ["SWA" if t == "sliding_attention" else "GQA" for t in config["layer_types"]]
    assert [ly.kind for ly in core.get("gpt-oss-120b").layers] == kinds == ["SWA", "GQA"] * 18


def test_mistral_v0_1_grows_by_nothing_once_its_window_is_full():
    full = core.cache_at("mistral-7b-v0.1", 4096, BF16).total
    assert full == 32 * 4096 * 2 * 8 * 128 * 2
    assert core.cache_at("mistral-7b-v0.1", 1 << 20, BF16).total == full
    assert core.crossover("mistral-7b-v0.1", BF16) is None
    assert core.ratio_to("mistral-7b-v0.1", "llama-3.1-8b", BF16) == float("inf")
    assert core.reads("mistral-7b-v0.1", N, BF16).kv == full


@pytest.mark.parametrize("model_id", ["llama-3.1-8b", "qwen3-32b", "gemma-3-4b", "gpt-oss-120b", "mistral-7b-v0.1"])
def test_fp8_as_vllm_caches_it_is_one_byte_per_element(model_id):
    for n in CONTEXTS:
        bf16, fp8 = core.cache_at(model_id, n, BF16), core.cache_at(model_id, n, FP8)
        assert 2 * fp8.total == bf16.total


def test_fp8_with_per_block_scales_adds_an_fp32_scale_per_128_values():
    entry = 2 * 8 * 128  # Llama 3.1 8B: 2,048 values per token per layer
    assert core.entry_bytes(core.get("llama-3.1-8b"), FP8_BLOCK)["main_kv"] == entry + entry // 128 * 4


# --- DeepSeek from its configs equals the article's specs ----------------------------------


@pytest.mark.parametrize("preset,article,p_open,p_article", [
    ("deepseek-v3", "v3", BF16, DEPLOYED),  # the article's V3 caches BF16: 70,272 B/token
    ("deepseek-v3", "v3", BF16, ALL_BF16),
    ("deepseek-v3.2", "v3.2", FP8_BLOCK, DEPLOYED),  # FlashMLA's 656 B + the 132 B index key: 48,068
    ("deepseek-v3.2", "v3.2", BF16, ALL_BF16),  # 85,888
])
def test_deepseek_presets_from_their_configs_equal_the_articles_numbers(preset, article, p_open, p_article):
    assert core.storage_per_token(preset, p_open) == core.storage_per_token(article, p_article)
    ns = np.array(CONTEXTS)
    for fn in (core.cache_at, core.reads):
        a, b = fn(preset, ns, p_open), fn(article, ns, p_article)
        for part in ("main_kv", "index_key", "local_kv"):
            np.testing.assert_array_equal(np.broadcast_to(getattr(a, part), ns.shape),
                                          np.broadcast_to(getattr(b, part), ns.shape))


def test_the_articles_headline_numbers_come_out_of_the_deepseek_configs():
    assert core.storage_per_token("deepseek-v3", BF16).total == 70272
    assert core.storage_per_token("deepseek-v3.2", FP8_BLOCK).total == 48068


def test_deepseek_presets_have_the_articles_widths():
    assert core.get("deepseek-v3").dims == core.get("v3").dims
    assert core.get("deepseek-v3.2").dims == core.get("v3.2").dims
    assert core.get("deepseek-v3.2").index_topk == core.get("v3.2").index_topk == 2048


# --- what a capacity planner reads -----------------------------------------------------------


@pytest.mark.parametrize("model_id", HAND)
def test_every_preset_has_a_parameter_count_and_the_url_of_its_config(model_id):
    m = OPEN_MODELS[model_id]
    assert m.parameters > 1_000_000_000
    assert re.fullmatch(r"https://huggingface\.co/[\w.-]+/[\w.-]+/blob/main/config\.json", m.source)


def test_the_fixture_readme_lists_every_presets_source_and_every_file_is_a_preset():
    readme = (CONFIGS / "README.md").read_text(encoding="utf-8")
    for model_id, m in OPEN_MODELS.items():
        assert f"| `{model_id}.json` | {m.source} |" in readme
    # and V4-Flash's published config, which the article's own spec is checked against
    assert {p.stem for p in CONFIGS.glob("*.json")} == {*OPEN_MODELS, "deepseek-v4-flash.config"}


def test_presets_resolve_by_id_everywhere_a_model_id_is_taken():
    s = summarise("qwen3-8b", N, BF16)
    assert s.model is core.get("qwen3-8b") and s.storage.total == 147456
    assert core.get("kimi-k2").name == "Kimi K2"


def test_open_models_offer_bf16_fp8_and_where_they_fit_fp8_block_and_fp4():
    for m in OPEN_MODELS.values():
        assert m.precisions == ("bf16", "fp8", "fp8_block", "fp4")
    assert core.get("v3.2").precisions == ("bf16", "fp8", "fp4")


def test_the_import_of_a_preset_says_what_it_read_and_what_the_config_class_supplied():
    gemma = OPEN_IMPORTS["gemma-3-4b"]
    assert gemma.used["text_config.sliding_window"] == 1024
    assert gemma.defaulted["text_config.head_dim"] == (256, "Gemma3TextConfig default")
    assert gemma.defaulted["text_config.num_key_value_heads"] == (4, "Gemma3TextConfig default")
    assert gemma.defaulted["text_config.sliding_window_pattern"] == (6, "Gemma3TextConfig default")
    assert "vision_config" in gemma.ignored and "text_config.intermediate_size" in gemma.ignored
    qwen = OPEN_IMPORTS["qwen3-32b"]
    assert qwen.used["use_sliding_window"] is False and "sliding_window" in qwen.ignored
    assert OPEN_IMPORTS["llama-3.1-8b"].defaulted["head_dim"][0] == 4096 // 32


# --- layers that are not plain attention -----------------------------------------------------


def test_a_state_is_held_once_per_sequence_at_any_context_and_read_by_every_step():
    growth, state = HAND["qwen3-next-80b-a3b"]["storage"], HAND["qwen3-next-80b-a3b"]["state"]
    for n in (1, 4096, N):
        held, read = core.cache_at("qwen3-next-80b-a3b", n, BF16), core.reads("qwen3-next-80b-a3b", n, BF16)
        assert (held.main_kv, held.state, held.total) == (growth * n, state, growth * n + state)
        assert read.state == state and read.kv == growth * n  # a full layer reads all it holds


def test_a_state_is_the_engines_dtype_whatever_the_kv_precision():
    assert core.state_bytes("qwen3.5-27b") == HAND["qwen3.5-27b"]["state"]
    for p in (FP8, FP8_BLOCK):
        assert core.cache_at("qwen3.5-27b", N, p).state == HAND["qwen3.5-27b"]["state"]
        assert core.cache_at("qwen3.5-27b", N, p).main_kv < core.cache_at("qwen3.5-27b", N, BF16).main_kv


def test_a_request_holds_its_state_in_the_planner_too():
    assert request_bytes("nemotron-3-nano-30b-a3b", N, BF16).state == HAND["nemotron-3-nano-30b-a3b"]["state"]


def test_shared_kv_layers_store_nothing_but_read_the_kv_they_share():
    entry = 2 * 2 * 256 * 2  # Gemma 3n E2B: 2 KV heads × 256, K and V, BF16
    layers = core.get("gemma-3n-e2b").layers
    assert [ly.kv_from for ly in layers[20:]] == [18, 18, 18, 18, 19] * 2  # the last sliding / full before them
    for n in (100, N):
        held, read = core.cache_at("gemma-3n-e2b", n, BF16), core.reads("gemma-3n-e2b", n, BF16)
        assert (held.main_kv, held.local_kv) == (4 * entry * n, 16 * entry * min(n, 512))
        assert (read.main_kv, read.local_kv) == (6 * entry * n, 24 * entry * min(n, 512))


def test_lightning_attention_holds_a_heads_by_head_dim_squared_state():
    # MiniMax-Text-01's layout and widths: 80 layers, every 8th softmax attention, 64 heads × 128
    text = json.dumps({"model_type": "minimax", "num_hidden_layers": 80, "attn_type_list": ([0] * 7 + [1]) * 10,
                       "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 6144})
    m = import_config(text).model
    assert core.state_bytes(m) == 70 * 64 * 128 * 128 * 2
    assert core.storage_per_token(m, BF16).total == 10 * 2 * 8 * 128 * 2


def test_deepseek_v4_flash_from_its_config_is_the_articles_v4_flash():
    imported = import_config((CONFIGS / "deepseek-v4-flash.config.json").read_bytes())
    m, article = imported.model, core.get("v4-flash")
    assert [(ly.kind, ly.ratio) for ly in m.layers] == [(ly.kind, ly.ratio) for ly in article.layers]
    deployed = Precision("bf16", main_kv="fp8", index_key="fp4", local_kv="fp8")  # the article's formats
    for p_open, p_article in ((BF16, ALL_BF16), (deployed, DEPLOYED)):
        assert core.storage_per_token(m, p_open) == core.storage_per_token(article, p_article)
        for n in CONTEXTS:
            assert core.cache_at(m, n, p_open) == core.cache_at(article, n, p_article)
            assert core.reads(m, n, p_open) == core.reads(article, n, p_article)


def test_a_non_standard_literal_in_a_field_the_import_does_not_read_is_noted():
    assert "time_step_limit is Infinity, which JSON does not allow; the import does not read it" in OPEN_IMPORTS[
        "nemotron-h-56b"].notes


def test_mtp_layers_are_not_counted_and_the_import_says_so():
    assert any("MTP layers are not counted" in note for note in OPEN_IMPORTS["qwen3.5-27b"].notes)
    assert core.get("qwen3.5-27b").n_layers == 64


def test_each_tensor_parallel_rank_holds_a_tp_th_of_a_requests_state():
    state = HAND["kimi-linear-48b-a3b"]["state"]  # beside MLA, whose latent every rank holds whole
    one, four = (plan("kimi-linear-48b-a3b", N, "h100-sxm", 0, BF16, tp=tp) for tp in (1, 4))
    assert one.per_request_per_gpu_bytes - four.per_request_per_gpu_bytes == state - state // 4


def test_the_mtp_switch_counts_the_mtp_layers_as_the_engines_allocate_them():
    raw = (CONFIGS / "deepseek-v3.json").read_bytes()
    counted = import_config(raw, mtp=True)
    assert counted.model.n_layers == 62 and any("MTP layers are counted" in note for note in counted.notes)
    mtp_variant = VARIANTS["mtp-layer"].apply("v3")  # the article's "with the MTP layer"
    assert core.storage_per_token(counted.model, BF16).total == mtp_variant.storage_per_token().total == 71_424
    assert import_config(raw).model.n_layers == 61  # off by default
