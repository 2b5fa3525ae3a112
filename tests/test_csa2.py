"""CSA2 invariants: blocks do not overlap (each token in one entry), one softmax over the
block's own m tokens with no bias, m = 1 passes the token through, ⌊T/m⌋ entries, and the
index key is made from the main KV (before RoPE) alone."""

from __future__ import annotations

import numpy as np
import pytest

from core import get
from core.mechanisms import compression as cp
from core.mechanisms import csa2 as c2
from core.mechanisms import ops
from core.mechanisms.compression import CompressDims

SEEDS = (0, 1, 7)
DIMS = (
    CompressDims(),  # m = 4, the comparison of figure A21
    CompressDims(tokens=13, hidden=5, head_dim=4, rope_dim=2, ratio=2),  # encoder m, incomplete last block
    CompressDims(tokens=9, hidden=4, head_dim=6, rope_dim=2, ratio=1),  # decoder m
    CompressDims(tokens=8, hidden=6, head_dim=8, rope_dim=4, ratio=8),  # a single block
)
CASES = [(d, s) for d in DIMS for s in SEEDS]
IDS = [f"T{d.tokens}-m{d.ratio}-c{d.head_dim}-seed{s}" for d, s in CASES]


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_each_token_of_a_complete_block_is_in_exactly_one_entry(dims, seed):
    run = c2.csa2_compress(dims, seed, index_dim=6)
    counts = np.bincount([s for src in run.sources for s in src], minlength=dims.tokens)
    n, m = dims.n_entries, dims.ratio
    assert np.all(counts[: n * m] == 1)
    assert np.all(counts[n * m:] == 0)  # an incomplete last block makes no entry
    assert all(src == tuple(range(b * m, (b + 1) * m)) for b, src in enumerate(run.sources))


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_there_are_floor_t_over_m_entries_and_index_keys(dims, seed):
    run = c2.csa2_compress(dims, seed, index_dim=6)
    n = dims.tokens // dims.ratio
    assert run.n_entries == n
    assert run.entries.shape == run.main_pre_rope.shape == run.pooled.shape == (n, dims.head_dim)
    assert run.index_keys.shape == run.index_pre_rope.shape == (n, 6)
    assert run.weights.shape == (n, dims.ratio, dims.head_dim)
    assert np.array_equal(run.positions, np.arange(n) * dims.ratio)


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_weights_per_channel_sum_to_one_over_the_m_tokens_of_a_block(dims, seed):
    run = c2.csa2_compress(dims, seed, index_dim=6)
    assert run.softmax_size == dims.ratio
    assert np.allclose(run.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(run.weights > 0)


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_there_is_no_position_bias_the_weights_are_the_softmax_of_z_alone(dims, seed):
    run = c2.csa2_compress(dims, seed, index_dim=6)
    n, m, c = dims.n_entries, dims.ratio, dims.head_dim
    assert not hasattr(run, "B")
    Z = run.Z[: n * m].reshape(n, m, c)
    e = np.exp(Z - Z.max(axis=1, keepdims=True))
    assert np.allclose(run.weights, e / e.sum(axis=1, keepdims=True), rtol=0, atol=1e-14)
    # no bias: the same scores in a different block position give the same weights
    permuted = np.roll(Z, 1, axis=1)
    weights, _ = c2.csa2_pool(run.C[: n * m], permuted.reshape(n * m, c), m)
    assert np.allclose(weights, np.roll(run.weights, 1, axis=1), rtol=0, atol=1e-14)


@pytest.mark.parametrize("seed", SEEDS)
def test_with_m_1_pooling_passes_the_token_through_unchanged(seed):
    dims = CompressDims(tokens=9, hidden=4, head_dim=6, rope_dim=2, ratio=1)
    run = c2.csa2_compress(dims, seed, index_dim=6)
    assert np.all(run.weights == 1.0)
    assert np.array_equal(run.pooled, run.C)
    assert np.allclose(run.main_pre_rope, ops.rms_norm(run.C, run.scale), rtol=0, atol=1e-14)


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_the_main_kv_is_pooled_then_rms_normed_then_roped_at_the_block_start(dims, seed):
    run = c2.csa2_compress(dims, seed, index_dim=6)
    n, m, c = dims.n_entries, dims.ratio, dims.head_dim
    pooled = (run.weights * run.C[: n * m].reshape(n, m, c)).sum(axis=1)
    assert np.allclose(run.pooled, pooled, rtol=0, atol=1e-14)
    assert np.allclose(run.main_pre_rope, ops.rms_norm(pooled, run.scale), rtol=0, atol=1e-14)
    assert np.allclose(run.entries, ops.rope_tail(run.main_pre_rope, run.positions, dims.rope_dim), rtol=0, atol=1e-14)
    keep = c - dims.rope_dim
    assert np.array_equal(run.entries[:, :keep], run.main_pre_rope[:, :keep])  # RoPE touches the tail only


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_the_index_key_is_rms_norm_of_the_main_kv_before_rope_times_w_ik_then_roped(dims, seed):
    run = c2.csa2_compress(dims, seed, index_dim=5)
    expected = ops.rms_norm(run.main_pre_rope @ run.W_IK, run.scale_I)
    assert run.W_IK.shape == (dims.head_dim, 5)
    assert np.allclose(run.index_pre_rope, expected, rtol=0, atol=1e-13)
    assert np.allclose(run.index_keys, ops.rope_tail(expected, run.positions, dims.rope_dim), rtol=0, atol=1e-13)


@pytest.mark.parametrize(("dims", "seed"), CASES, ids=IDS)
def test_changing_w_ik_changes_the_index_keys_but_not_the_entries(dims, seed):
    run = c2.csa2_compress(dims, seed, index_dim=6)
    other = c2.csa2_compress(dims, seed, index_dim=6, W_IK=run.W_IK[:, ::-1] * 2.0 + 0.3)
    assert np.array_equal(other.entries, run.entries)
    assert np.array_equal(other.main_pre_rope, run.main_pre_rope)
    assert not np.allclose(other.index_keys, run.index_keys)


def test_the_index_key_depends_on_the_input_only_through_the_main_kv():
    run = c2.csa2_compress()
    keys = c2.index_key_pre_rope(run.main_pre_rope, run.W_IK, run.scale_I)
    assert np.array_equal(keys, run.index_pre_rope)
    # two inputs that give the same main KV give the same index key: an entry pools only its block,
    # so changing tokens of entry 2 leaves entries 0 and 1 and their keys unchanged
    X = run.X.copy()
    X[8:12] += 1.0
    moved = c2.csa2_compress(X=X)
    assert np.array_equal(moved.main_pre_rope[:2], run.main_pre_rope[:2])
    assert np.array_equal(moved.index_keys[:2], run.index_keys[:2])
    assert not np.allclose(moved.index_keys[2], run.index_keys[2])


def test_the_index_key_width_does_not_change_the_main_entries():
    narrow, wide = c2.csa2_compress(index_dim=3), c2.csa2_compress(index_dim=8)
    assert np.array_equal(narrow.entries, wide.entries)
    assert wide.index_keys.shape[1] == 8


def test_csa_and_csa2_see_the_same_input_x():
    assert np.array_equal(cp.csa_compress().X, c2.csa2_compress().X)


def test_an_entry_depends_on_no_token_outside_its_own_block():
    dims = CompressDims(tokens=13, hidden=5, head_dim=4, rope_dim=2, ratio=2)
    run = c2.csa2_compress(dims, 3)
    for b in range(dims.n_entries):
        X = run.X.copy()
        outside = np.setdiff1d(np.arange(dims.tokens), run.sources[b])
        X[outside] = np.random.default_rng(b).standard_normal((outside.size, dims.hidden))
        moved = c2.csa2_compress(dims, 3, X=X)
        assert np.allclose(moved.entries[b], run.entries[b], rtol=0, atol=1e-14)
        assert np.allclose(moved.index_keys[b], run.index_keys[b], rtol=0, atol=1e-14)


def test_the_a21_comparison_entry_1_spans_2m_tokens_in_csa_and_its_own_m_in_csa2():
    cmp = c2.compare_csa_csa2()
    m, c = cmp.csa.dims.ratio, cmp.csa.dims.head_dim
    assert m == 4 and cmp.entry == 1
    assert cmp.csa_span == tuple(range(0, 2 * m)) and cmp.csa_softmax_size == 2 * m
    assert cmp.csa2_span == tuple(range(m, 2 * m)) and cmp.csa2_softmax_size == m
    assert cmp.csa_shared == tuple(range(m)) and cmp.csa2_shared == ()
    assert cmp.csa_weights.shape == (2 * m, c) and cmp.csa2_weights.shape == (m, c)
    assert cmp.csa_bias.shape == (2 * m, c)
    assert np.allclose(cmp.csa_weights.sum(axis=0), 1.0) and np.allclose(cmp.csa2_weights.sum(axis=0), 1.0)
    assert np.array_equal(cmp.csa.X, cmp.csa2.X)


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_neighbouring_csa_entries_share_m_tokens_and_csa2_entries_share_none(m):
    cmp = c2.compare_csa_csa2(CompressDims(tokens=4 * m, ratio=m), seed=2, entry=2)
    assert len(cmp.csa_shared) == m and cmp.csa2_shared == ()
    assert all(not set(a) & set(b) for a, b in zip(cmp.csa2_spans, cmp.csa2_spans[1:]))


def test_the_comparison_rejects_an_entry_that_does_not_exist():
    with pytest.raises(ValueError, match="entry"):
        c2.compare_csa_csa2(CompressDims(tokens=12, ratio=4), entry=3)


def test_csa2_rejects_a_rope_part_as_wide_as_the_index_key_and_a_w_ik_of_the_wrong_shape():
    with pytest.raises(ValueError, match="index_dim"):
        c2.csa2_compress(index_dim=2)
    with pytest.raises(ValueError, match="W_IK"):
        c2.csa2_compress(W_IK=np.zeros((4, 4)))


def test_article_constants_come_from_the_v4_1_spec():
    spec = get("v4.1-flash")
    ratios = {ly.stack: ly.ratio for ly in spec.layers if ly.kind == "CSA2"}
    assert (c2.ARTICLE_ENCODER_RATIO, c2.ARTICLE_DECODER_RATIO) == (ratios["encoder"], ratios["decoder"]) == (2, 1)
    assert (c2.ARTICLE_HEAD_DIM, c2.ARTICLE_INDEX_DIM) == (512, 128)
