"""What vLLM 0.34.0 and SGLang 0.5.23 allocate (core.engines), held against the formulas of their
source, for every layer kind the importer reads. Each expected number is worked out here from the
formula its comment cites (file:lines at the release read, as core.engines.RULES names them), never
from core.engines' own helpers."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import core
import core.open_models  # noqa: F401  (registers the presets)
from core import engines
from core.config_import import import_config
from core.cost import ALL_BF16, DEPLOYED, Precision
from core.engines import EngineError, allocation
from core.registry import get

N = 131_072


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def round_up(a: int, b: int) -> int:
    return cdiv(a, b) * b


def rules(a) -> set[str]:
    return {r.id for r in a.rules}


# --- plain attention: pages of whole blocks ------------------------------------------------------


def test_gqa_in_whole_blocks_of_64_tokens_in_vllm_and_of_1_token_in_sglang():
    # vllm/config/cache.py:185 (64 tokens); FullAttentionSpec page = B × H_kv × (D + D_v) × 2 B
    per_layer = 8 * (128 + 128) * 2  # Llama 3.1 8B: 8 KV heads of 128
    v = allocation("llama-3.1-8b", 1000, ALL_BF16, "vllm")
    assert v.charge == 32 * cdiv(1000, 64) * 64 * per_layer == 134_217_728
    # sglang overrides.py:1341-1363 (page_size 1): a token's cell × tokens
    s = allocation("llama-3.1-8b", 1000, ALL_BF16, "sglang")
    assert s.charge == 32 * 1000 * per_layer == 131_072_000
    assert v.per_token == s.per_token == core.storage_per_token("llama-3.1-8b", ALL_BF16).total == 131_072
    assert "block" in rules(v) and "page" in rules(s)


def test_the_hypothetical_mha_caches_every_heads_key_and_value_in_both_engines():
    for engine in ("vllm", "sglang"):  # 60 layers × 128 heads × (128 + 128) × 2 B
        assert allocation("mha", N, DEPLOYED, engine).per_token == 60 * 128 * 256 * 2 == 3_932_160


def test_tp_beyond_the_kv_heads_leaves_one_head_a_rank():
    # vllm/config/model.py:1683-1703, sglang model_config.py:1700-1711: max(1, heads // tp)
    for engine in ("vllm", "sglang"):
        assert allocation("llama-3.1-8b", N, ALL_BF16, engine, tp=4).per_token == 32 * 2 * (128 + 128) * 2
        assert allocation("llama-3.1-8b", N, ALL_BF16, engine, tp=16).per_token == 32 * 1 * (128 + 128) * 2


def test_the_users_block_size_is_kept_where_the_kernels_allow_it():
    a = allocation("llama-3.1-8b", 1000, ALL_BF16, "vllm", block=16)
    assert a.held[0].tokens == 16 and a.charge == 32 * cdiv(1000, 16) * 16 * 4096
    assert allocation("llama-3.1-8b", 1000, ALL_BF16, "vllm", block=1).held[0].tokens == 16  # MultipleOf(16)
    assert allocation("llama-3.1-8b", 1000, ALL_BF16, "sglang", block=16).held[0].tokens == 16


# --- MLA, DSA: the byte layouts -------------------------------------------------------------------


def test_fp8_mla_on_dense_kernels_is_576_bytes_not_the_scaled_656():
    # mla_attention.py:490: head_size 576, uint8 with a per-tensor scale; sglang memory_pool.py:4793-4797
    fp8 = Precision(main_kv="fp8")
    assert core.storage_per_token("v3", fp8).total == 61 * 656  # the theory: DeepSeek's scaled FP8
    for engine in ("vllm", "sglang"):
        a = allocation("v3", N, fp8, engine)
        assert a.per_token == 61 * 576 and "mla-fp8" in rules(a)
        assert allocation("v3", N, ALL_BF16, engine).per_token == 61 * 1152


def test_v32_keeps_its_scaled_656_b_entry_and_an_fp8_index_key_whatever_the_dtype():
    # backend.py:1017-1018 (fp8_ds_mla 656 B); deepseek_v2.py:724-736 (index key 128 + 4 B, uint8)
    for engine in ("vllm", "sglang"):
        deployed = allocation("v3.2", N, DEPLOYED, engine)
        assert deployed.per_token == 61 * (656 + 132) == 48_068 and deployed.charge == 61 * N * 788
        bf16 = allocation("v3.2", N, ALL_BF16, engine)
        assert core.storage_per_token("v3.2", ALL_BF16).total == 61 * (1152 + 256)
        assert bf16.per_token == 61 * (1152 + 132) == 78_324 and "index-fp8" in rules(bf16)


def test_dsa_takes_blocks_and_pages_of_64_tokens():
    # flashmla_sparse.py:165-173, indexer.py:237-238; sglang model_overrides/deepseek_v2.py:160-175
    assert allocation("v3.2", 1000, DEPLOYED, "vllm", block=16).held[0].tokens == 64
    s = allocation("v3.2", 1000, DEPLOYED, "sglang")
    assert s.held[0].tokens == 64 and s.charge == cdiv(1000, 64) * 64 * 48_068 and "dsa-page" in rules(s)


# --- sliding windows -------------------------------------------------------------------------------


def test_vllm_frees_blocks_behind_the_window():
    # gpt-oss-120b: 18 full + 18 sliding layers (W = 128), 8 KV heads of 64: 2,048 B a token and layer.
    # single_type_kv_cache_manager.py:1153-1188: ⌈(W − 1)/B⌉ + 1 = 3 blocks of 64 at most
    a = allocation("gpt-oss-120b", N, ALL_BF16, "vllm")
    assert a.charge == 18 * N * 2048 + 18 * 3 * 64 * 2048 == 4_838_916_096
    assert a.per_token == 18 * 2048 and {"window", "window-reserve"} <= rules(a)
    # with the hybrid manager off, promoted to full attention (kv_cache_planning.py:783-856)
    off = allocation("gpt-oss-120b", N, ALL_BF16, "vllm", hybrid=False)
    assert off.charge == 36 * N * 2048 and "no-hybrid" in rules(off)


def test_vllm_pads_a_kinds_last_group_with_layers_that_take_pages():
    # Gemma 3 4B: 5 full, 29 sliding (W = 1,024); group size 5 (29 ≥ 1.5 × 5), so 6 sliding groups of 5
    # (kv_cache_planning.py:462-602); 4 KV heads of 256: 4,096 B a token and layer
    m = get("gemma-3-4b")
    assert (m.count(lambda ly: ly.kind == "GQA"), m.n_windowed, m.window) == (5, 29, 1024)
    a = allocation(m, N, ALL_BF16, "vllm")
    assert a.charge == 5 * N * 4096 + 30 * (cdiv(1023, 64) + 1) * 64 * 4096 == 2_818_048_000
    assert "groups" in rules(a)


def test_sglangs_window_pool_is_sized_from_the_full_pool():
    # pool_configurator.py:797-803, 880-881: cell = full + 0.8 × sliding; the window pool keeps 0.8 as
    # many tokens as the full pool, so a long request's charge is its full tokens × cell
    a = allocation("gpt-oss-120b", N, ALL_BF16, "sglang")
    full, sliding = 18 * 2048, 18 * 2048
    cell = full + Fraction(8, 10) * sliding
    assert a.per_token == cell == Fraction(331_776, 5)
    assert a.charge == cdiv(N * full * cell.numerator, full * cell.denominator) == 8_697_308_775
    assert {"swa-pool", "swa-evict"} <= rules(a)


def test_sglang_gives_sliding_layers_the_whole_context_off_its_list():
    # model_overrides/gemma2_gemma3.py:13-26: Gemma 3's sliding layers get a full pool
    a = allocation("gemma-3-4b", N, ALL_BF16, "sglang")
    assert a.charge == 34 * N * 4096 and "no-swa-pool" in rules(a)
    # every layer of Mistral 7B v0.1 slides (W = 4,096): vLLM keeps windows, SGLang the whole context
    assert allocation("mistral-7b-v0.1", N, ALL_BF16, "vllm").per_token == 0
    assert allocation("mistral-7b-v0.1", N, ALL_BF16, "sglang").per_token == 32 * 8 * 256 * 2


def test_shared_kv_layers_allocate_nothing_in_vllm_and_a_page_in_sglang():
    # vllm v1/worker/gpu/attn_utils.py:140-147; sglang gemma3n_causal.py:374-385, layer_setup.py:214-220
    m = get("gemma-3n-e2b")
    shared = [ly for ly in m.layers if ly.shared]
    assert shared
    v, s = (allocation(m, N, ALL_BF16, e) for e in ("vllm", "sglang"))
    assert sum(h.layers for h in v.held) == m.n_layers - len(shared)
    per = 2 * (m.dims.head_dim * 2) * 2  # 2 KV heads of 256, K and V, 2 B
    assert m.dims.num_key_value_heads == 2 and s.per_token == m.n_layers * per  # Gemma 3n: no window pool
    assert {"shared", "no-swa-pool"} <= rules(s)


# --- states -------------------------------------------------------------------------------------------


def vllm_hybrid(m, attn_per_token: int, mla: bool, pages: int, groups: dict[str, int], n: int = N) -> int:
    """interface.py:1088-1140: a = max(B, least kernel block (16; 128 for MLA)); B' = a × ⌈S / (a × P)⌉;
    every state page padded to B' × P; kv_cache_interface.py:1168-1174: `pages` a state layer."""
    B = 64
    a = max(B, 128 if mla else 16)
    block = max(B, a * cdiv(m.state.nbytes, a * attn_per_token))
    page = block * attn_per_token
    return groups["full"] * cdiv(n, block) * page + groups["state"] * pages * page


@pytest.mark.parametrize("model, attn, mla, pages, groups", [
    # Nemotron-H 56B: 10 GQA + 54 Mamba2 (3 pages: mamba_mixer2.py:1089-1099); groups of 10, Mamba2 padded to 60
    ("nemotron-h-56b", 8 * 256 * 2, False, 3, {"full": 10, "state": 60}),
    # GDN: FlashInfer's prefill on Hopper, so a checkpoint page too (qwen_gdn_linear_attn.py:321-344, 901-911)
    ("qwen3-next-80b-a3b", 2 * 512 * 2, False, 3, {"full": 12, "state": 36}),
    # KDA beside MLA; 20 padded to 21. Kimi Linear names no gate_lower_bound, so its prefill is Triton's, which
    # exports no checkpoint (kimi_k3/nvidia/kda.py:370-386, 493-532, 922-930): 2 pages
    ("kimi-linear-48b-a3b", 576 * 2, True, 2, {"full": 7, "state": 21}),
    ("jamba-1.5-mini", 8 * 256 * 2, False, 2, {"full": 4, "state": 28}),  # Mamba1
    ("minimax-m1-80k", 8 * 256 * 2, False, 2, {"full": 10, "state": 70}),  # lightning attention
])
def test_vllm_pads_each_state_to_an_attention_page(model, attn, mla, pages, groups):
    m = get(model)
    a = allocation(m, N, ALL_BF16, "vllm")
    assert a.charge == vllm_hybrid(m, attn, mla, pages, groups)
    assert {"state-page", "state-pages"} <= rules(a)


@pytest.mark.parametrize("model, slots", [
    # overrides.py:403-435, 453-487: on the extra_buffer list, with overlap scheduling on (its default): 3 + 2
    ("nemotron-h-56b", 5), ("qwen3-next-80b-a3b", 5), ("kimi-linear-48b-a3b", 5),
    ("jamba-1.5-mini", 3),  # not on it: no_buffer, 3 slots (kv_cache_configurator.py:227)
])
def test_sglang_sets_0_9_of_1_9_of_the_budget_aside_for_states(model, slots):
    # kv_cache_configurator.py:3350-3385: states 0.9/1.9, KV 1/1.9; slots a running request (:3062-3088);
    # mamba_utils.py:68-71: the SSM state FP32
    m = get(model)
    state = sum(v * (2 if what == "convolution" else 4) for what, v, _ in m.state.parts)
    for n in (N, 8192):
        a = allocation(m, n, ALL_BF16, "sglang")
        kv = n * core.storage_per_token(m, ALL_BF16).total
        assert a.charge == max(cdiv(kv * 19, 10), cdiv(slots * state * m.n_state * 19, 9))
    assert a.per_token == Fraction(19, 10) * core.storage_per_token(m, ALL_BF16).total
    assert ("state-extra" if slots == 5 else "state-slots") in rules(a)


def test_gated_deltanet_holds_three_pages_in_vllm_on_hopper():
    # Qwen3-Next, BF16: a GDN layer's state (3 × (2 × 16 × 128 + 32 × 128) + 32 × 128 × 128) × 2 = 1,097,728 B;
    # attention 2 KV heads × (256 + 256) × 2 = 2,048 B a token; block 64 × ⌈1,097,728 / (64 × 2,048)⌉ = 576,
    # page 576 × 2,048 = 1,179,648 B; 12 full layers, 36 GDN in groups of 12; 3 pages a GDN layer with prefix caching
    # on (config.py:1094-1096 align mode; kv_cache_interface.py:1168-1174: 2 + 1 checkpoint page)
    m = get("qwen3-next-80b-a3b")
    assert (3 * (2 * 16 * 128 + 32 * 128) + 32 * 128 * 128) * 2 == m.state.nbytes == 1_097_728
    page = 576 * 2048
    assert allocation(m, N, ALL_BF16, "vllm").charge == (12 * 228 + 36 * 3) * page == 3_354_918_912
    assert allocation(m, 8192, ALL_BF16, "vllm").charge == (12 * 15 + 36 * 3) * page == 339_738_624
    # a user's 16-token block: GDN's checkpoints lie on a 64-token grid (interface.py:1101-1106, gdn_attn.py:35),
    # so the block is raised as from 64
    small = allocation(m, N, ALL_BF16, "vllm", block=16)
    assert small.charge == 3_354_918_912 and "gdn-grid" in rules(small)


def test_sglang_gives_the_extra_buffer_architectures_five_state_slots():
    # Qwen3-Next at 8,192: a GDN state in SGLang, SSM FP32: 3 × 8,192 × 2 + 32 × 128 × 128 × 4 = 2,146,304 B;
    # 36 layers × 5 slots = 386,334,720 B over the states' 0.9/1.9: 815,595,520 B (the KV's 8,192 × 12 × 2,048 ×
    # 1.9 = 382,520,525 B binds less)
    assert 3 * 8192 * 2 + 32 * 128 * 128 * 4 == 2_146_304
    assert allocation("qwen3-next-80b-a3b", 8192, ALL_BF16, "sglang").charge == 36 * 2_146_304 * 5 * 19 // 9 \
        == 815_595_520
    # Nemotron-H 56B at 100,000: a Mamba2 state 3 × (256 × 64 + 2 × 8 × 256) × 2 + 256 × 64 × 256 × 4 = 16,900,096
    # B; 54 layers × 5 slots × 19/9 = 9,633,054,720 B, more than the KV's 100,000 × 10 × 4,096 × 1.9 = 7,782,400,000
    assert 3 * (256 * 64 + 2 * 8 * 256) * 2 + 256 * 64 * 256 * 4 == 16_900_096
    assert allocation("nemotron-h-56b", 100_000, ALL_BF16, "sglang").charge == 54 * 16_900_096 * 5 * 19 // 9 \
        == 9_633_054_720


def test_a_short_convolution_and_a_layer_with_attention_beside_its_state():
    lfm2 = import_config(json.dumps({
        "model_type": "lfm2", "num_hidden_layers": 16, "hidden_size": 2048, "num_attention_heads": 32,
        "num_key_value_heads": 8, "conv_L_cache": 3, "full_attn_idxs": [2, 5, 8, 10, 12, 14]})).model
    # 6 GQA (8 heads of 64: 2,048 B a token) + 10 short convolutions of 2 × 2,048 × 2 B = 8,192 B:
    # groups of 6, the convolutions padded to 12; B' = 64 × ⌈8,192 / (64 × 2,048)⌉ = 64
    assert engines.allocation(lfm2, N, ALL_BF16, "vllm").charge == 6 * cdiv(N, 64) * 64 * 2048 + 12 * 2 * 64 * 2048
    falcon = import_config(json.dumps({
        "model_type": "falcon_h1", "num_hidden_layers": 3, "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 2, "head_dim": 128, "mamba_d_ssm": 3072, "mamba_n_heads": 24, "mamba_d_head": 128,
        "mamba_d_state": 256, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2})).model
    a = allocation(falcon, N, ALL_BF16, "vllm")  # 3 layers, each attention and a Mamba2 state: one group each
    attn = 2 * 256 * 2
    block = 64 * cdiv(falcon.state.nbytes, 64 * attn)
    assert a.charge == 3 * cdiv(N, block) * block * attn + 3 * 3 * block * attn


# --- DeepSeek-V4's compressed caches -------------------------------------------------------------------


def test_v4_flash_in_vllms_packed_pool():
    # Every cache a page of its own (attention.py:817-881, compressor.py:139-197, sparse_swa.py:76-147), rounded up
    # to 576 B (kv_cache_interface.py:731-738): a ratio-4 layer's 64 entries of 584 B and 64 FP8 index keys of
    # 132 B a 256-token block; a ratio-128 layer's 2 entries; every layer's window, 64 tokens of 584 B; the
    # compressor states, FP32 kv and score: ratio 4, 4 tokens × 2 × 2 × 512 values (its indexer's × 128) over a
    # window of 8; ratio 128, 8 tokens × 2 × 1 × 512 over 128
    csa, key, hca = round_up(64 * 584, 576), round_up(64 * 132, 576), round_up(2 * 584, 576)
    win = round_up(64 * 584, 576)
    c4, c4_key = round_up(4 * 2 * 2 * 512 * 4, 576), round_up(4 * 2 * 2 * 128 * 4, 576)
    c128 = round_up(8 * 2 * 1 * 512 * 4, 576)
    assert (csa, key, hca, win, c4, c4_key, c128) == (37_440, 8_640, 1_728, 37_440, 32_832, 8_640, 32_832)
    # kv_cache_planning.py:958-1085: buckets of one type and block size: full attention (21 × csa, 20 × hca,
    # 21 × key), windows (43 × win), ratio-4 states (21 × c4, 21 × c4_key), ratio-128 states (20 × c128). The
    # buckets whose page sizes come in equal numbers (43; 21 and 21; 20) repeat a pattern at least 21 times; 22
    # repeats pad them least (1 + 1 + 2 = 4 layers), so the windows are cut in 2 groups (22 and 21 layers), the
    # rest stay whole. A block takes the largest group's bytes (kv_cache_planning.py:620-648):
    groups = (21 * csa + 20 * hca + 21 * key, 22 * win, 21 * win, 21 * (c4 + c4_key), 20 * c128)
    assert groups == (1_002_240, 823_680, 786_240, 870_912, 656_640)
    block = max(groups)
    # a request at 128K: 512 blocks of 256 tokens, 2 × 3 window blocks (⌈127/64⌉ + 1 each), ⌈7/4⌉ + 1 = 3 and
    # ⌈127/8⌉ + 1 = 17 state blocks
    a = allocation("v4-flash", N, DEPLOYED, "vllm")
    assert a.charge == (512 + 2 * 3 + 3 + 17) * block == 539_205_120
    assert a.per_token == Fraction(block, 256) == 3915
    assert {"v4-packed", "v4-compressor", "v4-index"} <= rules(a)
    assert allocation("v4-flash", 1, DEPLOYED, "vllm").charge == 5 * block  # one block of each group


def test_v4_flash_in_sglangs_pools():
    # pool_configurator.py:1390-1404: a full token costs the compressed entries (pages of 256/m rounded to 576 B)
    # and FP8 index keys of 132 B unpadded (the FP4 indexer is a switch: exec_.py:439-442); the window pool holds
    # 0.1 as many tokens (deepseek_v4.py:43-49), 585 B a token and layer, and a ring of 8 rows of FP32 kv and
    # score (2 × 2 × (512 + 128) × 4 B) for each window page in each ratio-4 layer (pool_configurator.py:1372-1388)
    full = Fraction(21 * (round_up(64 * 584, 576) + 64 * 132) + 20 * round_up(2 * 584, 576), 256)
    window = Fraction(1, 10) * Fraction(43 * round_up(256 * 584, 576) + 21 * 8 * 2 * 2 * (512 + 128) * 4, 256)
    assert (full, window) == (Fraction(15_597, 4), Fraction(6_375, 2))
    a = allocation("v4-flash", N, DEPLOYED, "sglang")
    assert a.per_token == full + window == Fraction(28_347, 4)
    assert a.charge == N * (full + window) == 928_874_496  # N a multiple of 256: no page rounding
    # the ratio-128 rings, 128 rows of 2 × 512 FP32 values for each of 256 + 1 request slots, rows padded to a
    # multiple of 128 (pool_configurator.py:1509-1528), in 20 layers, set aside before the pools
    rows = round_up((256 + 1) * 128 + 128 + 1, 128)
    assert a.reserved() == rows * 2 * 512 * 4 * 20 == 2_715_811_840
    assert a.reserved(dp=8) == round_up((32 + 1) * 128 + 129, 128) * 2 * 512 * 4 * 20 == 367_001_600
    assert allocation("v4-flash", N, DEPLOYED, "vllm").reserved() == 0
    assert allocation("v3.2", N, DEPLOYED, "sglang").reserved() == 0


def test_what_neither_engine_serves_is_refused_by_name():
    with pytest.raises(EngineError, match="CSA2") as e:
        allocation("v4.1-flash", N, DEPLOYED, "vllm")
    assert e.value.why == "csa2"
    with pytest.raises(EngineError, match="FP4") as e:
        allocation("v3.2", N, Precision(main_kv="fp4"), "sglang")
    assert e.value.why == "fp4"


def test_fp8_with_scales_per_128_is_one_scale_a_layer_in_both_engines():
    p = Precision.every("fp8_block")
    for engine in ("vllm", "sglang"):
        a = allocation("llama-3.1-8b", N, p, engine)
        assert a.per_token == 32 * 8 * 256 and "fp8-scale" in rules(a)
    assert core.storage_per_token("llama-3.1-8b", p).total > 32 * 8 * 256  # the theory counts the scales


def test_every_rule_names_a_file_with_lines_and_has_a_text_in_both_languages():
    from i18n import t
    for engine, table in engines.RULES.items():
        for rule in table.values():
            assert rule.engine == engine and ".py:" in rule.source and rule.what
            assert t(f"eng.rule.{engine}.{rule.id}", "en", **dict(rule.fields)) == rule.what


def test_a_longer_context_never_takes_less_and_arrays_give_what_each_context_gives():
    import numpy as np
    ns = np.array([1, 63, 64, 65, 1000, 4096, 131_072])
    for model in ("llama-3.1-8b", "gpt-oss-120b", "v3.2", "v4-flash", "nemotron-h-56b", "gemma-3-4b"):
        for engine in ("vllm", "sglang"):
            got = allocation(model, ns, DEPLOYED, engine).charge
            assert list(got) == [allocation(model, int(n), DEPLOYED, engine).charge for n in ns], (model, engine)
            assert np.all(np.diff(got) >= 0)


# --- decode context parallelism (PLAN_RULES "dcp") ----------------------------------------------------------------


def test_vllm_dcp_splits_v32s_latent_and_index_keys_by_token_in_virtual_blocks():
    # vllm v1/core/single_type_kv_cache_manager.py:108-110, 219: a DCP-sharded spec's manager allocates blocks of
    # B × dcp tokens (⌈n / (B·dcp)⌉ of them), each rank holding B tokens of each; the indexer's cache is an
    # MLAAttentionSpec too (deepseek_v2.py:658-666), so sharded as well. BF16: 576 × 2 + 132 B a token a layer.
    a = allocation("v3.2", N, ALL_BF16, "vllm", tp=8, dcp=8)
    blocks = cdiv(131_072, 64 * 8)  # 256 blocks of 512 tokens
    assert blocks == 256
    assert a.charge == 61 * blocks * 64 * (576 * 2 + 132) == 61 * 256 * 82_176 == 1_283_260_416
    assert a.charge * 8 == allocation("v3.2", N, ALL_BF16, "vllm", tp=8).charge == 10_266_083_328
    assert "dcp" in rules(a) and a.per_token == Fraction(61 * 1284, 8)
    # a context short of a whole virtual block still takes one: 1,000 tokens, ⌈1000/512⌉ = 2 blocks
    assert allocation("v3.2", 1000, ALL_BF16, "vllm", tp=8, dcp=8).charge == 61 * 2 * 64 * 1284 == 10_025_472
    # deployed FP8 at DCP 4 (vLLM runs it; DCP 8 is refused, test_layouts): 656 + 132 B, blocks of 256 tokens
    fp8 = allocation("v3.2", N, DEPLOYED, "vllm", tp=8, dcp=4)
    assert fp8.charge == 61 * cdiv(131_072, 256) * 64 * (656 + 132) == 61 * 512 * 50_432 == 1_575_092_224


def test_sglang_dcp_splits_the_latent_into_pages_of_page_times_dcp_tokens():
    # sglang kv_cache_configurator.py:2924-2932: the allocator's pages are page × dcp tokens; Kimi K2 (dense MLA,
    # pages of 1 token on Hopper) at TP 8, DCP 8: ⌈131,072 / 8⌉ = 16,384 pages, one row of 61 × 1,152 B each a rank
    a = allocation("kimi-k2", N, ALL_BF16, "sglang", tp=8, dcp=8)
    assert a.charge == cdiv(131_072, 1 * 8) * 1 * 61 * 1152 == 16_384 * 70_272 == 1_151_336_448
    assert "dcp" in rules(a)
    # DSA under DCP runs on Blackwell only (its trtllm DSA backends); as SGLang prices it there, the latent shards
    # and the index keys stay whole (pool_configurator.py:398-409): pages of 64 × 8 tokens, 64 rows of latent and
    # all 512 tokens' keys a page on each rank
    held, _, _ = engines.sglang.allocate(get("v3.2"), N, core.cost.fitted(get("v3.2"), ALL_BF16), 8, None, True, dcp=8)
    pages = cdiv(131_072, 64 * 8)  # 256
    latent, keys = 64 * 61 * 576 * 2, 64 * 8 * 61 * 132  # 4,497,408 B and 4,122,624 B
    assert sum(h.nbytes for h in held) == pages * (latent + keys) == 256 * 8_620_032 == 2_206_728_192
    with pytest.raises(EngineError, match="Blackwell"):
        allocation("v3.2", N, ALL_BF16, "sglang", tp=8, dcp=8)


def test_vllm_dcp_on_a_hybrid_splits_the_attention_and_keeps_the_states_whole():
    # Qwen3-Next at TP 8, DCP 4 (tp 8 > 2 KV heads, 4 ≤ 8 / 2, 16 / 2 = 8 query heads a KV head divide by 4):
    # a KV head a rank, 1 × (256 + 256) × 2 = 1,024 B a token a layer; a GDN state on a rank
    # (24,576 + 524,288) × 2 B / 8 = 137,216 B, so the block is raised to 64 × ⌈137,216 / (64 × 1,024)⌉ = 192 tokens
    # (interface.py:1088-1140), a page of 192 × 1,024 = 196,608 B; 3 pages a state layer (prefix caching, FlashInfer
    # GDN prefill); the full layers' blocks span 192 × 4 = 768 tokens under DCP, the states' none (MambaSpec is not
    # DCP-sharded, kv_cache_interface.py:1176-1178).
    a = allocation("qwen3-next-80b-a3b", N, ALL_BF16, "vllm", tp=8, dcp=4)
    assert (24_576 + 524_288) * 2 // 8 == 137_216 and 64 * cdiv(137_216, 64 * 1024) == 192
    blocks = cdiv(131_072, 768)  # 171
    assert a.charge == 12 * blocks * 196_608 + 36 * 3 * 196_608 == (2052 + 108) * 196_608 == 424_673_280


def test_dcp_where_the_engine_offers_none_is_refused_by_name():
    assert engines.dcp_supported("v3.2", "vllm") and engines.dcp_supported("kimi-k2", "sglang")
    assert engines.dcp_supported("llama-3.1-8b", "vllm") and engines.dcp_supported("qwen3-next-80b-a3b", "sglang")
    for model, engine in (("gpt-oss-120b", "vllm"), ("gpt-oss-120b", "sglang"), ("v4-flash", "vllm"),
                          ("v4-flash", "sglang"), ("gemma-3-4b", "vllm"), ("v3.2", "sglang"), ("glm-5", "sglang")):
        assert not engines.dcp_supported(model, engine), (model, engine)
        with pytest.raises(EngineError) as e:
            allocation(model, N, DEPLOYED, engine, tp=8, dcp=2)
        assert e.value.why == "dcp"
    # SGLang keeps Gemma 3's sliding layers in the full pool (not on its window-pool list): nothing stops DCP there
    assert engines.dcp_supported("gemma-3-4b", "sglang") and engines.dcp_supported("gpt-oss-120b", "theory")


# --- speculative decoding with the MTP layers ----------------------------------------------------------------------


def test_mtp_layers_come_from_the_config_and_qwen3_next_takes_one():
    assert engines.mtp_layers("v3") == engines.mtp_layers("v3.2") == 1  # num_nextn_predict_layers
    assert engines.mtp_layers("qwen3.5-27b") == 1  # mtp_num_hidden_layers
    assert engines.mtp_layers("qwen3-next-80b-a3b") == 1  # none in its config: vLLM qwen3_next_mtp.py:71
    assert engines.mtp_layers("kimi-k2") == engines.mtp_layers("llama-3.1-8b") == 0
    for model in ("kimi-k2", "llama-3.1-8b", "v4-flash"):  # no MTP layers (an EAGLE draft), or V4's: not priced
        with pytest.raises(EngineError) as e:
            allocation(model, N, DEPLOYED, "vllm", spec=3)
        assert e.value.why == "spec"


def test_vllm_prices_the_mtp_layer_the_lookahead_and_k_state_pages_for_qwen3_next():
    # 12 full layers + 1 MTP layer (qwen3_next_mtp.py:97-103, a full-attention layer, grouped with the rest) and
    # 36 GDN layers: groups of min(13, 36) = 13 as 36 ≥ 1.5 × 13, the GDN's 3 groups padded to 39 layers
    # (kv_cache_planning.py:462-602); a page of 576 tokens × 2 KV heads × (256 + 256) × 2 B = 1,179,648 B;
    # k = 3: ⌈(131,072 + 3) / 576⌉ = 228 blocks (num_lookahead_tokens, kv_cache_manager.py:570-574) and
    # 2 + 3 + 1 = 6 pages a state layer (num_speculative_blocks = 3, kv_cache_interface.py:1168-1172).
    a = allocation("qwen3-next-80b-a3b", N, ALL_BF16, "vllm", spec=3)
    assert cdiv(131_075, 576) == 228
    assert a.charge == 13 * 228 * 1_179_648 + 39 * 6 * 1_179_648 == 3198 * 1_179_648 == 3_772_514_304
    assert {"spec-draft", "spec-lookahead", "spec-state"} <= rules(a)
    # V3.2 with its one MTP layer and k = 1: 62 layers × ⌈131,073 / 64⌉ = 2,049 blocks × 64 × 1,284 B
    assert allocation("v3.2", N, ALL_BF16, "vllm", spec=1).charge == 62 * 2049 * 64 * 1284 == 10_439_474_688


def test_only_the_last_pipeline_stage_holds_the_mtp_layer():
    # vLLM builds its speculator on the last PP rank (v1/worker/gpu/model_runner.py:312-313). V3.2 in 2 stages:
    # 31 and 30 layers (get_pp_indices); with k = 1 both hold the lookahead, ⌈131,073 / 64⌉ = 2,049 blocks of
    # 64 × 1,284 B (BF16), and only the last the MTP layer
    from core.parallel import stages
    first, last = stages("v3.2", 2)
    assert (first.n_layers, last.n_layers) == (31, 30)
    assert allocation(first, N, ALL_BF16, "vllm", spec=1).charge == 31 * 2049 * 64 * 1284 == 5_219_737_344
    assert allocation(last, N, ALL_BF16, "vllm", spec=1).charge == (30 + 1) * 2049 * 64 * 1284 == 5_219_737_344


def test_sglang_prices_a_draft_pool_and_each_requests_draft_token_states_for_qwen3_next():
    # the draft pool holds as many tokens, its one layer like a full layer (2 × 256 × 2 × 2 = 2,048 B a token,
    # pool_configurator.py:256-315): the KV cell 12 × 2,048 + 2,048 = 26,624 B over 131,072 + 3 slots, charged at
    # 19/10 (the KV's 1/1.9 of the budget). States: 5 slots of 36 × 2,146,304 B, and a running request's k + 1 = 4
    # draft-token states: 4 × 524,288 × 4 B recurrent (FP32) + 8,192 × (4 + 4 − 2) × 2 B convolution
    # (conv_dim 24,576 / 3 = 8,192, kernel 4; memory_pool.py:600-632, 864-945) = 8,486,912 B a layer.
    a = allocation("qwen3-next-80b-a3b", N, ALL_BF16, "sglang", spec=3)
    spec_state = 4 * 524_288 * 4 + 8192 * (4 + 4 - 2) * 2
    assert spec_state == 8_486_912
    assert {h.what: h.page for h in a.held}["state-spec"] == spec_state
    kv = 131_075 * (12 * 2048 + 2048)
    states = 36 * (5 * 2_146_304 + spec_state)
    assert kv * 19 // 10 == 6_630_507_520 > states * 19 // 9
    assert a.charge == 6_630_507_520
    # V3.2 (page 64): the draft pool's layer is the target's, latent and index key: 1,152 + 132 B a token
    s = allocation("v3.2", N, ALL_BF16, "sglang", spec=3)
    assert s.charge == cdiv(131_075, 64) * 64 * 62 * 1284 == 2049 * 64 * 79_608 == 10_439_474_688


def test_draft_parameters_count_the_mtp_layer_from_the_config_widths():
    # DeepSeek-V3's MTP layer (hidden 7,168): eh_proj 2 × 7,168²; MLA: q 7,168 × 1,536 + 1,536 × 128 × 192,
    # kv 7,168 × 576 + 512 × 128 × 256, o 128 × 128 × 7,168; a MoE block of 256 experts and 1 shared of 2,048
    # (gate, up, down: 3 × 7,168 × 2,048 each) and a router 7,168 × 256. Embedding and head: the target's.
    eh = 2 * 7168 * 7168
    attention = 7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168
    moe = 256 * 3 * 7168 * 2048 + 3 * 7168 * 2048 + 7168 * 256
    assert (eh, attention) == (102_760_448, 187_105_280)
    assert engines.draft_parameters("v3") == eh + attention + moe == 11_610_030_080
    assert engines.draft_parameters("kimi-k2") == engines.draft_parameters("llama-3.1-8b") == 0


# --- caps on running requests ----------------------------------------------------------------------------------------


def test_vllm_caps_a_scheduler_at_max_num_seqs_by_the_gpu():
    from core.gpus import GPU
    # vllm/engine/arg_utils.py:3010-3043: 1,024 from 70 GiB (H100 81,559 MiB, H200 143,771 MiB) and from 160 GiB;
    # an A100 takes the small GPUs' 256 whatever its memory
    for gpu in ("h100-sxm", "h200", "b200"):
        cap, rule = engines.request_cap("v3.2", "vllm", gpu)
        assert cap == 1024 and rule.id == "cap" and "arg_utils.py:3010-3043" in rule.source
    a100 = GPU(id="a100-80gb", name="NVIDIA A100 80GB", memory_bytes=80 * 10**9, bandwidth_bytes_per_s=2 * 10**12,
               reported_mib=81_920)
    assert engines.request_cap("llama-3.1-8b", "vllm", a100)[0] == 256
    assert engines.request_cap("v3.2", "theory", "h200") == (None, None)


def test_sglang_derives_max_running_requests_from_the_pool():
    # kv_cache_configurator.py:3119-3132: int(tokens / context_len × 512) held in [2,048, 4,096], at most tokens // 2
    # V3.2's context length: max_position_embeddings 163,840 (its yarn factor has original_max_position_embeddings)
    assert engines.sglang_context_length("v3.2") == 163_840
    assert engines.request_cap("v3.2", "sglang", "h200", kv_tokens=1_000_000)[0] == 1_000_000 * 512 // 163_840 == 3125
    assert engines.request_cap("v3.2", "sglang", "h200", kv_tokens=3_000_000)[0] == 4096  # 9,375 held at 4,096
    assert engines.request_cap("v3.2", "sglang", "h200", kv_tokens=3000)[0] == 3000 // 2  # 2,048, then half
    # a hybrid: at most its state slots over 5 a request (extra_buffer), here 600 // 5 = 120 (3062-3088, 3135-3150)
    assert engines.request_cap("qwen3-next-80b-a3b", "sglang", "h200", kv_tokens=1_000_000, state_slots=600)[0] \
        == min(2048, 600 // 5) == 120
    assert engines.request_cap("nemotron-h-56b", "sglang", "h200", kv_tokens=10**7, state_slots=600)[0] == 120
    assert engines.request_cap("v3.2", "sglang", "h200") == (None, None)  # no pool size: no cap said
    # V4: max_running_requests 256 (deepseek_v4_hook.py:138-145), ⌊256 / 8⌋ = 32 a dp worker of 8
    from core.parallel import Parallel
    cap, rule = engines.request_cap("v4-flash", "sglang", "h200", parallel=Parallel(dp=8))
    assert (cap, rule.id) == (32, "cap-v4")


# --- the sliding layers' admission reserve --------------------------------------------------------------------------


def test_admitting_a_request_reserves_a_prefill_chunk_in_the_sliding_layers():
    # gpt-oss-120b, 18 sliding layers of 8 KV heads × (64 + 64) × 2 B = 2,048 B a token, window 128.
    # vLLM (kv_cache_interface.py:932-958, config/vllm.py:560-577): ⌈(127 + 2 × 8,192) / 64⌉ + 1 = 259 blocks
    # reserved against ⌈127 / 64⌉ + 1 = 3 held: 256 blocks × 64 × 2,048 B × 18 layers
    v = allocation("gpt-oss-120b", 1, DEPLOYED, "vllm")
    assert cdiv(127 + 2 * 8192, 64) + 1 == 259
    assert v.admission(8192) == (259 - 3) * 64 * 2048 * 18 == 603_979_776
    assert v.admission_rule.id == "admission"
    # SGLang (prefill_budget.py:27-59): (8,192 − 128) + 128 + 1 = 8,193 positions reserved against the 128 it keeps
    s = allocation("gpt-oss-120b", 1, DEPLOYED, "sglang")
    assert s.admission(8192) == (8193 - 128) * 18 * 2048 == 297_308_160
    # a chunk inside the window reserves the window and a page only: 1 position (SGLang), 2 blocks (vLLM)
    assert s.admission(64) == 1 * 18 * 2048 and v.admission(32) == (cdiv(127 + 64, 64) + 1 - 3) * 64 * 2048 * 18
    for engine in ("vllm", "sglang"):  # no sliding layer, no reserve
        a = allocation("llama-3.1-8b", N, DEPLOYED, engine)
        assert a.admission(8192) == 0 and a.admission_rule is None


def test_plan_rules_name_a_file_with_lines():
    for engine, table in engines.PLAN_RULES.items():
        for rule in table.values():
            assert rule.engine == engine and ".py:" in rule.source and rule.what


def test_one_tuple_of_rules():
    """The rules are named once (core.parallel, below core.engines in the imports) and imported everywhere."""
    from core import budget, parallel, serving
    assert engines.ENGINES == ("theory", "vllm", "sglang")
    assert engines.ENGINES is budget.ENGINES is parallel.ENGINES is serving.ENGINES
