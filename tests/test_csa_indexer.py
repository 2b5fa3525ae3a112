"""CSA indexer invariants: only blocks complete at t are candidates, exactly min(k, completed)
are chosen per row, and I is the weighted sum of ReLU dot products, as a loop computes it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.mechanisms import compression as cp
from core.mechanisms import ops
from core.mechanisms.compression import CompressDims
from core.mechanisms.csa_indexer import ARTICLE_INDEX_DIM, run_csa_indexer

SEEDS = (0, 1, 2, 11)
DIMS = (CompressDims(), CompressDims(tokens=17, hidden=6, head_dim=6, rope_dim=2, ratio=3),
        CompressDims(tokens=9, ratio=1))
TOPKS = (1, 2, 3, 50)


@pytest.mark.parametrize("dims", DIMS, ids=[f"T{d.tokens}-m{d.ratio}" for d in DIMS])
@pytest.mark.parametrize("seed", SEEDS)
def test_only_completed_blocks_are_candidates(dims, seed):
    run = run_csa_indexer(dims, seed=seed)
    T, n, m = dims.tokens, dims.n_entries, dims.ratio
    for t in range(T):
        complete = (t + 1) // m
        assert run.n_complete[t] == complete
        assert np.all(np.isfinite(run.I[t, :complete]))
        assert np.all(np.isneginf(run.I[t, complete:]))
        assert not run.selected[t, complete:].any()
        for b in np.flatnonzero(run.selected[t]):
            assert max(run.sources[b]) <= t
    assert run.I.shape == run.selected.shape == (T, n)


@pytest.mark.parametrize("dims", DIMS, ids=[f"T{d.tokens}-m{d.ratio}" for d in DIMS])
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("topk", TOPKS)
def test_each_row_chooses_exactly_min_k_and_completed_blocks_with_the_highest_scores(dims, seed, topk):
    run = run_csa_indexer(dims, topk=topk, seed=seed)
    expected = np.minimum(topk, (np.arange(dims.tokens) + 1) // dims.ratio)
    assert run.selected.sum(axis=1).tolist() == expected.tolist()
    for t in range(dims.tokens):
        chosen = run.I[t, run.selected[t]]
        left = run.I[t, : run.n_complete[t]][~run.selected[t, : run.n_complete[t]]]
        if chosen.size and left.size:
            assert chosen.min() >= left.max()


@pytest.mark.parametrize("seed", SEEDS)
def test_the_index_score_equals_a_loop_over_heads(seed):
    run = run_csa_indexer(seed=seed)
    T, n, H, m = run.dims.tokens, run.dims.n_entries, run.n_heads, run.dims.ratio
    for t in range(T):
        for s in range(n):
            total = 0.0
            for h in range(H):
                dot = sum(run.q_I[h, t, j] * run.K_icomp[s, j] for j in range(run.index_dim))
                term = run.w[t, h] * max(0.0, dot)
                assert run.head_scores[h, t, s] == pytest.approx(term, abs=1e-12)
                total += term
            expected = total if s <= (t + 1) // m - 1 else -math.inf
            assert run.I[t, s] == pytest.approx(expected, abs=1e-12)


def test_index_keys_come_from_an_overlapping_compressor_over_the_main_entries_spans():
    dims = CompressDims()
    run, main = run_csa_indexer(dims, index_dim=4), cp.csa_compress(dims)
    assert np.array_equal(run.X, main.X)  # one input per seed
    assert run.sources == main.sources
    assert run.positions.tolist() == main.positions.tolist()
    assert run.K_icomp.shape == (dims.n_entries, 4)
    m = dims.ratio
    assert np.allclose(run.weights_I.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(run.weights_I[0, :m] == 0.0)
    # the same pooling as the main compressor, with the indexer's own weights
    C2, Z2 = run.X @ run.W_kv_comp_I, run.X @ run.W_z_I
    _, _, _, _, pooled = cp.csa_pool(C2[:, :4], C2[:, 4:], Z2[:, :4], Z2[:, 4:], run.B_I, m)
    expected = ops.rope_tail(ops.rms_norm(pooled, run.scale_I), run.positions, dims.rope_dim)
    assert np.allclose(run.K_icomp, expected, rtol=0, atol=1e-14)


def test_the_query_comes_from_the_shared_c_q_and_the_weights_from_x():
    run = run_csa_indexer()
    r = run.dims.rope_dim
    assert np.allclose(run.c_Q, run.X @ run.W_DQ, rtol=0, atol=1e-15)
    assert np.allclose(run.q_I, ops.rope_tail(run.c_Q @ run.W_IQ, np.arange(run.dims.tokens), r), rtol=0, atol=1e-14)
    assert np.allclose(run.w, run.X @ run.W_w, rtol=0, atol=1e-15)
    assert run.q_I.shape == (run.n_heads, run.dims.tokens, run.index_dim)


def test_a_change_after_t_does_not_change_row_t():
    base = run_csa_indexer(seed=3)
    X = base.X.copy()
    X[8:] += 5.0
    moved = run_csa_indexer(seed=3, X=X)
    assert np.array_equal(base.I[:8], moved.I[:8])  # rows t ≤ 7 score blocks 0, 1: tokens ≤ 7 only
    assert not np.array_equal(base.I[8:], moved.I[8:])
    assert np.array_equal(base.selected[:8], moved.selected[:8])


def test_the_article_index_key_is_128_wide():
    assert ARTICLE_INDEX_DIM == 128


@pytest.mark.parametrize("kwargs", [dict(topk=0), dict(n_heads=-1), dict(index_dim=2), dict(index_dim=True)])
def test_bad_indexer_arguments_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        run_csa_indexer(**kwargs)
