"""The numeric primitives every mechanism run shares (core.mechanisms.ops): RoPE keeps norms and sees
only relative positions, softmax and its sink agree, the norms normalise, and the one
top-k ranking picks exactly min(k, visible) and never a future position."""

from __future__ import annotations

import numpy as np
import pytest

from core.mechanisms import ops

RNG = np.random.default_rng(7)


# --- RoPE ---------------------------------------------------------------------------------


@pytest.mark.parametrize("interleaved", [True, False])
def test_rope_keeps_every_rows_norm(interleaved):
    x = RNG.standard_normal((3, 9, 8))
    y = ops.rope(x, np.arange(9) * 101, interleaved=interleaved)
    assert np.allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-13)


@pytest.mark.parametrize("interleaved", [True, False])
def test_rope_dot_products_depend_on_the_offset_only(interleaved):
    q, k = RNG.standard_normal((1, 6)), RNG.standard_normal((1, 6))
    dots = [float(ops.rope(q, [t], interleaved=interleaved)[0] @ ops.rope(k, [t - 3], interleaved=interleaved)[0])
            for t in (3, 10, 500)]
    assert np.allclose(dots, dots[0], rtol=1e-12)


def test_rope_at_position_zero_is_the_identity_and_an_odd_width_is_refused():
    x = RNG.standard_normal((4, 6))
    assert np.array_equal(ops.rope(x, np.zeros(4)), x)
    with pytest.raises(ValueError, match="even"):
        ops.rope(RNG.standard_normal((2, 5)), [0, 1])


def test_rope_tail_rotates_only_the_last_dims_and_turns_back_with_negative_positions():
    x = RNG.standard_normal((5, 8))
    pos = np.arange(5) * 7
    y = ops.rope_tail(x, pos, 4)
    assert np.array_equal(y[:, :4], x[:, :4])
    assert np.allclose(y[:, 4:], ops.rope(x[:, 4:], pos), rtol=0, atol=1e-15)
    assert np.allclose(ops.rope_tail(y, -pos, 4), x, rtol=0, atol=1e-14)


def test_rope_slice_rotates_a_leading_part_with_half_split_pairs():
    x = RNG.standard_normal((3, 8))
    y = ops.rope_slice(x, [1, 2, 3], slice(0, 4), interleaved=False)
    assert np.array_equal(y[:, 4:], x[:, 4:])
    assert np.allclose(y[:, :4], ops.rope(x[:, :4], [1, 2, 3], interleaved=False), rtol=0, atol=0)


# --- softmax and the sink -------------------------------------------------------------------


def test_softmax_rows_sum_to_one_and_minus_infinity_gets_exactly_zero():
    s = RNG.standard_normal((4, 5)) + ops.causal_mask(5)[:4]
    p = ops.softmax(s)
    assert np.allclose(p.sum(axis=-1), 1.0, rtol=0, atol=1e-15)
    assert np.all(p[np.isneginf(s)] == 0.0)


def test_softmax_along_an_axis_is_the_row_softmax_of_that_axis():
    s = RNG.standard_normal((3, 4, 5))
    assert np.allclose(ops.softmax(s, axis=1), np.moveaxis(ops.softmax(np.moveaxis(s, 1, -1)), -1, 1), atol=1e-16)
    assert np.allclose(ops.softmax(s, axis=1).sum(axis=1), 1.0)


def test_a_sink_of_minus_infinity_is_plain_softmax_and_takes_no_mass():
    S = RNG.standard_normal((4, 7))
    P, mass = ops.sink_softmax(S, -np.inf)
    assert np.allclose(P, ops.softmax(S), rtol=0, atol=1e-16)
    assert np.all(mass == 0.0)


def test_a_finite_sink_takes_the_mass_the_weights_lose():
    S = RNG.standard_normal((4, 7))
    P, mass = ops.sink_softmax(S, np.array([-1.0, 0.0, 1.0, 50.0]))
    assert np.allclose(P.sum(axis=-1) + mass, 1.0, rtol=0, atol=1e-15)
    assert np.all(np.diff(mass) > 0) and mass[-1] > 0.999
    assert np.allclose(P / P.sum(axis=-1, keepdims=True), ops.softmax(S), rtol=0, atol=1e-14)


# --- norms and the mask ----------------------------------------------------------------------


def test_rms_norm_gives_unit_root_mean_square_times_the_scale():
    x = RNG.standard_normal((6, 8)) * 5
    scale = np.linspace(0.5, 2.0, 8)
    y = ops.rms_norm(x, scale)
    assert np.allclose(np.sqrt(np.mean((y / scale) ** 2, axis=-1)), 1.0, rtol=1e-6)


def test_layer_norm_gives_zero_mean_and_unit_variance():
    y = ops.layer_norm(RNG.standard_normal((6, 16)) * 3 + 2)
    assert np.allclose(y.mean(axis=-1), 0.0, atol=1e-14) and np.allclose(y.var(axis=-1), 1.0, rtol=1e-5)


def test_the_causal_mask_hides_exactly_the_later_positions():
    m = ops.causal_mask(4)
    assert np.array_equal(np.isneginf(m), ~np.tri(4, dtype=bool)) and np.all(m[np.tri(4, dtype=bool)] == 0)


# --- the indexer score and top-k --------------------------------------------------------------


def test_index_scores_are_the_weighted_relu_dot_products_of_every_head():
    q, keys, w = RNG.standard_normal((3, 5, 4)), RNG.standard_normal((6, 4)), RNG.standard_normal((5, 3))
    expected = np.array([[[w[t, h] * max(q[h, t] @ keys[s], 0.0) for s in range(6)] for t in range(5)]
                         for h in range(3)])
    assert np.allclose(ops.index_scores(q, keys, w), expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("T,k", [(1, 1), (6, 1), (6, 3), (9, 9), (12, 20)])
def test_causal_top_k_picks_exactly_min_k_visible_and_never_a_future_position(T, k):
    scores = RNG.standard_normal((T, T))
    sel = ops.top_k(scores, np.arange(1, T + 1), k)
    assert np.array_equal(sel.sum(axis=1), np.minimum(k, np.arange(1, T + 1)))
    assert not np.any(sel & ~np.tri(T, dtype=bool))
    for t in range(T):
        chosen, left = scores[t, sel[t]], scores[t, : t + 1][~sel[t, : t + 1]]
        assert not left.size or chosen.min() >= left.max()


def test_top_k_counts_broadcast_over_rows_and_ties_go_to_the_lower_index():
    sel = ops.top_k(np.zeros((3, 5)), np.array([0, 2, 5]), 3)
    assert sel.tolist() == [[False] * 5, [True, True, False, False, False], [True, True, True, False, False]]
    assert ops.top_k(np.array([3.0, 9.0, 9.0, 1.0]), 4, 1).tolist() == [False, True, False, False]


@pytest.mark.parametrize("k", [0, -1, 1.5, True])
def test_top_k_refuses_a_k_that_is_not_a_positive_integer(k):
    with pytest.raises(ValueError, match="topk"):
        ops.top_k(np.zeros((2, 2)), 2, k)


# --- seeded initialisation --------------------------------------------------------------------


def test_init_weight_scales_by_the_input_width_unless_told():
    w = ops.init_weight(np.random.default_rng(0), 400, 300)
    assert w.shape == (400, 300) and w.std() == pytest.approx(1 / 20, rel=0.02)
    v = ops.init_weight(np.random.default_rng(0), 2, 400, 300, fan_in=1600)
    assert v.std() == pytest.approx(1 / 40, rel=0.02)
    s = ops.init_scale(np.random.default_rng(0), 1000)
    assert s.mean() == pytest.approx(1.0, abs=0.01) and s.std() == pytest.approx(0.1, rel=0.1)
