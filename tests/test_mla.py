"""MLA mechanism invariants: three computation orders agree, rounding shows, costs add up."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.mechanisms import mla, numerics
from core.mechanisms.mla import ARTICLE_DIMS, MLADims

SEEDS = (0, 1, 7, 42)
DIMS = (
    MLADims(),
    MLADims(tokens=3, hidden=8, q_lora_rank=6, kv_lora_rank=4, n_heads=1, qk_nope_head_dim=2, qk_rope_head_dim=2),
    MLADims(tokens=9, hidden=32, q_lora_rank=24, kv_lora_rank=16, n_heads=4, qk_nope_head_dim=8, qk_rope_head_dim=4),
)
CASES = [(d, s) for d in DIMS for s in SEEDS]


def _id(case):
    d, s = case
    return f"T{d.tokens}-D{d.hidden}-h{d.n_heads}-seed{s}"


# --- numerics ---------------------------------------------------------------------------


def test_fp64_rounding_is_the_identity():
    x = np.random.default_rng(0).standard_normal((5, 7))
    assert np.array_equal(numerics.round_to(x, "fp64"), x)


def test_bf16_keeps_8_significant_bits():
    x = np.array([1.0 + 2.0**-9, 1.0 + 2.0**-7, 3.0])
    assert numerics.round_to(x, "bf16").tolist() == [1.0, 1.0 + 2.0**-7, 3.0]


def test_fp8_scales_per_tensor_so_large_values_do_not_overflow():
    x = np.array([1e6, -2.5e5, 3.0, 0.0])
    y = numerics.round_to(x, "fp8")
    assert np.all(np.isfinite(y))
    assert y[0] == pytest.approx(1e6, rel=1e-15)  # amax lands on 448 × scale
    assert y[3] == 0.0
    assert abs(y[1] - x[1]) / abs(x[1]) <= 2.0**-4  # 3 mantissa bits: half-ulp ≤ 1/16
    assert y[2] != 3.0  # far below amax, it falls into the coarse subnormal steps


def test_fp8_lets_a_minus_infinity_mask_pass_through():
    y = numerics.round_to(np.array([1.0, -np.inf, 0.3]), "fp8")
    assert y[1] == -np.inf and np.isfinite(y[[0, 2]]).all()


def test_matmul_rounds_operands_and_result():
    a, b = np.array([[1.0 + 2.0**-9]]), np.array([[1.0 + 2.0**-9]])
    assert numerics.matmul(a, b, "fp64")[0, 0] == (1.0 + 2.0**-9) ** 2
    assert numerics.matmul(a, b, "bf16")[0, 0] == 1.0


@pytest.mark.parametrize("bad", ["fp16", "FP8", "", "bfloat16"])
def test_an_unknown_precision_raises_value_error(bad):
    with pytest.raises(ValueError, match="unknown precision"):
        numerics.round_to(np.ones(2), bad)
    with pytest.raises(ValueError, match="unknown precision"):
        mla.run_mla(precision=bad)
    run = mla.run_mla()
    with pytest.raises(ValueError, match="unknown precision"):
        mla.content_score_orders(run, precision=bad)


# --- dims ---------------------------------------------------------------------------------


@pytest.mark.parametrize("field,value", [("tokens", 0), ("hidden", -1), ("n_heads", 1.5),
                                         ("kv_lora_rank", True), ("qk_rope_head_dim", 3)])
def test_bad_dims_raise_value_error(field, value):
    with pytest.raises(ValueError, match=field):
        MLADims(**{field: value})


def test_the_article_dims_are_for_formulas_and_refuse_to_run():
    assert (ARTICLE_DIMS.hidden, ARTICLE_DIMS.q_lora_rank, ARTICLE_DIMS.kv_lora_rank) == (5120, 1536, 512)
    assert (ARTICLE_DIMS.n_heads, ARTICLE_DIMS.qk_nope_head_dim, ARTICLE_DIMS.qk_rope_head_dim) == (128, 128, 64)
    assert ARTICLE_DIMS.tokens == 131072 and ARTICLE_DIMS.qk_head_dim == 192
    with pytest.raises(ValueError, match="too large"):
        mla.run_mla(ARTICLE_DIMS)


def test_default_dims_keep_the_article_order_of_widths():
    d = MLADims()
    assert d.q_lora_rank > d.kv_lora_rank > d.qk_nope_head_dim > d.qk_rope_head_dim
    assert ARTICLE_DIMS.q_lora_rank > ARTICLE_DIMS.kv_lora_rank > ARTICLE_DIMS.qk_nope_head_dim \
        > ARTICLE_DIMS.qk_rope_head_dim


def test_an_unknown_order_or_head_raises_value_error():
    run = mla.run_mla()
    with pytest.raises(ValueError, match="order"):
        mla.content_score(run, order="fused")
    with pytest.raises(ValueError, match="order"):
        mla.head_output(run, order="premerged")  # the output's third order is "merged"
    with pytest.raises(ValueError, match="head"):
        mla.content_score_orders(run, head=run.dims.n_heads)


# --- the layer ----------------------------------------------------------------------------


def test_the_run_keeps_every_intermediate_in_its_documented_shape():
    d = MLADims()
    r = mla.run_mla(d)
    T, nh, dk, dr = d.tokens, d.n_heads, d.qk_nope_head_dim, d.qk_rope_head_dim
    shapes = {"X": (T, d.hidden), "C_Q": (T, d.q_lora_rank), "Q_C": (nh, T, dk), "Q_R": (nh, T, dr),
              "C_KV": (T, d.kv_lora_rank), "K_C": (nh, T, dk), "V": (nh, T, dk), "K_R": (T, dr),
              "S_content": (nh, T, T), "S_position": (nh, T, T), "S": (nh, T, T), "P": (nh, T, T),
              "Z": (nh, T, dk), "Y": (T, d.hidden)}
    for name, shape in shapes.items():
        assert getattr(r, name).shape == shape, name
    w = r.weights
    assert w.W_UQ.shape == (nh, d.q_lora_rank, dk) and w.W_O.shape == (nh, dk, d.hidden)


def test_the_same_seed_gives_the_same_run_and_another_seed_does_not():
    a, b, c = mla.run_mla(seed=3), mla.run_mla(seed=3), mla.run_mla(seed=4)
    assert np.array_equal(a.Y, b.Y)
    assert not np.allclose(a.Y, c.Y)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_probability_rows_sum_to_one_and_are_zero_above_the_diagonal(case):
    r = mla.run_mla(*case)
    T = r.dims.tokens
    assert np.allclose(r.P.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(r.P[:, ~np.tri(T, dtype=bool)] == 0.0)
    assert np.all(r.P[:, np.tri(T, dtype=bool)] > 0.0)
    assert np.all(np.isneginf(r.S[:, ~np.tri(T, dtype=bool)]))


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_the_score_is_the_scaled_sum_of_content_and_position_scores(case):
    r = mla.run_mla(*case)
    lower = np.tri(r.dims.tokens, dtype=bool)
    expected = (r.S_content + r.S_position) / math.sqrt(r.dims.qk_nope_head_dim + r.dims.qk_rope_head_dim)
    assert np.allclose(r.S[:, lower], expected[:, lower], rtol=0, atol=1e-12)
    # the same as one dot product of the concatenated [content | position] query and key
    q = np.concatenate([r.Q_C, r.Q_R], axis=-1)
    k = np.concatenate([r.K_C, np.broadcast_to(r.K_R, (r.dims.n_heads, *r.K_R.shape))], axis=-1)
    assert np.allclose(q @ np.swapaxes(k, -1, -2), r.S_content + r.S_position, rtol=0, atol=1e-12)


def test_the_position_key_is_one_array_shared_by_every_head():
    r = mla.run_mla(MLADims(n_heads=3))
    assert r.K_R.shape == (r.dims.tokens, r.dims.qk_rope_head_dim)  # no head axis to differ along
    for h in range(3):
        assert np.allclose(r.S_position[h], r.Q_R[h] @ r.K_R.T, rtol=0, atol=1e-14)
    # heads differ in their queries, not in the key
    assert not np.allclose(r.Q_R[0], r.Q_R[1])


def test_only_the_latent_and_the_position_key_come_from_x_for_the_cache():
    r = mla.run_mla()
    w = r.weights
    assert np.allclose(r.C_KV, r.X @ w.W_DKV, rtol=0, atol=1e-14)
    assert np.allclose(r.K_C, r.C_KV @ w.W_UK, rtol=0, atol=1e-14)  # keys rebuild from C^KV
    assert np.allclose(r.V, r.C_KV @ w.W_UV, rtol=0, atol=1e-14)


# --- RoPE ---------------------------------------------------------------------------------


@pytest.mark.parametrize("interleaved", [True, False])
def test_rope_preserves_norms(interleaved):
    x = np.random.default_rng(1).standard_normal((3, 10, 8))
    y = mla.rope(x, np.arange(10) * 37, interleaved=interleaved)
    assert np.allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-13)
    assert not np.allclose(y[:, 1:], x[:, 1:])  # it did rotate
    assert np.allclose(y[:, 0], x[:, 0])  # position 0 is the identity


@pytest.mark.parametrize("interleaved", [True, False])
def test_rope_makes_query_key_products_depend_only_on_the_position_difference(interleaved):
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal(6), rng.standard_normal(6)

    def score(t, s):
        qt = mla.rope(q[None], [t], interleaved=interleaved)[0]
        ks = mla.rope(k[None], [s], interleaved=interleaved)[0]
        return qt @ ks

    for gap in (0, 1, 5, 40):
        ref = score(gap, 0)
        for start in (3, 100, 1000):
            assert score(start + gap, start) == pytest.approx(ref, abs=1e-10)
    assert score(5, 0) != pytest.approx(score(6, 0), abs=1e-6)


def test_rope_pairs_adjacent_dims_by_default():
    x = np.array([[1.0, 0.0, 0.0, 0.0]])
    y = mla.rope(x, [1])  # the first pair turns by θ_0 = 1 radian
    assert np.allclose(y[0], [math.cos(1), math.sin(1), 0.0, 0.0])
    z = mla.rope(x, [1], interleaved=False)  # dims 0 and 2 form the first pair
    assert np.allclose(z[0], [math.cos(1), 0.0, math.sin(1), 0.0])


# --- A5 / A6: three orders ----------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_absorbed_expanded_and_premerged_content_scores_agree_at_fp64(case):
    r = mla.run_mla(*case)
    for h in range(r.dims.n_heads):
        res = mla.content_score_orders(r, h)
        assert res.max_abs_diff <= 1e-12
        assert np.allclose(res.results["expand"], r.S_content[h], rtol=0, atol=1e-12)
        assert set(res.results) == set(mla.SCORE_ORDERS)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_absorbed_expanded_and_merged_outputs_agree_at_fp64(case):
    r = mla.run_mla(*case)
    for h in range(r.dims.n_heads):
        res = mla.output_orders(r, h)
        assert res.max_abs_diff <= 1e-12
        assert set(res.results) == set(mla.OUTPUT_ORDERS)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_head_contributions_sum_to_the_layer_output(case):
    r = mla.run_mla(*case)
    for order in mla.OUTPUT_ORDERS:
        total = sum(mla.head_output(r, h, order)[0] for h in range(r.dims.n_heads))
        assert np.allclose(total, r.Y, rtol=0, atol=1e-12)


def test_the_orders_keep_the_intermediates_with_the_widths_the_article_names():
    d = MLADims()
    r = mla.run_mla(d)
    s = mla.content_score_orders(r).intermediates
    assert s["K_C_h"].shape == (d.tokens, d.qk_nope_head_dim)  # expanded keys
    assert s["Q_hat"].shape == (d.tokens, d.kv_lora_rank)  # absorbed query: r_kv columns
    assert s["W_hat"].shape == (d.q_lora_rank, d.kv_lora_rank)
    o = mla.output_orders(r).intermediates
    assert o["V_h"].shape == (d.tokens, d.qk_nope_head_dim)
    assert o["U_h"].shape == (d.tokens, d.kv_lora_rank)
    assert o["W_hat"].shape == (d.kv_lora_rank, d.hidden)
    assert np.allclose(o["U_h"], r.P[0] @ r.C_KV, rtol=0, atol=1e-14)


def test_max_abs_diff_is_the_largest_pairwise_difference():
    r = mla.run_mla()
    res = mla.content_score_orders(r, precision="fp8")
    a, b, c = (res.results[o] for o in mla.SCORE_ORDERS)
    expected = max(np.abs(a - b).max(), np.abs(a - c).max(), np.abs(b - c).max())
    assert res.max_abs_diff == expected
    assert res.max_rel_diff == pytest.approx(expected / max(np.abs(x).max() for x in (a, b, c)))


# Bounds on max_abs_diff / max |value|, measured over these dims × 50 seeds (every head):
# bf16 score 0.0009–0.016, output 0.0015–0.025; fp8 score 0.012–0.20, output 0.018–0.17.
ROUNDING_BOUNDS = {"bf16": 0.05, "fp8": 0.4}


@pytest.mark.parametrize("precision", ["bf16", "fp8"])
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_low_precision_orders_differ_by_a_small_nonzero_amount(case, precision):
    r = mla.run_mla(*case)
    for h in range(r.dims.n_heads):
        for res in (mla.content_score_orders(r, h, precision), mla.output_orders(r, h, precision)):
            assert 0.0 < res.max_rel_diff <= ROUNDING_BOUNDS[precision], (res.quantity, h)
            assert res.precision == precision


def test_fp8_rounds_coarser_than_bf16_on_average():
    diffs = {p: np.mean([mla.content_score_orders(mla.run_mla(seed=s), 0, p).max_rel_diff for s in range(20)])
             for p in ("bf16", "fp8")}
    assert diffs["fp8"] > 4 * diffs["bf16"]


def test_a_low_precision_run_stays_close_to_the_fp64_run():
    exact, bf16 = mla.run_mla(), mla.run_mla(precision="bf16")
    assert 0 < np.abs(bf16.Y - exact.Y).max() <= 0.05 * np.abs(exact.Y).max()


# --- order costs ---------------------------------------------------------------------------


def test_costs_by_hand_at_decode_with_the_article_context():
    c = mla.order_costs(1, 131072)
    rq, rkv, dk, D, n = 1536, 512, 128, 5120, 131072
    assert c["score", "expand"].macs == rq * dk + n * rkv * dk + n * dk == 8_606_908_416
    assert c["score", "absorb"].macs == rq * dk + dk * rkv + n * rkv == 67_371_008
    assert c["score", "premerged"].macs == rq * rkv + n * rkv == 67_895_296
    assert c["output", "expand"].macs == n * rkv * dk + n * dk + dk * D == 8_607_367_168
    assert c["output", "absorb"].macs == n * rkv + rkv * dk + dk * D == 67_829_760
    assert c["output", "merged"].macs == n * rkv + rkv * D == 69_730_304
    # expanding reads the latent and then the expanded keys; absorbing reads the latent only
    assert c["score", "expand"].reads_expanded == n * dk
    assert c["score", "absorb"].reads_expanded == 0
    assert c["score", "absorb"].reads_cache == n * rkv


def test_costs_by_hand_at_a_4096_token_prefill():
    c = mla.order_costs(4096, 4096)
    q = n = 4096
    rq, rkv, dk, D = 1536, 512, 128, 5120
    expand, absorb = c["score", "expand"].macs, c["score", "absorb"].macs
    assert expand == q * rq * dk + n * rkv * dk + q * n * dk == 3_221_225_472
    assert absorb == q * rq * dk + q * dk * rkv + q * n * rkv == 9_663_676_416
    assert expand < absorb  # one expansion shared by 4096 queries beats 4× longer dots
    out_expand, out_absorb = c["output", "expand"].macs, c["output", "absorb"].macs
    assert out_expand == n * rkv * dk + q * n * dk + q * dk * D == 5_100_273_664
    assert out_absorb == q * n * rkv + q * rkv * dk + q * dk * D == 11_542_724_608
    assert out_expand < out_absorb


def test_absorb_beats_expand_at_decode_for_every_long_context():
    c = mla.order_costs(1, np.array([1024, 4096, 32768, 131072, 1 << 20]))
    for quantity in ("score", "output"):
        absorb, expand = c[quantity, "absorb"], c[quantity, "expand"]
        assert np.all(absorb.macs < expand.macs / 50)
        assert np.all(absorb.reads < expand.reads)


def test_costs_are_vectorised_and_totals_are_the_sum_of_their_parts():
    keys = np.array([1, 10, 1000, 131072])
    costs = mla.order_costs(keys, keys)
    assert set(costs) == {("score", o) for o in mla.SCORE_ORDERS} | {("output", o) for o in mla.OUTPUT_ORDERS}
    for (_, order), c in costs.items():
        assert c.macs.shape == c.reads.shape == keys.shape
        assert np.array_equal(c.keys, keys) and np.array_equal(c.queries, keys)
        assert np.array_equal(c.macs, c.macs_project + c.macs_expand + c.macs_attend)
        assert np.array_equal(c.reads, c.reads_cache + c.reads_expanded + c.reads_other)
        assert order == "expand" or not c.macs_expand.any()


def test_costs_of_scalars_are_scalars_and_a_decode_step_broadcasts_over_contexts():
    assert mla.order_costs(1, 6)["score", "absorb"].macs.shape == ()
    keys = np.array([16, 256, 4096])
    decode = mla.order_costs(1, keys)["score", "absorb"]
    assert np.array_equal(decode.queries, [1, 1, 1]) and decode.macs.shape == keys.shape


def test_costs_follow_the_dims_they_are_given():
    d = MLADims()
    small = mla.order_costs(1, 6, d)
    assert small["score", "absorb"].macs_attend == 6 * d.kv_lora_rank
    assert small["score", "expand"].macs_expand == 6 * d.kv_lora_rank * d.qk_nope_head_dim


@pytest.mark.parametrize("queries,keys", [(0, 10), (1, 0), (1, [5, -1])])
def test_costs_refuse_empty_queries_or_contexts(queries, keys):
    with pytest.raises(ValueError):
        mla.order_costs(queries, keys)
