"""Shared K = V attention with a sink: probabilities plus the sink's mass sum to 1, the
output after inverse RoPE depends on s − t only, and grouped output projection is a
block-diagonal W^{O,a} followed by W^{O,b}."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.mechanisms import compression as cp
from core.mechanisms import ops
from core.mechanisms import sink_attention as sa
from core.mechanisms import visibility as vis
from core.mechanisms.mla import softmax
from core.mechanisms.sink_attention import SinkDims

SEEDS = (0, 1, 9)
DIMS = (SinkDims(), SinkDims(n_heads=6, head_dim=8, rope_dim=4, n_groups=3, o_lora_rank=2, hidden=5, q_lora_rank=3),
        SinkDims(n_heads=2, n_groups=1))


def _entries(n=7, c=6, rope_dim=2, seed=0, t=20, shift=0):
    """Raw entries rotated at positions s ≤ t, as the compressor and local KV make them."""
    rng = np.random.default_rng(seed)
    raw = rng.standard_normal((n, c))
    s = np.sort(rng.integers(0, t + 1, n))
    return ops.rope_tail(raw, s + shift, rope_dim), s + shift


@pytest.mark.parametrize("dims", DIMS, ids=["default", "wide", "one-group"])
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("sink", [-np.inf, -3.0, 0.0, 2.5, 40.0])
def test_probabilities_plus_sink_mass_sum_to_one_per_head(dims, seed, sink):
    E, s = _entries(c=dims.head_dim, rope_dim=dims.rope_dim, seed=seed)
    run = sa.shared_kv_attention(E, s, 20, dims=dims, sink=sink, seed=seed)
    assert np.allclose(run.P.sum(axis=1) + run.sink_mass, 1.0, rtol=0, atol=1e-12)
    assert np.allclose(run.sink_mass, 1.0 - run.P.sum(axis=1), rtol=0, atol=1e-12)
    assert np.all(run.P >= 0) and np.all(np.isfinite(run.P))


def test_a_sink_of_minus_infinity_gives_plain_softmax():
    E, s = _entries()
    run = sa.shared_kv_attention(E, s, 20, sink=-np.inf)
    assert np.allclose(run.P, softmax(run.S), rtol=0, atol=1e-15)
    assert np.all(run.sink_mass == 0.0)


def test_the_sink_adds_exp_z_to_the_denominator():
    E, s = _entries()
    z = np.array([-1.0, 0.0, 0.5, 2.0])
    run = sa.shared_kv_attention(E, s, 20, sink=z)
    e = np.exp(run.S)
    assert np.allclose(run.P, e / (e.sum(axis=1, keepdims=True) + np.exp(z)[:, None]), rtol=0, atol=1e-15)
    assert run.sink.tolist() == z.tolist()


def test_a_larger_sink_takes_more_mass_and_keeps_the_entries_ratios():
    E, s = _entries()
    runs = [sa.shared_kv_attention(E, s, 20, sink=z) for z in (-5.0, -1.0, 0.0, 1.0, 5.0)]
    mass = np.array([r.sink_mass for r in runs])  # [sinks, heads]
    assert np.all(np.diff(mass, axis=0) > 0)
    for r in runs:  # the sink scales every entry's weight by the same factor
        assert np.allclose(r.P / r.P.sum(axis=1, keepdims=True), softmax(r.S), rtol=0, atol=1e-14)


@pytest.mark.parametrize("dims", DIMS, ids=["default", "wide", "one-group"])
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shift", [1, 5, 37, 1000])
def test_shifting_t_and_every_position_leaves_the_unrotated_output_unchanged(dims, seed, shift):
    E0, s0 = _entries(c=dims.head_dim, rope_dim=dims.rope_dim, seed=seed)
    E1, s1 = _entries(c=dims.head_dim, rope_dim=dims.rope_dim, seed=seed, shift=shift)
    a = sa.shared_kv_attention(E0, s0, 20, dims=dims, seed=seed)
    b = sa.shared_kv_attention(E1, s1, 20 + shift, dims=dims, seed=seed)
    assert np.allclose(a.S, b.S, rtol=0, atol=1e-12)
    assert np.allclose(a.O_unrot, b.O_unrot, rtol=0, atol=1e-12)
    assert np.allclose(a.y, b.y, rtol=0, atol=1e-12)
    assert not np.allclose(a.O, b.O, rtol=0, atol=1e-6)  # before the inverse rotation it moves


def test_the_query_is_normed_per_head_then_rotated_at_t():
    E, s = _entries()
    run = sa.shared_kv_attention(E, s, 23)
    d = run.dims
    assert np.allclose(run.c_Q, run.x @ run.W_DQ, rtol=0, atol=1e-15)
    normed = run.Q_pre / np.sqrt(np.mean(run.Q_pre**2, axis=1, keepdims=True) + 1e-6)
    assert np.allclose(run.Q, ops.rope_tail(normed, [23], d.rope_dim), rtol=0, atol=1e-14)
    assert np.allclose(np.linalg.norm(run.Q, axis=1), math.sqrt(d.head_dim), rtol=1e-6)
    assert np.allclose(run.S, run.Q @ E.T / math.sqrt(d.head_dim), rtol=0, atol=1e-14)
    assert np.allclose(run.O, run.P @ E, rtol=0, atol=1e-14)
    assert np.allclose(ops.rope_tail(run.O_unrot, [23], d.rope_dim), run.O, rtol=0, atol=1e-14)


@pytest.mark.parametrize("dims", DIMS, ids=["default", "wide", "one-group"])
def test_grouped_projection_equals_a_block_diagonal_w_oa_then_w_ob(dims):
    E, s = _entries(c=dims.head_dim, rope_dim=dims.rope_dim)
    run = sa.shared_kv_attention(E, s, 20, dims=dims)
    g, cg, r_o = dims.n_groups, dims.group_dim, dims.o_lora_rank
    block = np.zeros((g * cg, g * r_o))
    for j in range(g):
        block[j * cg: (j + 1) * cg, j * r_o: (j + 1) * r_o] = run.W_Oa[j]
    assert np.allclose(run.O_unrot.reshape(-1) @ block @ run.W_Ob, run.y, rtol=0, atol=1e-14)
    assert run.groups == tuple(tuple(range(j * dims.heads_per_group, (j + 1) * dims.heads_per_group))
                               for j in range(g))
    for j, heads in enumerate(run.groups):
        assert np.array_equal(run.O_groups[j], np.concatenate([run.O_unrot[h] for h in heads]))
    assert run.Z_a.shape == (g, r_o) and run.y.shape == (dims.hidden,)


def test_attention_runs_on_what_an_hca_layer_makes_visible():
    hca = cp.hca_compress()
    E, pos, rows = vis.gather(hca, 7, 4)
    run = sa.shared_kv_attention(E, pos, 7, sink=0.5)
    assert run.P.shape == (run.dims.n_heads, len(rows))
    assert np.allclose(run.P.sum(axis=1) + run.sink_mass, 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kwargs", [dict(n_heads=4, n_groups=3), dict(rope_dim=6), dict(rope_dim=1),
                                    dict(o_lora_rank=0)])
def test_bad_sink_dims_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        SinkDims(**kwargs)


def test_bad_inputs_raise_value_error():
    E, s = _entries()
    with pytest.raises(ValueError, match="after the query"):
        sa.shared_kv_attention(E, s, int(s.max()) - 1)
    with pytest.raises(ValueError, match="entries"):
        sa.shared_kv_attention(E[:, :4], s, 20)
    with pytest.raises(ValueError, match="sink"):
        sa.shared_kv_attention(E, s, 20, sink=np.inf)
    with pytest.raises(ValueError, match="positions"):
        sa.shared_kv_attention(E, s[:-1], 20)
