"""The model specs (core.models) against the published configs, and everything derived
from them: change a width in a copy of a spec and the entry sizes, the cost and the
mechanism runs' article sizes follow; nothing else types a width."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

import core
from core import models
from core.mechanisms import compression, csa2, csa_indexer, hierarchical, indexer, mla, visibility
from core.models import Dims

# Each model's config.json, as published (only the fields the specs use):
#   V2: deepseek-ai/DeepSeek-V2 config.json (same attention as DeepSeek-Coder-V2-Instruct's)
#   V3, V3.2: deepseek-ai/DeepSeek-V3 inference/configs/config_671B.json and DeepSeek-V3.2-Exp
#             inference/config_671B_v3.2.json (index_* also the defaults of its ModelArgs)
#   V4-Flash, V4.1-Flash: deepseek-ai/DeepSeek-V4-Flash and DeepSeek-V4.1-Flash config.json
#             (compress_ratios listed for the main layers; the trailing MTP entries left out)
CONFIGS = {
    "v2": dict(hidden_size=5120, num_attention_heads=128, q_lora_rank=1536, kv_lora_rank=512,
               qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, num_hidden_layers=60),
    "v3": dict(hidden_size=7168, num_attention_heads=128, q_lora_rank=1536, kv_lora_rank=512,
               qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, num_hidden_layers=61),
    "v3.2": dict(hidden_size=7168, num_attention_heads=128, q_lora_rank=1536, kv_lora_rank=512,
                 qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, num_hidden_layers=61,
                 index_n_heads=64, index_head_dim=128, index_topk=2048),
    "v4-flash": dict(hidden_size=4096, num_attention_heads=64, head_dim=512, q_lora_rank=1024, qk_rope_head_dim=64,
                     o_lora_rank=1024, o_groups=8, index_n_heads=64, index_head_dim=128, index_topk=512,
                     sliding_window=128, num_hidden_layers=43, compress_ratios=[0, 0] + [4, 128] * 20 + [4]),
    "v4.1-flash": dict(hidden_size=5120, num_attention_heads=64, head_dim=512, q_lora_rank=1280, qk_rope_head_dim=64,
                       o_lora_rank=1024, o_groups=8, index_n_heads=32, index_head_dim=128, index_topk=512,
                       sliding_window=128, num_hidden_layers=40, compress_ratios=[0, 0] + [2] * 18 + [1] * 20,
                       kv_source_layer_ids=[2, 8, 14, 20], index_source_layer_ids=[2, 8, 14, 20, 24, 28, 32, 36],
                       candidate_topk_blocks=2048, candidate_block_size=8),
}
DIM_FIELDS = {f.name for f in dataclasses.fields(Dims)}
MODEL_FIELDS = {"index_topk": "index_topk", "sliding_window": "window", "candidate_topk_blocks": "pool_blocks",
                "candidate_block_size": "pool_block_size", "num_hidden_layers": "n_layers"}


@pytest.mark.parametrize("model_id", CONFIGS)
def test_each_spec_holds_its_configs_values(model_id):
    m = core.get(model_id)
    for key, value in CONFIGS[model_id].items():
        if key in DIM_FIELDS:
            assert getattr(m.dims, key) == value, key
        elif key in MODEL_FIELDS:
            assert getattr(m, MODEL_FIELDS[key]) == value, key


@pytest.mark.parametrize("model_id", ["v4-flash", "v4.1-flash"])
def test_the_layer_schedule_follows_the_configs_compress_ratios(model_id):
    m = core.get(model_id)
    assert [0 if ly.kind == "SWA" else ly.ratio for ly in m.layers] == CONFIGS[model_id]["compress_ratios"]


def test_v4_1_full_and_reindex_layers_are_the_configs_source_layers():
    m, cfg = core.get("v4.1-flash"), CONFIGS["v4.1-flash"]
    assert [i for i, ly in enumerate(m.layers) if ly.stores_global] == cfg["kv_source_layer_ids"]
    assert sorted({ly.sel_from for ly in m.layers if ly.sel_from is not None}) == cfg["index_source_layer_ids"]
    assert sorted({ly.kv_from for ly in m.layers if ly.kv_from is not None}) == cfg["kv_source_layer_ids"]


def test_the_hypothetical_mha_has_v2s_heads_with_full_keys_and_values():
    mha, v2 = core.get("mha").dims, core.get("v2").dims
    assert (mha.hidden_size, mha.num_attention_heads, mha.head_dim) == (v2.hidden_size, v2.num_attention_heads,
                                                                        v2.v_head_dim)
    assert core.get("mha").component("main_kv").dims == 128 * (128 + 128)


# --- entries are built from the dims ----------------------------------------------------


def with_dims(model_id: str, **change) -> core.Model:
    m = core.get(model_id)
    return dataclasses.replace(m, dims=dataclasses.replace(m.dims, **change))


def test_a_narrower_kv_latent_shrinks_v3_2s_main_kv_entry_and_its_storage():
    m = with_dims("v3.2", kv_lora_rank=256)
    main = 256 + 256 // 128 * 4 + 64 * 2  # FP8 latent + FP32 scale per 128 + BF16 RoPE key
    assert core.entry_bytes(m)["main_kv"] == main == 392
    assert core.storage_per_token(m).total == 61 * (main + 132)
    assert m.component("main_kv").holds == "C^KV 256 + K^R 64"


def test_a_narrower_v4_entry_shrinks_main_and_local_kv_and_the_cost_follows():
    m = with_dims("v4-flash", head_dim=256)
    entry = (256 - 64) + (256 - 64) // 64 + 64 * 2 + 1  # FP8 + UE8M0 per 64 + BF16 RoPE + pad
    assert core.entry_bytes(m) == {"main_kv": entry, "index_key": 68, "local_kv": entry}
    assert core.storage_per_token(m).total == float(Fraction(21 * (entry + 68), 4) + Fraction(20 * entry, 128))
    assert core.local_kv(m) == 43 * 128 * entry
    n = 131072
    assert core.reads(m, n).kv == (21 * (512 + 128) + 20 * (n // 128 + 128) + 2 * 128) * entry


def test_a_wider_rope_part_moves_bytes_from_fp8_to_bf16_in_v4s_entry():
    m = with_dims("v4-flash", qk_rope_head_dim=128)
    assert m.dims.head_nope_dim == 384
    assert core.entry_bytes(m)["main_kv"] == 384 + 384 // 64 + 128 * 2 + 1


def test_a_wider_index_key_grows_v4_1s_key_storage_and_reads():
    m = with_dims("v4.1-flash", index_head_dim=256)
    key = 256 // 2 + 256 // 32  # E2M1 + a UE8M0 scale per 32
    assert core.entry_bytes(m)["index_key"] == key == 136
    assert core.storage_per_token(m).total == (Fraction(3, 2) + 1) * (288 + key)
    n = 131072
    assert core.reads(m, n).index_key == (3 * n // 2 + n + 4 * 16384) * key


def test_fewer_mha_heads_shrink_the_mha_entry_in_proportion():
    m = with_dims("mha", num_attention_heads=32)
    assert core.storage_per_token(m).total == 60 * 32 * (128 + 128) * 2


def test_a_changed_copy_leaves_the_registered_spec_and_its_numbers_alone():
    core.storage_per_token(with_dims("v3.2", kv_lora_rank=1024))
    assert core.storage_per_token("v3.2").total == 48068
    assert core.get("v3.2").dims.kv_lora_rank == 512


def test_dims_refuse_negative_or_non_integer_widths():
    with pytest.raises(ValueError, match="kv_lora_rank"):
        Dims(hidden_size=8, num_attention_heads=2, kv_lora_rank=-1)
    with pytest.raises(ValueError, match="head_dim"):
        Dims(hidden_size=8, num_attention_heads=2, head_dim=1.5)


# --- what figures read off a spec ---------------------------------------------------------


def test_layer_counts_and_ratios_are_read_off_the_schedule():
    v4, v41 = core.get("v4-flash"), core.get("v4.1-flash")
    assert v4.layer_counts == {"SWA": 2, "CSA": 21, "HCA": 20} and v4.n_layers == 43
    assert (v4.n_global, v4.n_windowed) == (41, 43) and (v41.n_global, v41.n_windowed) == (4, 40)
    assert (v4.ratio("CSA"), v4.ratio("HCA")) == (4, 128)
    assert (v41.ratio("CSA2", "encoder"), v41.ratio("CSA2", "decoder")) == (2, 1)
    with pytest.raises(ValueError, match="ratios"):
        v41.ratio("CSA2")
    assert v41.pool == 2048 * 8


def test_components_report_their_width_and_get_passes_a_model_through():
    v4 = core.get("v4-flash")
    assert v4.dims.head_nope_dim == 448 and v4.component("main_kv").dims == 512
    assert v4.component("index_key").dims == v4.dims.index_head_dim
    assert core.get(v4) is v4


def test_the_mechanism_runs_article_sizes_come_from_the_specs():
    v2, v32, v4, v41 = (core.get(m) for m in ("v2", "v3.2", "v4-flash", "v4.1-flash"))
    assert mla.ARTICLE_DIMS == mla.MLADims.of(v2.dims, core.ARTICLE_CONTEXT)
    assert (mla.ARTICLE_DIMS.hidden, mla.ARTICLE_DIMS.q_lora_rank, mla.ARTICLE_DIMS.kv_lora_rank,
            mla.ARTICLE_DIMS.n_heads, mla.ARTICLE_DIMS.qk_nope_head_dim, mla.ARTICLE_DIMS.qk_rope_head_dim,
            mla.ARTICLE_DIMS.tokens) == (5120, 1536, 512, 128, 128, 64, 131072)
    assert indexer.ARTICLE_INDEXER_DIMS == indexer.IndexerDims(n_heads=64, head_dim=128, rope_dim=64)
    assert indexer.ARTICLE_INDEXER_DIMS == indexer.IndexerDims.of(v32.dims)
    assert (compression.ARTICLE_HEAD_DIM, compression.ARTICLE_ROPE_DIM) == (v4.dims.head_dim, v4.dims.qk_rope_head_dim)
    assert csa_indexer.ARTICLE_INDEX_DIM == v4.dims.index_head_dim == 128
    assert (csa2.ARTICLE_HEAD_DIM, csa2.ARTICLE_INDEX_DIM) == (v41.dims.head_dim, v41.dims.index_head_dim)
    assert (visibility.ARTICLE_WINDOW, visibility.ARTICLE_TOPK) == (v4.window, v4.index_topk)
    assert hierarchical.pool_positions_max() == v41.pool == 16384


# --- what a capacity planner reads ------------------------------------------------------------

# Total parameters as published: V2 236B (arXiv:2405.04434), V3 and V3.2 671B (arXiv:2412.19437,
# the V3.2-Exp README), V4-Flash 284B (its model card); none for the hypothetical MHA nor V4.1-Flash.
PARAMETERS = {"mha": 0, "v2": 236 * 10**9, "v3": 671 * 10**9, "v3.2": 671 * 10**9, "v4-flash": 284 * 10**9,
              "v4.1-flash": 0}


@pytest.mark.parametrize("model_id", PARAMETERS)
def test_each_article_model_has_its_published_parameter_count_and_a_source(model_id):
    m = core.get(model_id)
    assert m.parameters == PARAMETERS[model_id]
    assert m.source.startswith("https://") or model_id == "mha"
    assert "arXiv:2405.04434" in core.get("mha").source


def test_a_gqa_entry_holds_k_and_v_for_every_kv_head():
    d = Dims(hidden_size=4096, num_attention_heads=32, num_key_value_heads=8, head_dim=128)
    holds, layouts = models.gqa_entry(d)
    assert holds == "K 128 + V 128 per KV head × 8 KV heads"
    assert layouts["bf16"].nbytes == 2 * 8 * 128 * 2 and layouts["fp8"].nbytes == 2 * 8 * 128


def test_the_articles_models_have_no_kv_head_count_and_offer_the_articles_precisions():
    for m in core.MODELS.values():
        assert m.dims.num_key_value_heads == 0
        assert m.precisions == (("bf16", "fp8", "fp8_block", "fp4") if m.id == "mha" else ("bf16", "fp8", "fp4"))


def test_an_unknown_id_names_the_articles_models_and_the_other_places_an_id_may_be():
    with pytest.raises(ValueError, match=r"unknown model 'v5'; choose from mha, .*v4\.1-flash, an open preset, or "
                                         r"pass an imported model as its Model"):
        core.get("v5")
    with pytest.raises(ValueError, match="unknown model 5"):
        core.get(5)
