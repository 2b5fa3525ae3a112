"""Lightning indexer invariants: top-k picks exactly min(k, visible), never the future,
and sparse MLA keeps probability only on what was picked."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.mechanisms import indexer, mla, ops
from core.mechanisms.indexer import IndexerDims
from core.mechanisms.mla import MLADims

SEEDS = (0, 1, 5, 123)
TOKENS = 7
RUNS = {s: mla.run_mla(MLADims(tokens=TOKENS), s) for s in SEEDS}
TOPKS = (1, 2, TOKENS, TOKENS + 5)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("topk", TOPKS)
def test_each_row_selects_exactly_min_k_and_visible_positions(seed, topk):
    idx = indexer.run_indexer(RUNS[seed], topk=topk, seed=seed)
    expected = np.minimum(topk, np.arange(TOKENS) + 1)
    assert idx.selected.sum(axis=1).tolist() == expected.tolist()
    assert idx.selected.dtype == bool


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("topk", TOPKS)
def test_no_row_ever_selects_a_future_position(seed, topk):
    idx = indexer.run_indexer(RUNS[seed], topk=topk, seed=seed)
    future = ~np.tri(TOKENS, dtype=bool)
    assert not idx.selected[future].any()
    assert np.all(np.isneginf(idx.M[future]))
    assert np.all(np.isneginf(idx.I[future]))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_selection_holds_the_highest_visible_scores(seed):
    idx = indexer.run_indexer(RUNS[seed], topk=3, seed=seed)
    for t in range(TOKENS):
        chosen = idx.I[t, idx.selected[t]]
        left = idx.I[t, : t + 1][~idx.selected[t, : t + 1]]
        if left.size:
            assert chosen.min() >= left.max()


def test_ties_go_to_the_earlier_position():
    scores = np.zeros((4, 4))  # every visible score ties (as when ReLU zeroes them all)
    sel = ops.top_k(scores, np.arange(1, 5), 2)
    assert sel.tolist() == [[True, False, False, False], [True, True, False, False],
                            [True, True, False, False], [True, True, False, False]]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_index_score_is_the_weighted_sum_of_relu_dot_products(seed):
    run = RUNS[seed]
    idx = indexer.run_indexer(run, topk=2, seed=seed)
    H = idx.dims.n_heads
    for t in range(TOKENS):
        for s in range(TOKENS):
            per_head = [idx.w_I[t, j] * max(0.0, float(np.dot(idx.q_I[j, t], idx.k_I[s]))) for j in range(H)]
            for j in range(H):
                assert idx.head_scores[j, t, s] == pytest.approx(per_head[j], abs=1e-12)
            expected = sum(per_head) if s <= t else -math.inf
            assert idx.I[t, s] == pytest.approx(expected, abs=1e-12)


def test_the_indexer_makes_its_query_from_c_q_and_its_key_and_weights_from_x():
    run = RUNS[0]
    d = IndexerDims()
    idx = indexer.run_indexer(run, dims=d)
    pos = np.arange(TOKENS)
    # the part without RoPE is a plain projection
    assert np.allclose(idx.q_I[..., d.rope_dim:], (run.C_Q @ idx.W_IQ)[..., d.rope_dim:], atol=1e-14)
    assert np.allclose(idx.w_I, run.X @ idx.W_Iw, atol=1e-14)
    # the key: LayerNorm first, then RoPE on the leading rope_dim dims (half-split pairs)
    normed = ops.layer_norm(run.X @ idx.W_IK)
    assert np.allclose(idx.k_I[:, d.rope_dim:], normed[:, d.rope_dim:], atol=1e-14)
    assert np.allclose(idx.k_I[:, : d.rope_dim], mla.rope(normed[:, : d.rope_dim], pos, interleaved=False),
                       atol=1e-14)
    assert np.allclose(normed.mean(axis=-1), 0, atol=1e-12)
    assert idx.k_I.shape == (TOKENS, d.head_dim) and idx.q_I.shape == (d.n_heads, TOKENS, d.head_dim)
    assert idx.w_I.shape == (TOKENS, d.n_heads)


def test_the_indexer_is_reproducible_and_its_seed_matters():
    a = indexer.run_indexer(RUNS[0], seed=3)
    b = indexer.run_indexer(RUNS[0], seed=3)
    c = indexer.run_indexer(RUNS[0], seed=4)
    assert np.array_equal(a.I, b.I) and np.array_equal(a.selected, b.selected)
    assert not np.allclose(a.W_IK, c.W_IK)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_a_bad_topk_raises_value_error(bad):
    with pytest.raises(ValueError, match="topk"):
        indexer.run_indexer(RUNS[0], topk=bad)


@pytest.mark.parametrize("kwargs", [dict(n_heads=0), dict(head_dim=4, rope_dim=3), dict(head_dim=2, rope_dim=4)])
def test_bad_indexer_dims_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        IndexerDims(**kwargs)


def test_the_article_indexer_dims_put_rope_on_half_the_key():
    d = indexer.ARTICLE_INDEXER_DIMS
    assert (d.n_heads, d.head_dim, d.rope_dim) == (64, 128, 64)
    assert indexer.ARTICLE_TOPK == 2048


# --- A10: sparse MLA -----------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("topk", TOPKS)
def test_sparse_probabilities_sum_to_one_and_vanish_off_the_selection(seed, topk):
    run = RUNS[seed]
    idx = indexer.run_indexer(run, topk=topk, seed=seed)
    for h in range(run.dims.n_heads):
        sp = indexer.sparse_mla(run, idx, h)
        assert np.allclose(sp.P.sum(axis=1), 1.0, atol=1e-12)
        assert np.all(sp.P[~idx.selected] == 0.0)
        assert np.all(sp.P[idx.selected] > 0.0)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_latent_is_weighted_by_the_sparse_probabilities(seed):
    run = RUNS[seed]
    idx = indexer.run_indexer(run, topk=2, seed=seed)
    sp = indexer.sparse_mla(run, idx, head=1)
    assert sp.U.shape == (TOKENS, run.dims.kv_lora_rank)
    assert np.allclose(sp.U, sp.P @ run.C_KV, rtol=0, atol=1e-14)
    assert sp.Q_hat.shape == (TOKENS, run.dims.kv_lora_rank)
    assert np.array_equal(sp.S_masked, sp.S + idx.M)


@pytest.mark.parametrize("seed", SEEDS)
def test_keeping_every_position_reproduces_dense_causal_mla(seed):
    run = RUNS[seed]
    idx = indexer.run_indexer(run, topk=TOKENS, seed=seed)
    assert np.array_equal(idx.selected, np.tri(TOKENS, dtype=bool))
    for h in range(run.dims.n_heads):
        sp = indexer.sparse_mla(run, idx, h)
        assert np.allclose(sp.P, run.P[h], rtol=0, atol=1e-12)


def test_a_small_k_changes_the_probabilities_of_dense_mla():
    run = RUNS[0]
    sp = indexer.sparse_mla(run, indexer.run_indexer(run, topk=1), 0)
    assert sp.P[0, 0] == 1.0  # row 0 sees only itself
    assert not np.allclose(sp.P, run.P[0])
    assert (sp.P > 0).sum(axis=1).max() == 1


def test_sparse_mla_refuses_an_indexer_run_of_another_length():
    other = indexer.run_indexer(mla.run_mla(MLADims(tokens=TOKENS + 1)))
    with pytest.raises(ValueError, match="tokens"):
        indexer.sparse_mla(RUNS[0], other)


@pytest.mark.parametrize("tokens, topk", [(2, 1), (6, 3), (10, 12), (7, 7)])
def test_selected_count_matches_the_mask_the_indexer_makes(tokens, topk):
    from core.mechanisms.indexer import selected_count
    run = indexer.run_indexer(mla.run_mla(mla.MLADims(tokens=tokens)), topk=topk)
    assert selected_count(tokens, topk) == int(run.selected.sum())
