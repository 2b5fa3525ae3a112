"""Invariants of the cost model: parts and totals, counting rules, layer schedules,
precision overrides and input validation. Expected values are worked out by hand from
the article's rules (docs/counting.md), never taken from core itself."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter

import numpy as np
import pytest

import core
from core import ALL_BF16, DEPLOYED, Precision
from core.summary import summarise

MODEL_IDS = ("mha", "v2", "v3", "v3.2", "v4-flash", "v4.1-flash")
PRECISIONS = {
    "deployed": DEPLOYED,
    "bf16": ALL_BF16,
    "mixed": Precision(main_kv="fp4", index_key="bf16", local_kv="fp8"),
}
CONTEXTS = (1, 2, 3, 4, 100, 127, 128, 129, 255, 256, 2048, 4095, 4096, 16384, 131072, 1 << 20)


def _parts(p: core.Parts) -> tuple:
    return (p.main_kv, p.index_key, p.local_kv)


# --- parts and totals ----------------------------------------------------------------


@pytest.mark.parametrize("model", MODEL_IDS)
@pytest.mark.parametrize("prec", PRECISIONS, ids=str)
def test_parts_sum_to_the_total_for_storage_cache_and_reads(model, prec):
    p = PRECISIONS[prec]
    results = [core.storage_per_token(model, p)]
    for n in CONTEXTS:
        results += [core.cache_at(model, n, p), core.reads(model, n, p)]
    for r in results:
        assert r.total == r.main_kv + r.index_key + r.local_kv + r.state
        assert r.kv == r.main_kv + r.local_kv
        assert all(x >= 0 for x in _parts(r))


def test_parts_sum_to_the_total_over_an_array_of_contexts():
    ns = np.array(CONTEXTS)
    for model in MODEL_IDS:
        for r in (core.cache_at(model, ns), core.reads(model, ns)):
            np.testing.assert_array_equal(r.total, r.main_kv + r.index_key + r.local_kv)


@pytest.mark.parametrize("model", ["mha", "v2", "v3"])
def test_models_without_indexer_or_window_have_zero_index_key_and_local_kv(model):
    for r in (core.storage_per_token(model), core.cache_at(model, 5000), core.reads(model, 5000)):
        assert r.index_key == 0 and r.local_kv == 0
    assert core.local_kv(model) == 0
    assert core.crossover(model) is None


def test_v3_2_has_an_index_key_but_no_local_kv():
    assert core.reads("v3.2", 5000).local_kv == 0
    assert core.local_kv("v3.2") == 0
    assert core.crossover("v3.2") is None


# --- vectorised == scalar --------------------------------------------------------------


@pytest.mark.parametrize("model", MODEL_IDS)
def test_a_vectorised_call_equals_the_scalar_call_element_by_element(model):
    ns = np.array(CONTEXTS)
    for fn in (core.reads, core.cache_at):
        vec = fn(model, ns)
        for i, n in enumerate(CONTEXTS):
            one = fn(model, n)
            assert _parts(one) == tuple(int(np.broadcast_to(x, ns.shape)[i]) for x in _parts(vec)), (fn, n)
    vec_local = core.local_kv(model, DEPLOYED, ns)
    assert [core.local_kv(model, DEPLOYED, n) for n in CONTEXTS] == list(vec_local)


@pytest.mark.parametrize("model", MODEL_IDS)
def test_a_scalar_context_gives_plain_python_ints(model):
    for r in (core.reads(model, 131072), core.cache_at(model, 131072)):
        for x in _parts(r):
            assert type(x) is int, f"{model}: {type(x).__name__}"
    assert type(core.local_kv(model, DEPLOYED, 131072)) is int


# --- counting rules: what exists and what is read -----------------------------------------


def test_v3_2_at_100_tokens_reads_all_100_main_entries_not_2048():
    r = core.reads("v3.2", 100)
    assert r.main_kv == 61 * 100 * 656
    assert r.index_key == 61 * 100 * 132


def test_v3_2_reads_at_most_2048_main_entries_per_layer():
    assert core.reads("v3.2", 2048).main_kv == 61 * 2048 * 656
    assert core.reads("v3.2", 2049).main_kv == 61 * 2048 * 656
    assert core.reads("v3.2", 2049).index_key == 61 * 2049 * 132


def test_v4_flash_below_128_tokens_reads_no_hca_entry_and_a_partial_window():
    r = core.reads("v4-flash", 100)
    assert r.main_kv == 21 * (100 // 4) * 584  # CSA: all 25 entries (< top-512); HCA: none yet
    assert r.index_key == 21 * (100 // 4) * 68
    assert r.local_kv == 43 * 100 * 584  # min(128, N) window in all 43 layers


def test_v4_flash_reads_its_first_hca_entry_when_the_first_128_block_completes():
    assert core.reads("v4-flash", 127).main_kv == 21 * 31 * 584
    assert core.reads("v4-flash", 128).main_kv == 21 * 32 * 584 + 20 * 1 * 584


def test_v4_flash_csa_reads_at_most_top_512_entries():
    n = 4 * 512 + 4 * 10  # 522 CSA entries exist
    r = core.reads("v4-flash", n)
    assert r.main_kv == 21 * 512 * 584 + 20 * (n // 128) * 584
    assert r.index_key == 21 * 522 * 68


def test_v4_1_flash_reindex_pool_is_capped_by_the_entries_that_exist():
    # decoder main KV has N entries (m = 1), encoder N/2 (m = 2); pool is 2,048 × 8 = 16,384
    assert core.reads("v4.1-flash", 10_000).index_key == (3 * 5_000 + 10_000 + 4 * 10_000) * 68
    assert core.reads("v4.1-flash", 20_000).index_key == (3 * 10_000 + 20_000 + 4 * 16_384) * 68


def test_v4_1_flash_every_csa2_layer_reads_at_most_min_512_entries_of_its_kv_source():
    # N = 600: encoder sources hold 300 entries (< 512), the decoder source 600 (> 512)
    assert core.reads("v4.1-flash", 600).main_kv == (18 * 300 + 20 * 512) * 288
    assert core.reads("v4.1-flash", 600).local_kv == 40 * 128 * 528


@pytest.mark.parametrize("model", ["mha", "v2", "v3"])
def test_dense_models_read_exactly_the_whole_cache(model):
    for n in CONTEXTS:
        assert core.reads(model, n).total == core.cache_at(model, n).total


@pytest.mark.parametrize("model", ["v3.2", "v4-flash"])
def test_layers_that_own_their_cache_never_read_more_than_it_holds(model):
    ns = np.array(CONTEXTS)
    r, c = core.reads(model, ns), core.cache_at(model, ns)
    for got, held in zip(_parts(r), _parts(c), strict=True):
        assert np.all(got <= held)


@pytest.mark.parametrize("model", MODEL_IDS)
def test_local_kv_reads_never_exceed_the_local_kv_held(model):
    ns = np.array(CONTEXTS)
    assert np.all(core.reads(model, ns).local_kv <= core.cache_at(model, ns).local_kv)


def test_cache_at_holds_only_complete_blocks():
    v32 = core.cache_at("v3.2", 1000)
    assert _parts(v32) == (61 * 1000 * 656, 61 * 1000 * 132, 0)
    v4 = core.cache_at("v4-flash", 1000)  # 250 CSA entries, 7 HCA entries (896 tokens)
    assert _parts(v4) == (21 * 250 * 584 + 20 * 7 * 584, 21 * 250 * 68, 43 * 128 * 584)
    v41 = core.cache_at("v4.1-flash", 1001)  # 500 encoder entries (m = 2), 1001 decoder
    assert _parts(v41) == (3 * 500 * 288 + 1001 * 288, (3 * 500 + 1001) * 68, 40 * 128 * 528)


def test_v4_flash_cache_from_127_to_128_tokens_gains_one_csa_and_one_hca_entry_and_a_window_slot():
    a, b = core.cache_at("v4-flash", 127), core.cache_at("v4-flash", 128)
    assert b.main_kv - a.main_kv == 21 * 584 + 20 * 584  # CSA block 31 and HCA block 0 complete
    assert b.index_key - a.index_key == 21 * 68
    assert b.local_kv - a.local_kv == 43 * 584  # window 127 -> 128 in all 43 layers
    assert b.total - a.total == 50_484


def test_v4_flash_cache_grows_only_when_a_block_completes():
    c = {n: core.cache_at("v4-flash", n) for n in (251, 252, 253, 254, 255, 256)}
    assert c[252].total - c[251].total == 21 * (584 + 68)  # CSA only
    assert c[253].total == c[252].total
    assert c[254].total == c[253].total
    assert c[255].total == c[254].total
    assert c[256].total - c[255].total == 21 * (584 + 68) + 20 * 584  # CSA + HCA


def test_v4_flash_reads_at_4096_tokens_grow_only_by_the_new_hca_entry():
    a, b = core.reads("v4-flash", 4095), core.reads("v4-flash", 4096)
    assert b.main_kv - a.main_kv == 20 * 584  # CSA already at top-512; HCA entry 31 completes
    assert b.index_key - a.index_key == 21 * 68
    assert b.local_kv == a.local_kv


def test_v4_1_flash_encoder_entries_complete_every_two_tokens():
    a, b, c = (core.cache_at("v4.1-flash", n) for n in (1000, 1001, 1002))
    assert b.main_kv - a.main_kv == 1 * 288  # decoder Full only
    assert c.main_kv - b.main_kv == 288 + 3 * 288  # decoder Full + 3 encoder Full


def test_local_kv_fills_the_window_then_stays_fixed():
    assert core.local_kv("v4-flash", DEPLOYED, 50) == 43 * 50 * 584
    assert core.local_kv("v4-flash", DEPLOYED, 128) == 43 * 128 * 584
    assert core.local_kv("v4-flash", DEPLOYED, 1 << 20) == 43 * 128 * 584
    assert core.local_kv("v4-flash") == 43 * 128 * 584


@pytest.mark.parametrize("model", MODEL_IDS)
@pytest.mark.parametrize("prec", PRECISIONS, ids=str)
def test_reads_and_cache_never_decrease_as_the_context_grows(model, prec):
    ns = np.concatenate([np.arange(1, 20_000), np.arange(20_000, 1 << 21, 997)])
    for fn in (core.reads, core.cache_at):
        r = fn(model, ns, PRECISIONS[prec])
        for x in (*_parts(r), r.total):
            x = np.broadcast_to(x, ns.shape)
            assert np.all(np.diff(x) >= 0), fn.__name__


@pytest.mark.parametrize("model", MODEL_IDS)
@pytest.mark.parametrize("prec", PRECISIONS, ids=str)
@pytest.mark.parametrize("n0", [4096, 131072, 1 << 20])
def test_storage_per_token_is_the_cache_growth_per_token_at_any_long_context(model, prec, n0):
    p = PRECISIONS[prec]
    period = 128  # a multiple of every compression ratio (1, 2, 4, 128)
    growth = core.cache_at(model, n0 + period, p).total - core.cache_at(model, n0, p).total
    assert growth == period * core.storage_per_token(model, p).total


def test_v4_flash_storage_per_token_is_fractional_and_exact():
    assert core.storage_per_token("v4-flash").total == 21 * (584 + 68) / 4 + 20 * 584 / 128 == 3514.25


def test_ratio_to_another_base_model():
    assert core.ratio_to("v4.1-flash", "v2") == 69120 / 890
    assert core.ratio_to("v3.2", "v3.2") == 1


def test_crossover_is_where_per_token_growth_reaches_the_full_local_kv():
    assert core.crossover("v4-flash") == pytest.approx(43 * 128 * 584 / 3514.25, rel=1e-12)
    assert core.crossover("v4.1-flash") == pytest.approx(40 * 128 * 528 / 890, rel=1e-12)


# --- layer schedules -------------------------------------------------------------------


def test_v4_flash_has_2_swa_then_21_csa_and_20_hca_layers():
    layers = core.get("v4-flash").layers
    assert len(layers) == 43
    assert Counter(ly.kind for ly in layers) == {"SWA": 2, "CSA": 21, "HCA": 20}
    assert [ly.kind for ly in layers[:2]] == ["SWA", "SWA"]
    assert {ly.ratio for ly in layers if ly.kind == "CSA"} == {4}
    assert {ly.ratio for ly in layers if ly.kind == "HCA"} == {128}
    assert sum(ly.stores_global for ly in layers) == 41  # "41개(CSA 21 + HCA 20)"
    assert sum(ly.stores_index_key for ly in layers) == 21
    assert sum(ly.windowed for ly in layers) == 43  # "43층 모두 최근 128개 위치"


def test_v4_1_flash_has_4_layers_that_store_global_kv():
    layers = core.get("v4.1-flash").layers
    assert len(layers) == 40
    assert sum(ly.stores_global for ly in layers) == 4
    assert sum(ly.stores_index_key for ly in layers) == 4
    assert sum(ly.windowed for ly in layers) == 40
    assert sum(ly.kind == "CSA2" for ly in layers) == 38
    assert [ly.ratio for ly in layers if ly.stores_global] == [2, 2, 2, 1]


@pytest.mark.parametrize("model,kind,count", [("mha", "MHA", 60), ("v2", "MLA", 60), ("v3", "MLA", 61),
                                              ("v3.2", "DSA", 61)])
def test_dense_and_dsa_models_have_one_kind_of_layer(model, kind, count):
    layers = core.get(model).layers
    assert len(layers) == count and {ly.kind for ly in layers} == {kind}


def test_v4_1_flash_layer_modes_follow_the_encoder_decoder_schedule():
    layers = core.get("v4.1-flash").layers
    encoder = ["SWA", "SWA"] + 3 * (["full"] + ["reuse"] * 5)
    decoder = ["full"] + ["reuse"] * 3 + 4 * (["reindex"] + ["reuse"] * 3)
    got = [ly.kind if ly.kind == "SWA" else ly.mode for ly in layers]
    assert got == encoder + decoder
    assert [ly.stack for ly in layers] == ["encoder"] * 20 + ["decoder"] * 20
    assert {ly.ratio for ly in layers[2:20]} == {2}
    assert {ly.ratio for ly in layers[20:]} == {1}


def test_v4_1_flash_reuse_layers_take_the_selection_of_the_latest_full_or_reindex_layer():
    layers = core.get("v4.1-flash").layers
    latest = None
    for i, ly in enumerate(layers):
        if ly.kind != "CSA2":
            continue
        if ly.mode in ("full", "reindex"):
            latest = i
            assert ly.sel_from == i, f"layer {i} picks its own selection"
        else:
            assert ly.sel_from == latest, f"reuse layer {i} takes the selection of layer {latest}"


def test_v4_1_flash_kv_comes_from_a_full_layer():
    layers = core.get("v4.1-flash").layers
    for i, ly in enumerate(layers):
        if ly.kind == "CSA2":
            src = layers[ly.kv_from]
            assert src.kind == "CSA2" and src.mode == "full", f"layer {i} reads KV of layer {ly.kv_from}"
            assert src.stack == ly.stack
    # encoder groups use their own Full (layers 2, 8, 14); every decoder layer the decoder Full (20)
    assert [ly.kv_from for ly in layers[2:20]] == [2] * 6 + [8] * 6 + [14] * 6
    assert {ly.kv_from for ly in layers[20:]} == {20}
    assert [ly.sel_from for ly in layers[20:]] == [20] * 4 + [24] * 4 + [28] * 4 + [32] * 4 + [36] * 4


# --- precision overrides ---------------------------------------------------------------


def test_a_main_kv_override_on_v4_1_flash_changes_only_the_main_kv():
    p = Precision(main_kv="bf16")
    m = core.get("v4.1-flash")
    assert core.entry_bytes(m, DEPLOYED) == {"main_kv": 288, "index_key": 68, "local_kv": 528}
    assert core.entry_bytes(m, p) == {"main_kv": 1024, "index_key": 68, "local_kv": 528}
    assert core.storage_per_token(m, p).total == (3 / 2 + 1) * (1024 + 68)
    dep, ovr = core.reads(m, 131072), core.reads(m, 131072, p)
    assert ovr.main_kv == 38 * 512 * 1024
    assert (ovr.index_key, ovr.local_kv) == (dep.index_key, dep.local_kv)


def test_v3_2_with_a_bf16_main_kv_matches_the_hf_reference_code_number():
    # "HF 참조 코드는 C^KV를 BF16 버퍼에 두므로 … 61 × (1,152 + 132) = 78,324 B"
    assert core.storage_per_token("v3.2", Precision(main_kv="bf16")).total == 78_324


def test_an_override_applies_on_top_of_the_bf16_preset():
    p = Precision("bf16", index_key="fp4")
    assert core.entry_bytes(core.get("v4-flash"), p) == {"main_kv": 1024, "index_key": 68, "local_kv": 1024}


def test_a_local_kv_override_leaves_the_global_kv_alone():
    p = Precision(local_kv="fp4")
    m = core.get("v4-flash")
    assert core.entry_bytes(m, p) == {"main_kv": 584, "index_key": 68, "local_kv": 288}
    assert core.local_kv(m, p) == 43 * 128 * 288
    assert core.storage_per_token(m, p).total == 3514.25


def test_an_override_for_a_role_the_model_lacks_changes_nothing():
    assert core.storage_per_token("v2", Precision(index_key="fp4", local_kv="fp4")).total == 69120


# --- invalid inputs -----------------------------------------------------------------------


@pytest.mark.parametrize("n,msg", [(0, "at least 1"), (-1, "at least 1"), (1.5, "whole number"),
                                   (np.array([4, 0]), "at least 1"), ("abc", "whole number")])
@pytest.mark.parametrize("fn", ["reads", "cache_at", "local_kv"])
def test_an_invalid_context_raises_a_clear_value_error(fn, n, msg):
    call = {"reads": lambda: core.reads("v4-flash", n), "cache_at": lambda: core.cache_at("v4-flash", n),
            "local_kv": lambda: core.local_kv("v4-flash", DEPLOYED, n)}[fn]
    with pytest.raises(ValueError, match=msg):
        call()


def test_an_unknown_precision_preset_raises_a_clear_value_error():
    with pytest.raises(ValueError, match=r"unknown precision preset 'fp7'.*deployed, bf16"):
        Precision("fp7")


@pytest.mark.parametrize("role", ["main_kv", "index_key", "local_kv"])
def test_an_unknown_override_precision_raises_a_clear_value_error(role):
    with pytest.raises(ValueError, match=rf"unknown {role} precision 'int4'.*bf16, fp8, fp8_block, fp4"):
        Precision(**{role: "int4"})


def test_an_unknown_model_id_raises_a_clear_value_error():
    with pytest.raises(ValueError, match=r"unknown model 'v5'.*v4\.1-flash"):
        core.get("v5")
    with pytest.raises(ValueError, match="unknown model 'v5'"):
        core.reads("v5", 1024)
    with pytest.raises(ValueError, match="unknown model 'v5'"):
        core.storage_per_token("v5")


# --- open models -------------------------------------------------------------------------------

OPEN = core.models.Model(
    id="open", name="open", dims=core.Dims(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=64),
    layers=(core.Layer("GQA"), core.Layer("SWA"), core.Layer("GQA")), window=10,
    cache=(core.models.Cache("main_kv", core.models.gqa_entry, "bf16"),
           core.models.Cache("local_kv", core.models.gqa_entry, "bf16")))
ENTRY = 2 * 2 * 64  # K and V of 2 KV heads of 64


def test_every_names_one_precision_for_every_role():
    assert Precision.every("deployed") == DEPLOYED and Precision.every("bf16") == ALL_BF16
    assert Precision.every("fp8_block") == Precision("bf16", "fp8_block", "fp8_block", "fp8_block")
    with pytest.raises(ValueError, match="unknown main_kv precision 'fp16'"):
        Precision.every("fp16")


def test_gqa_layers_grow_per_token_and_sliding_layers_hold_their_window():
    for n in (1, 9, 10, 11, 1000):
        c = core.cache_at(OPEN, n, Precision.every("bf16"))
        assert (c.main_kv, c.index_key, c.local_kv) == (2 * ENTRY * 2 * n, 0, ENTRY * 2 * min(n, 10))
        assert core.reads(OPEN, n, Precision.every("bf16")) == c
    assert core.storage_per_token(OPEN, Precision.every("fp8")).total == 2 * ENTRY
    assert core.local_kv(OPEN, Precision.every("fp8")) == 10 * ENTRY
    assert core.crossover(OPEN, ALL_BF16) == 10 * ENTRY * 2 / (2 * ENTRY * 2)


def test_a_model_whose_every_layer_slides_is_infinitely_smaller_per_token():
    m = dataclasses.replace(OPEN, layers=(core.Layer("SWA"),) * 3)
    assert core.storage_per_token(m, ALL_BF16).total == 0
    assert core.ratio_to(m, "mha", ALL_BF16) == math.inf
    assert core.crossover(m, ALL_BF16) is None


def test_an_article_model_asked_for_an_open_precision_says_what_it_offers():
    with pytest.raises(ValueError, match="has no fp8_block layout; it offers bf16, fp8, fp4"):
        core.storage_per_token("v3.2", Precision.every("fp8_block"))


def test_an_open_model_priced_in_fp8_block_keeps_its_ratio_to_the_mha_baseline():
    s = summarise("llama-3.1-8b", 131072, Precision.every("fp8_block"))
    per_layer = 2 * 8 * 128 + 2 * 8 * 128 // 128 * 4
    assert s.storage.total == 32 * per_layer
    assert s.ratio == 60 * (128 * 256 + 128 * 256 // 128 * 4) / (32 * per_layer)


def test_a_precision_a_model_does_not_offer_falls_back_to_its_deployed_format_for_that_role():
    p = core.Precision(main_kv="fp4")
    assert core.cost.fitted("v4.1-flash", p) is p  # V4.1 offers FP4: nothing to fit
    block = core.Precision.every("fp8_block")  # an open model's format the article's models lack
    assert core.cost.fitted("llama-3.1-8b", block) is block
    assert core.cost.fitted("v3.2", block) == core.Precision("bf16", "fp8", "fp8", "fp8_block")  # deployed FP8
    from core.summary import summarise
    s = summarise("v3.2", 1024, block)
    assert s.storage.total == core.storage_per_token("v3.2").total  # the article's deployed formats


def test_formats_are_what_each_role_stores_after_fitting():
    """A layout a model does not offer leaves its deployed one; one it offers is taken."""
    from core.cost import role_layouts

    assert role_layouts("v2", Precision(main_kv="fp8_block")) == role_layouts("v2")
    assert role_layouts("mha", Precision(main_kv="fp8_block"))["main_kv"].precision == "fp8_block"
    assert {r: f.precision for r, f in role_layouts("v4-flash", Precision(main_kv="fp4")).items()} == {
        "main_kv": "fp4", "index_key": "fp4", "local_kv": "fp8"}
    assert role_layouts("v4-flash", Precision("bf16")) == role_layouts("v4-flash",
                                                                 Precision("deployed", "bf16", "bf16", "bf16"))


@pytest.mark.parametrize("model", [*MODEL_IDS, *core.open_models.OPEN_MODELS])
def test_the_layer_table_sums_to_the_growth_the_windows_and_the_states(model):
    for p in (core.DEPLOYED, core.ALL_BF16):
        groups = core.cost.layer_groups(model, p)
        assert sorted(i for g in groups for i in g.layers) == list(range(core.get(model).n_layers))
        assert sum(len(g.layers) * g.per_token for g in groups) == core.storage_per_token(model, p).total
        assert sum(len(g.layers) * g.window for g in groups) == core.local_kv(model, p)
        assert sum(len(g.layers) * g.state for g in groups) == core.state_bytes(model)
        assert all(g.per_token == g.window == 0 for g in groups if g.shared)
