"""V4 compression invariants: softmax weights per channel sum to 1 over a block, entries
exist only for complete blocks, CSA spans overlap by exactly m tokens, RoPE sits at the
block's start, and no entry depends on a token outside its span."""

from __future__ import annotations

import numpy as np
import pytest

from core import cost, get
from core.mechanisms import compression as cp
from core.mechanisms import ops
from core.mechanisms.compression import CompressDims
from core.mechanisms.ops import rope

SEEDS = (0, 1, 7)
DIMS = (
    CompressDims(),
    CompressDims(tokens=13, hidden=5, head_dim=4, rope_dim=2, ratio=3),  # an incomplete last block
    CompressDims(tokens=8, hidden=6, head_dim=8, rope_dim=4, ratio=8),  # a single block
    CompressDims(tokens=9, hidden=4, head_dim=4, rope_dim=2, ratio=1),
)
CASES = [(d, s) for d in DIMS for s in SEEDS]
IDS = [f"T{d.tokens}-m{d.ratio}-c{d.head_dim}-seed{s}" for d, s in CASES]


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_hca_weights_per_channel_sum_to_one_over_the_m_tokens_of_a_block(dims, seed):
    run = cp.hca_compress(dims, seed)
    assert run.weights.shape == (dims.n_entries, dims.ratio, dims.head_dim)
    assert np.allclose(run.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(run.weights > 0)


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_csa_weights_per_channel_sum_to_one_over_2m_rows_and_m_rows_for_the_first_entry(dims, seed):
    run = cp.csa_compress(dims, seed)
    m = dims.ratio
    assert run.weights.shape == (dims.n_entries, 2 * m, dims.head_dim)
    assert np.allclose(run.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(run.weights[0, :m] == 0.0) and np.all(run.row_tokens[0, :m] == -1)
    assert run.entry_weights(0).shape == (m, dims.head_dim)
    assert np.allclose(run.entry_weights(0).sum(axis=0), 1.0, rtol=0, atol=1e-12)
    for i in range(1, dims.n_entries):
        assert run.entry_weights(i).shape == (2 * m, dims.head_dim)
        assert np.all(run.entry_weights(i) > 0)


def test_the_first_csa_entry_softmaxes_its_b_rows_with_the_b_part_of_the_bias():
    run = cp.csa_compress()
    m = run.dims.ratio
    logits = run.Z_b[:m] + run.B[m:]
    e = np.exp(logits - logits.max(axis=0))
    assert np.allclose(run.weights[0, m:], e / e.sum(axis=0), rtol=0, atol=1e-14)


def test_a_csa_entry_reads_the_previous_a_half_then_its_own_b_half_in_one_softmax():
    run = cp.csa_compress()
    m, i = run.dims.ratio, 2
    C_rows = np.concatenate([run.C_a[(i - 1) * m: i * m], run.C_b[i * m: (i + 1) * m]])
    logits = np.concatenate([run.Z_a[(i - 1) * m: i * m], run.Z_b[i * m: (i + 1) * m]]) + run.B
    e = np.exp(logits - logits.max(axis=0))
    w = e / e.sum(axis=0)
    assert np.allclose(run.weights[i], w, rtol=0, atol=1e-14)
    assert np.allclose(run.pooled[i], (w * C_rows).sum(axis=0), rtol=0, atol=1e-14)
    assert np.allclose(np.hstack([run.C_a, run.C_b]), run.X @ run.W_kv_comp, rtol=0, atol=1e-14)
    assert np.allclose(np.hstack([run.Z_a, run.Z_b]), run.X @ run.W_z, rtol=0, atol=1e-14)


def test_with_equal_scores_and_zero_bias_an_hca_entry_before_norm_is_the_block_mean():
    rng = np.random.default_rng(3)
    m, c = 4, 5
    C = rng.standard_normal((11, c))
    Z = np.full_like(C, 0.7)
    _, weights, pooled = cp.hca_pool(C, Z, np.zeros((m, c)), m)
    assert np.allclose(weights, 1 / m, rtol=0, atol=1e-15)
    assert np.allclose(pooled, C[:8].reshape(2, m, c).mean(axis=1), rtol=0, atol=1e-14)


def test_with_equal_scores_and_zero_bias_a_csa_entry_before_norm_is_the_mean_of_its_rows():
    rng = np.random.default_rng(4)
    m, c, T = 3, 4, 10
    C_a, C_b = rng.standard_normal((T, c)), rng.standard_normal((T, c))
    Z = np.zeros((T, c))
    row_tokens, _, _, weights, pooled = cp.csa_pool(C_a, C_b, Z, Z, np.zeros((2 * m, c)), m)
    assert np.allclose(pooled[0], C_b[:m].mean(axis=0), rtol=0, atol=1e-14)
    for i in range(1, T // m):
        expected = np.vstack([C_a[(i - 1) * m: i * m], C_b[i * m: (i + 1) * m]]).mean(axis=0)
        assert np.allclose(pooled[i], expected, rtol=0, atol=1e-14)
    assert np.allclose(weights[1:], 1 / (2 * m), rtol=0, atol=1e-15)


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_hca_entries_are_rmsnormed_pools_rotated_at_their_block_start(dims, seed):
    run = cp.hca_compress(dims, seed)
    n, m, r = dims.n_entries, dims.ratio, dims.rope_dim
    assert run.positions.tolist() == [b * m for b in range(n)]
    assert run.sources == tuple(tuple(range(b * m, (b + 1) * m)) for b in range(n))
    assert np.allclose(run.pooled, (run.weights * run.C[: n * m].reshape(n, m, -1)).sum(axis=1), atol=1e-14)
    rms = np.sqrt(np.mean(run.pooled**2, axis=-1, keepdims=True) + 1e-6)
    assert np.allclose(run.normed, run.pooled / rms * run.scale, rtol=0, atol=1e-14)
    assert np.array_equal(run.entries[:, :-r], run.normed[:, :-r])  # only the last rope_dim dims turn
    assert np.allclose(run.entries[:, -r:], rope(run.normed[:, -r:], run.positions), rtol=0, atol=1e-14)


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_csa_entries_are_rotated_at_their_own_segment_start_not_the_previous_one(dims, seed):
    run = cp.csa_compress(dims, seed)
    m, r = dims.ratio, dims.rope_dim
    assert run.positions.tolist() == [i * m for i in range(dims.n_entries)]
    assert np.array_equal(run.entries[:, :-r], run.normed[:, :-r])
    assert np.allclose(run.entries[:, -r:], rope(run.normed[:, -r:], run.positions), rtol=0, atol=1e-14)


@pytest.mark.parametrize("dims", DIMS, ids=[f"m{d.ratio}" for d in DIMS])
def test_neighbouring_csa_entries_share_exactly_m_source_tokens(dims):
    run = cp.csa_compress(dims)
    m = dims.ratio
    for i in range(dims.n_entries):
        assert run.sources[i] == tuple(range(max(0, (i - 1) * m), (i + 1) * m))
        assert run.row_tokens[i][run.row_tokens[i] >= 0].tolist() == list(run.sources[i])
    for i in range(dims.n_entries - 1):
        shared = set(run.sources[i]) & set(run.sources[i + 1])
        assert shared == set(range(i * m, (i + 1) * m))
        assert len(shared) == m


def test_local_kv_is_made_per_token_uncompressed_and_rotated_at_its_own_position():
    for run in (cp.hca_compress(), cp.csa_compress()):
        d = run.dims
        assert run.E_win.shape == (d.tokens, d.head_dim)
        normed = ops.rms_norm(run.X @ run.W_kv_win, run.scale_win)
        assert np.allclose(run.E_win, ops.rope_tail(normed, np.arange(d.tokens), d.rope_dim), rtol=0, atol=1e-14)


@pytest.mark.parametrize("compress", [cp.hca_compress, cp.csa_compress], ids=["hca", "csa"])
@pytest.mark.parametrize("dims", DIMS, ids=[f"T{d.tokens}-m{d.ratio}" for d in DIMS])
def test_no_entry_uses_a_token_outside_its_span(compress, dims):
    base = compress(dims, 2)
    for j in range(dims.tokens):
        X = base.X.copy()
        X[j] += 3.0
        moved = compress(dims, 2, X=X)
        for i, span in enumerate(base.sources):
            same = np.array_equal(moved.entries[i], base.entries[i])
            assert same == (j not in span), f"entry {i} (span {span}) vs a change at token {j}"


@pytest.mark.parametrize("ratio", [1, 2, 3, 4, 5, 128])
def test_entry_count_is_the_floor_of_n_over_m_and_runs_make_that_many_entries(ratio):
    n = np.arange(0, 300)
    assert np.array_equal(cp.entry_count(n, ratio), n // ratio)
    assert cp.entry_count(299, ratio) == 299 // ratio and isinstance(cp.entry_count(299, ratio), int)
    for tokens in (ratio, ratio + 1, 2 * ratio - 1, 2 * ratio, 3 * ratio + 2):
        if tokens * 2 * 6 > 2000:
            continue
        d = CompressDims(tokens=tokens, ratio=ratio)
        for run in (cp.hca_compress(d), cp.csa_compress(d)):
            assert run.n_entries == cp.entry_count(tokens, ratio) == len(run.entries) == len(run.sources)


def test_entry_count_matches_the_cost_models_count_for_v4_flash():
    v4 = get("v4-flash")
    b = cost.entry_bytes(v4)
    n = np.array([1, 3, 4, 5, 127, 128, 129, 1000, 131072, 1_000_003])
    global_entries = sum(cp.entry_count(n, ly.ratio) for ly in v4.layers if ly.stores_global)
    key_entries = sum(cp.entry_count(n, ly.ratio) for ly in v4.layers if ly.stores_index_key)
    parts = cost.cache_at(v4, n)
    assert np.array_equal(parts.main_kv, b["main_kv"] * global_entries)
    assert np.array_equal(parts.index_key, b["index_key"] * key_entries)


def test_the_article_constants_come_from_the_v4_flash_spec():
    assert (cp.ARTICLE_CSA_RATIO, cp.ARTICLE_HCA_RATIO) == (4, 128)
    assert (cp.ARTICLE_HEAD_DIM, cp.ARTICLE_ROPE_DIM) == (512, 64)


def test_runs_are_reproducible_and_the_seed_matters():
    a, b, c = cp.csa_compress(seed=3), cp.csa_compress(seed=3), cp.csa_compress(seed=4)
    assert np.array_equal(a.entries, b.entries)
    assert not np.allclose(a.entries, c.entries)
    assert np.array_equal(cp.hca_compress(seed=3).X, a.X)  # one input per seed


@pytest.mark.parametrize("kwargs", [dict(tokens=0), dict(ratio=-1), dict(hidden=1.5), dict(head_dim=True),
                                    dict(rope_dim=3), dict(rope_dim=6), dict(head_dim=4, rope_dim=8),
                                    dict(tokens=3, ratio=4)])
def test_bad_compress_dims_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        CompressDims(**kwargs)


def test_an_x_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match="X must be"):
        cp.hca_compress(X=np.zeros((3, 3)))


@pytest.mark.parametrize("bad", [(5, 0), (5, 1.5), (-1, 4), (2.5, 4)])
def test_entry_count_refuses_bad_arguments(bad):
    with pytest.raises(ValueError):
        cp.entry_count(*bad)


def test_rope_tail_turns_back_with_negative_positions_and_keeps_the_other_dims():
    x = np.random.default_rng(0).standard_normal((5, 6))
    pos = np.arange(5) * 3
    y = ops.rope_tail(x, pos, 2)
    assert np.array_equal(y[:, :4], x[:, :4])
    assert np.allclose(ops.rope_tail(y, -pos, 2), x, rtol=0, atol=1e-14)
