"""Hierarchical indexer invariants (A25): the pool holds at most pool_blocks blocks, the newest
always among them; Reindex picks only inside the pool; Full picks exactly min(k, t+1) over
everything (and may pick outside the pool); Reuse layers copy the latest selection; the
pool's size is the one the cost model charges a Reindex layer."""

from __future__ import annotations

import numpy as np
import pytest

from core import cost, get
from core.mechanisms import hierarchical as hi

SEEDS = range(12)
SHAPES = [  # (tokens, block, pool_blocks, topk)
    (64, 8, 4, 6),
    (61, 8, 3, 5),  # a partial newest block
    (40, 4, 1, 3),  # the pool is the newest block alone
    (30, 8, 10, 50),  # more pool blocks than blocks, k larger than everything
    (17, 1, 5, 2),
]


def _runs():
    for tokens, block, pool_blocks, topk in SHAPES:
        for seed in SEEDS:
            for t in (0, 1, block - 1, block, tokens // 2, tokens - 1):
                if 0 <= t < tokens:
                    yield hi.hierarchical_indexer(tokens, block=block, pool_blocks=pool_blocks, topk=topk, seed=seed,
                                                  query=t)


RUNS = list(_runs())


def test_the_pool_holds_at_most_pool_blocks_blocks_of_block_positions():
    for r in RUNS:
        t = r.query
        n_blocks = -(-(t + 1) // r.block)
        assert r.n_blocks == n_blocks
        assert r.pool_blocks_chosen.size == min(r.pool_blocks, n_blocks)
        assert r.pool_positions.size <= r.pool_blocks * r.block
        assert np.array_equal(r.pool_positions, np.sort(r.pool_positions))
        assert r.pool_positions.max() == t and r.pool_positions.min() >= 0
        expected = [s for b in r.pool_blocks_chosen for s in range(b * r.block, (b + 1) * r.block) if s <= t]
        assert r.pool_positions.tolist() == expected


def test_the_newest_block_is_always_in_the_pool_even_when_it_scores_lowest():
    lowest = 0
    for r in RUNS:
        newest = r.query // r.block
        assert r.newest_block == newest
        assert newest in r.pool_blocks_chosen
        assert r.query in r.pool_positions
        if r.n_blocks > r.pool_blocks and r.block_scores[newest] == r.block_scores.min():
            lowest += 1
    assert lowest > 0  # the pin mattered at least once: the newest block would not have made it on score


def test_the_other_pool_blocks_are_the_highest_scoring_ones():
    for r in RUNS:
        others = np.setdiff1d(r.pool_blocks_chosen, [r.newest_block])
        rest = np.setdiff1d(np.delete(np.arange(r.n_blocks), r.newest_block), others)
        if others.size and rest.size:
            assert r.block_scores[others].min() >= r.block_scores[rest].max()


def test_a_block_score_is_the_max_of_its_positions_scores():
    for r in RUNS:
        for b in range(r.n_blocks):
            assert r.block_scores[b] == r.full_scores[b * r.block: (b + 1) * r.block].max()


def test_full_keeps_exactly_min_k_and_visible_positions_with_the_highest_scores():
    for r in RUNS:
        t = r.query
        assert r.full_scores.shape == (t + 1,)
        assert np.all(np.isfinite(r.full_scores))
        assert r.full_topk.size == min(r.topk, t + 1)
        assert np.all(r.full_topk <= t)
        rest = np.setdiff1d(np.arange(t + 1), r.full_topk)
        if rest.size:
            assert r.full_scores[r.full_topk].min() >= r.full_scores[rest].max()


def test_full_scores_follow_the_indexer_formula_sum_of_w_times_relu_of_q_dot_k():
    r = hi.hierarchical_indexer(seed=3)
    for s in (0, 17, r.query):
        expected = sum(r.w_I[0, h] * max(float(r.q_I[0, h] @ r.keys[s]), 0.0) for h in range(r.w_I.shape[1]))
        assert r.full_scores[s] == pytest.approx(expected, abs=1e-12)


def test_reindex_layers_score_and_choose_only_inside_the_pool():
    for r in RUNS:
        t = r.query
        outside = np.setdiff1d(np.arange(t + 1), r.pool_positions)
        assert r.reindex_scores.shape == (r.n_reindex, t + 1)
        assert np.all(np.isneginf(r.reindex_scores[:, outside]))
        assert np.all(np.isfinite(r.reindex_scores[:, r.pool_positions]))
        assert r.reindex_topk.shape == (r.n_reindex, min(r.topk, r.pool_positions.size))
        for row, scores in zip(r.reindex_topk, r.reindex_scores):
            assert set(row.tolist()) <= set(r.pool_positions.tolist())
            rest = np.setdiff1d(r.pool_positions, row)
            if rest.size:
                assert scores[row].min() >= scores[rest].max()


def test_reindex_layers_borrow_the_full_keys_but_rank_with_their_own_query():
    r = hi.hierarchical_indexer(seed=5)
    inside = r.pool_positions
    for j in range(1, 1 + r.n_reindex):
        expected = np.einsum("h,hp->p", r.w_I[j], np.maximum(r.q_I[j] @ r.keys[inside].T, 0.0))
        assert np.allclose(r.reindex_scores[j - 1, inside], expected, rtol=0, atol=1e-12)
        assert not np.allclose(r.q_I[j], r.q_I[0])


def test_a_reuse_layer_reads_the_selection_of_the_latest_full_or_reindex_layer():
    for r in RUNS[::7]:
        assert r.modes == ("full", "reuse", "reindex", "reuse", "reindex", "reuse")
        assert r.reuse_from == {1: 0, 3: 2, 5: 4}
        assert np.array_equal(r.selected(0), r.full_topk)
        assert np.array_equal(r.selected(2), r.reindex_topk[0])
        assert np.array_equal(r.selected(4), r.reindex_topk[1])
        for layer, src in r.reuse_from.items():
            assert np.array_equal(r.selections[layer], r.selections[src])


def test_selection_sources_match_the_v4_1_decoder_schedule():
    spec = get("v4.1-flash")
    decoder = [i for i, ly in enumerate(spec.layers) if ly.stack == "decoder"]
    assert hi.DECODER_MODES == tuple(spec.layers[i].mode for i in decoder)
    expected = tuple(spec.layers[i].sel_from - decoder[0] for i in decoder)
    assert hi.selection_sources(hi.DECODER_MODES) == expected
    assert hi.DECODER_MODES.count("reindex") == 4 and hi.DECODER_MODES.count("full") == 1


def test_a_layer_list_that_starts_with_reuse_or_reindex_is_rejected():
    with pytest.raises(ValueError, match="reuses"):
        hi.selection_sources(("reuse", "full"))
    with pytest.raises(ValueError, match="Reindex"):
        hi.selection_sources(("reindex",))
    with pytest.raises(ValueError, match="mode"):
        hi.selection_sources(("full", "dense"))


def test_full_top_k_can_hold_positions_outside_the_pool():
    r = hi.hierarchical_indexer(seed=hi.FULL_OUTSIDE_POOL_SEED)
    outside = set(r.full_topk.tolist()) - set(r.pool_positions.tolist())  # Full's own picks beyond the pool
    assert outside
    # and the Reuse layer after Full reads them, while the Reindex layers cannot
    assert outside <= set(r.selected(1).tolist())
    assert not outside & set(r.reindex_topk.ravel().tolist())


def test_adding_reindex_layers_keeps_the_full_layer_and_the_earlier_reindex_layers():
    one, three = hi.hierarchical_indexer(n_reindex=1, seed=4), hi.hierarchical_indexer(n_reindex=3, seed=4)
    assert np.array_equal(one.full_topk, three.full_topk)
    assert np.array_equal(one.pool_positions, three.pool_positions)
    assert np.array_equal(one.reindex_topk[0], three.reindex_topk[0])
    assert three.selections.shape == (8, 64)
    none = hi.hierarchical_indexer(n_reindex=0)
    assert none.modes == ("full", "reuse") and none.reindex_topk.shape[0] == 0


def test_the_largest_pool_is_2048_blocks_of_8_from_the_v4_1_spec():
    spec = get("v4.1-flash")
    assert (hi.ARTICLE_POOL_BLOCKS, hi.ARTICLE_BLOCK, hi.ARTICLE_TOPK) == (2048, 8, 512)
    assert hi.pool_positions_max() == hi.pool_positions_max(spec) == spec.pool == 16_384


def test_the_pool_size_is_what_the_cost_model_charges_a_reindex_layer():
    N = 131_072
    spec = get("v4.1-flash")
    key_bytes = cost.entry_bytes(spec)["index_key"]
    pool = hi.pool_positions_max(spec)
    # the article's form: encoder Full m = 2 (3 layers), decoder Full m = 1, 4 Reindex layers over the pool
    assert pool == 16_384 and key_bytes == 68
    assert cost.reads("v4.1-flash", N).index_key == (3 * N // 2 + N + 4 * pool) * key_bytes
    # and the same sum read off the schedule
    counts = [N // ly.ratio if ly.mode == "full" else min(pool, N // ly.ratio)
              for ly in spec.layers if ly.kind == "CSA2" and ly.mode != "reuse"]
    assert cost.reads(spec, N).index_key == sum(counts) * key_bytes


def test_the_pool_never_exceeds_what_exists_at_short_contexts():
    r = hi.hierarchical_indexer(20, block=8, pool_blocks=2048, topk=512)
    assert r.pool_positions.tolist() == list(range(20))
    assert r.full_topk.size == r.reindex_topk.shape[1] == 20


def test_the_default_run_queries_the_last_position_and_rejects_a_later_one():
    assert hi.hierarchical_indexer().query == 63
    with pytest.raises(ValueError, match="query"):
        hi.hierarchical_indexer(10, query=10)
    with pytest.raises(ValueError, match="pool_blocks"):
        hi.hierarchical_indexer(pool_blocks=0)
