"""core.parallel: a layout's decode context parallelism (Parallel.dcp) and one MTP layer's parameters, each by hand."""

from __future__ import annotations

import pytest

import core.open_models  # noqa: F401  (registers the presets)
from core.parallel import ONE_GPU, Parallel, mtp_layer_parameters


def test_dcp_reuses_the_tp_ranks_and_is_named():
    p = Parallel(tp=8, dcp=8)
    assert (p.gpus, p.name) == (8, "TP 8 × DCP 8")  # no GPU of its own (vllm/config/parallel.py:636-641)
    assert Parallel(tp=4, pp=2, dcp=2).name == "TP 4 × PP 2 × DCP 2" and Parallel(tp=4, pp=2, dcp=2).gpus == 8
    assert Parallel(tp=8).name == "TP 8" and ONE_GPU.dcp == 1 and Parallel(8, 1, 1).dcp == 1
    for bad in (0, -1):
        with pytest.raises(ValueError, match="dcp"):
            Parallel(tp=8, dcp=bad)


def test_one_mtp_layer_of_a_dense_model_from_its_widths():
    # Qwen3.5-27B (hidden 5,120, 24 heads and 4 KV heads of 256, MLP 17,408): fc 2 × 5,120²; attention
    # q 5,120 × 24 × 256, k and v 5,120 × 4 × 512, o 24 × 256 × 5,120 (as attention_parameters counts it);
    # a dense gated MLP 3 × 5,120 × 17,408
    fc = 2 * 5120 * 5120
    attention = 5120 * 24 * 256 + 5120 * 4 * 512 + 24 * 256 * 5120
    mlp = 3 * 5120 * 17_408
    assert (fc, attention, mlp) == (52_428_800, 73_400_320, 267_386_880)
    assert mtp_layer_parameters("qwen3.5-27b") == fc + attention + mlp == 393_216_000


def test_a_stage_knows_where_it_sits_though_its_layers_are_alike():
    from core.parallel import stage_of, stages
    parts = stages("v3.2", 4)  # 61 layers: 15, 15, 16, 15 (get_pp_indices: the extra to the stage before the last)
    assert [p.n_layers for p in parts] == [15, 15, 16, 15]
    assert [stage_of(p) for p in parts] == [(0, 4), (1, 4), (2, 4), (3, 4)]
    assert parts[0] == parts[1] and stage_of(parts[0]) != stage_of(parts[1])  # equal layers, their own places
    assert stage_of(stages("v3.2", 1)[0]) is None


def test_the_published_config_is_a_fresh_copy_each_call():
    """The file is read once (lru_cache'd); each caller gets its own dict, nested ones included, so an edit reaches
    neither the cache nor the next caller."""
    from core.parallel import published_config
    first = published_config("v3.2")
    first["hidden_size"] = 1
    first["rope_scaling"]["factor"] = 0
    again = published_config("v3.2")
    assert again["hidden_size"] == 7168 and again["rope_scaling"]["factor"] == 40 and again is not first
