"""Layer sharing and the per-token factors, derived from the specs."""

import dataclasses

import pytest

import core
from core.factors import factors
from core.mechanisms.sharing import kv_groups, layer_roles, selection_groups
from core.models import Layer


def test_v41_has_exactly_four_layers_that_store_global_kv():
    roles = layer_roles("v4.1-flash")
    assert [r.index for r in roles if r.stores_global] == [2, 8, 14, 20]
    assert sum(r.kind == "CSA2" for r in roles) == 38


def test_v41_modes_read_as_the_article_lays_them_out():
    labels = [r.label for r in layer_roles("v4.1-flash")]
    encoder = ["SWA", "SWA"] + (["Full"] + ["Reuse"] * 5) * 3
    decoder = ["Full"] + ["Reuse"] * 3 + (["Reindex"] + ["Reuse"] * 3) * 4
    assert labels == encoder + decoder


def test_every_reuse_layer_borrows_from_the_latest_full_or_reindex_and_nothing_borrows_forward():
    latest = None
    for r in layer_roles("v4.1-flash"):
        if r.label in ("Full", "Reindex"):
            latest = r.index
            assert r.sel_from == r.index
        if r.label == "Reuse":
            assert r.sel_from == latest
        if r.kv_from is not None:
            assert r.kv_from <= r.index and layer_roles("v4.1-flash")[r.kv_from].label == "Full"


def test_kv_groups_and_selection_groups_differ_in_the_decoder():
    assert [(g.first, g.last) for g in kv_groups("v4.1-flash")] == [(2, 7), (8, 13), (14, 19), (20, 39)]
    sel = [(g.first, g.last) for g in selection_groups("v4.1-flash")]
    assert sel[3:] == [(20, 23), (24, 27), (28, 31), (32, 35), (36, 39)]


def test_changing_the_schedule_changes_the_costs_consistently():
    m = core.get("v4.1-flash")
    # turn the first decoder Reindex into a Full layer: a fifth storing layer (m = 1)
    layers = list(m.layers)
    layers[24] = dataclasses.replace(layers[24], mode="full")
    five = dataclasses.replace(m, layers=tuple(layers))
    assert sum(r.stores_global for r in layer_roles(five)) == 5
    assert core.storage_per_token(five).total - core.storage_per_token(m).total == 288 + 68


@pytest.mark.parametrize("model", list(core.MODELS))
@pytest.mark.parametrize("precision", [core.DEPLOYED, core.ALL_BF16])
def test_the_factors_multiply_to_the_per_token_storage(model, precision):
    f = factors(model, precision)
    assert f.total == pytest.approx(core.storage_per_token(model, precision).total, rel=1e-12)


def test_each_generation_cuts_the_factor_the_article_names():
    mha, v2, v4, v41 = (factors(m) for m in ("mha", "v2", "v4-flash", "v4.1-flash"))
    assert (mha.width, v2.width) == (32768, 576)  # MLA narrows the vector
    assert (v4.ratio > 7) and v2.ratio == 1  # V4 compresses along tokens
    assert (v4.layers, v41.layers) == (41, 4)  # V4.1 shares layers
    assert v41.bytes_per_element < v4.bytes_per_element < v2.bytes_per_element == 2  # lower precision


def test_a_model_without_storing_layers_is_refused():
    lonely = dataclasses.replace(core.get("v4-flash"), id="x", layers=(Layer("SWA"),))
    with pytest.raises(ValueError, match="no layer that stores"):
        factors(lonely)
