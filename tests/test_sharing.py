"""Layer sharing and the per-token factors, derived from the specs."""

import dataclasses
from fractions import Fraction

import pytest

import core
from core.factors import per_token, storing
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
def test_the_kinds_of_storing_layer_add_up_to_the_per_token_storage_exactly(model, precision):
    kinds = storing(model, precision)
    assert per_token(model, precision) == core.storage_per_token(model, precision).total
    assert sum(k.layers for k in kinds) == core.get(model).n_global
    for k in kinds:
        assert k.per_token == Fraction(k.layers * k.entry, k.ratio) and k.bytes_per_value * k.width == k.entry


def test_each_kind_has_the_numbers_its_model_really_has():
    """No fitted factor: V4-Flash is 21 CSA layers at m = 4 and 20 HCA layers at m = 128, V4.1-Flash
    3 encoder Full layers at m = 2 and 1 decoder Full layer at m = 1; byte counts exact."""
    rows = {m: [(k.kind, k.stack, k.layers, k.width, k.entry, k.ratio) for k in storing(m)]
            for m in ("mha", "v2", "v3.2", "v4-flash", "v4.1-flash")}
    assert rows == {
        "mha": [("MHA", "", 60, 32768, 65536, 1)],
        "v2": [("MLA", "", 60, 576, 1152, 1)],
        "v3.2": [("DSA", "", 61, 576 + 128, 656 + 132, 1)],
        "v4-flash": [("CSA", "", 21, 512 + 128, 584 + 68, 4), ("HCA", "", 20, 512, 584, 128)],
        "v4.1-flash": [("CSA2", "encoder", 3, 512 + 128, 288 + 68, 2), ("CSA2", "decoder", 1, 512 + 128, 288 + 68, 1)],
    }
    assert [k.per_token for k in storing("v4-flash")] == [3423, Fraction(365, 4)]
    assert [k.per_token for k in storing("v4.1-flash")] == [534, 356]
    assert storing("v4.1-flash")[0].bytes_per_value == Fraction(356, 640)


def test_a_model_without_storing_layers_has_no_kinds():
    lonely = dataclasses.replace(core.get("v4-flash"), id="x", layers=(Layer("SWA"),))
    assert storing(lonely) == () and per_token(lonely) == 0
