"""V4.1-Flash decoder's hierarchical indexer (figure A25), for one query, small and seeded.

In the decoder the main KV has one entry per token (m = 1), so a query at position t sees
main-KV positions 0 … t. With index keys k^I_s (made by the decoder's Full layer, CSA2
style: `core.mechanisms.csa2.csa2_compress` at m = 1) each scoring layer ranks positions as V3.2's
lightning indexer does, with its own query q^I_h (RoPE at t) and head weights w_h:

    I(s) = Σ_h w_h · ReLU(q^I_h · k^I_s)          (no softmax: it only ranks)

① Full layer: scores every visible position, keeps its own top-k (exactly min(k, t+1)),
  and builds the candidate pool. Positions are grouped into blocks of `block` (8) entries,
  block b = positions b·block … (b+1)·block − 1, the newest (holding t) possibly partial;
  block score = max of its positions' scores. The newest block is always in the pool and
  counts inside the limit; the other pool_blocks − 1 places go to the highest block scores
  (ties to the older block). Full's own top-k is chosen over all positions, so it can hold
  positions outside the pool.
② Reindex layers: borrow the Full layer's index keys, score only positions in the pool
  (−∞ elsewhere) with their own query, keep their own top-min(k, |pool|).
③ Reuse layers: no indexer; they use the latest Full or Reindex layer's selection.

Ties in every top-k go to the lower position (a stable sort: `core.mechanisms.ops.top_k`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import int_at_least, one_of, positive_ints
from ..models import Model
from ..registry import get
from .compression import CompressDims
from .csa2 import csa2_compress
from .ops import index_scores, init_weight, rope_tail, top_k

_V41 = get("v4.1-flash")
ARTICLE_TOPK = _V41.index_topk  # 512 positions per Full / Reindex selection
ARTICLE_POOL_BLOCKS = _V41.pool_blocks  # 2,048 candidate blocks per query
ARTICLE_BLOCK = _V41.pool_block_size  # 8 entries per block
# the decoder's modes in layer order: [Full, Reuse×3] + 4 × [Reindex, Reuse×3]
DECODER_MODES = tuple(ly.mode for ly in _V41.layers if ly.stack == "decoder")
MODES = ("full", "reindex", "reuse")
_STREAM = 0x41E8
# With the defaults (64 tokens, block 8, 4 pool blocks, k = 6, t = 63) this seed's Full
# top-k holds positions outside the candidate pool (checked by the tests).
FULL_OUTSIDE_POOL_SEED = 0


def pool_positions_max(model: Model | str = "v4.1-flash") -> int:
    """Most positions a Reindex layer scores per query: pool_blocks × pool_block_size
    (2,048 × 8 = 16,384 for V4.1-Flash), the cap `core.cost` puts on its index-key reads."""
    return get(model).pool


def layer_modes(n_reindex: int = 2) -> tuple[str, ...]:
    """A small decoder: [Full, Reuse] + n_reindex × [Reindex, Reuse]."""
    n_reindex = int_at_least("n_reindex", n_reindex, 0)
    return ("full", "reuse") + ("reindex", "reuse") * n_reindex


def selection_sources(modes) -> tuple[int, ...]:
    """For each layer, the index of the layer whose selection it attends with: itself for
    Full and Reindex, the latest Full or Reindex before it for Reuse (the spec's sel_from)."""
    out: list[int] = []
    latest = None
    for i, mode in enumerate(modes):
        one_of(f"layer {i} mode", mode, MODES)
        if mode == "reindex" and latest is None:
            raise ValueError("a Reindex layer needs a Full layer before it (it borrows its keys and pool)")
        if mode == "reuse" and latest is None:
            raise ValueError(f"layer {i} reuses a selection, but no Full or Reindex layer comes before it")
        if mode != "reuse":
            latest = i
        out.append(latest)
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class HierRun:
    """One query's pass through a small decoder (A25). P = |pool|, S = 1 + n_reindex
    scoring layers (row 0 is the Full layer, rows 1… the Reindex layers in order)."""

    tokens: int  # sequence length T
    query: int  # t, the query position (sees positions 0 … t)
    block: int  # entries per candidate block
    pool_blocks: int  # most blocks in the pool, the newest included
    topk: int  # k
    n_reindex: int
    seed: int
    keys: np.ndarray  # [t+1, d^I]         k^I_s, made by the Full layer (CSA2, m = 1), borrowed by Reindex
    q_I: np.ndarray  # [S, H, d^I]         each scoring layer's indexer query at t (RoPE at t)
    w_I: np.ndarray  # [S, H]              each scoring layer's head weights (not probabilities)
    full_scores: np.ndarray  # [t+1]       Full's I(s) for every visible position
    full_topk: np.ndarray  # [min(k, t+1)] Full's own choice, sorted positions (may lie outside the pool)
    block_scores: np.ndarray  # [n_blocks] max of full_scores in each block (the last may be partial)
    newest_block: int  # t // block, always in the pool
    pool_blocks_chosen: np.ndarray  # [min(pool_blocks, n_blocks)]  sorted block numbers
    pool_positions: np.ndarray  # [P]      sorted positions of the chosen blocks (≤ t)
    reindex_scores: np.ndarray  # [n_reindex, t+1]  I(s) inside the pool, −∞ outside
    reindex_topk: np.ndarray  # [n_reindex, min(k, P)]  each Reindex layer's choice, sorted
    modes: tuple[str, ...]  # the layer list, e.g. full, reuse, reindex, reuse, reindex, reuse
    sel_from: tuple[int, ...]  # per layer: whose selection it uses (itself unless Reuse)
    reuse_from: dict[int, int]  # Reuse layer → the Full/Reindex layer it borrows from
    selections: np.ndarray  # [n_layers, t+1] bool  the positions each layer reads

    @property
    def n_blocks(self) -> int:
        """⌈(t+1)/block⌉ blocks over the visible positions."""
        return self.block_scores.shape[0]

    def selected(self, layer: int) -> np.ndarray:
        """Sorted positions layer `layer` reads (its own or the borrowed selection)."""
        return np.flatnonzero(self.selections[layer])


def _choose_pool(block_scores: np.ndarray, newest: int, pool_blocks: int) -> np.ndarray:
    """The newest block plus the pool_blocks − 1 best others (ties to the older block)."""
    others = np.delete(np.arange(block_scores.shape[0]), newest)
    chosen = [newest]
    if pool_blocks > 1 and others.size:
        best = top_k(block_scores[others], others.size, pool_blocks - 1)
        chosen += others[best].tolist()
    return np.sort(np.array(chosen, dtype=np.int64))


def hierarchical_indexer(tokens: int = 64, *, block: int = ARTICLE_BLOCK, pool_blocks: int = 4, topk: int = 6,
                         n_reindex: int = 2, seed: int = 0, query: int | None = None, n_heads: int = 4,
                         index_dim: int = 4) -> HierRun:
    """Full scores all of 0 … t, builds the pool and keeps its top-k; Reindex re-picks in
    the pool; Reuse borrows. `query` defaults to the last position, t = tokens − 1."""
    tokens, block, pool_blocks, topk, n_heads = positive_ints(
        tokens=tokens, block=block, pool_blocks=pool_blocks, topk=topk, n_heads=n_heads)
    modes = layer_modes(n_reindex)
    t = tokens - 1 if query is None else int_at_least("query", query, 0)
    if t >= tokens:
        raise ValueError(f"query must be in 0..{tokens - 1}, got {t}")

    kv = csa2_compress(CompressDims(tokens=tokens, ratio=1), seed, index_dim=index_dim)
    keys = kv.index_keys[: t + 1]
    rng = np.random.default_rng((seed, _STREAM))
    S = 1 + n_reindex
    # drawn layer by layer (query, then weights), so adding Reindex layers keeps the earlier ones
    draws = [(init_weight(rng, n_heads, index_dim, fan_in=index_dim), rng.standard_normal(n_heads)) for _ in range(S)]
    q_I = np.stack([rope_tail(q, t, kv.dims.rope_dim) for q, _ in draws])
    w_I = np.stack([w for _, w in draws])
    scores = index_scores(q_I.transpose(1, 0, 2), keys, w_I).sum(axis=0)  # [S, t+1]: one query per layer

    full_scores = scores[0]
    full_topk = np.flatnonzero(top_k(full_scores, t + 1, topk))
    n_blocks = -(-(t + 1) // block)
    padded = np.full(n_blocks * block, -np.inf)
    padded[: t + 1] = full_scores
    block_scores = padded.reshape(n_blocks, block).max(axis=1)
    newest = t // block
    chosen = _choose_pool(block_scores, newest, pool_blocks)
    pool = (chosen[:, None] * block + np.arange(block)).ravel()
    pool = pool[pool <= t]

    in_pool = np.zeros(t + 1, dtype=bool)
    in_pool[pool] = True
    reindex_scores = np.where(in_pool, scores[1:], -np.inf)
    reindex_topk = np.stack([pool[top_k(row[pool], pool.size, topk)] for row in reindex_scores]) \
        if n_reindex else np.zeros((0, min(topk, pool.size)), dtype=np.int64)

    reindex_layers = [i for i, mode in enumerate(modes) if mode == "reindex"]
    by_layer = {0: full_topk, **{layer: reindex_topk[r] for r, layer in enumerate(reindex_layers)}}
    sel_from = selection_sources(modes)
    selections = np.zeros((len(modes), t + 1), dtype=bool)
    for i, src in enumerate(sel_from):
        selections[i, by_layer[src]] = True
    reuse_from = {i: src for i, src in enumerate(sel_from) if modes[i] == "reuse"}
    return HierRun(tokens=tokens, query=t, block=block, pool_blocks=pool_blocks, topk=topk, n_reindex=n_reindex,
                   seed=seed, keys=keys, q_I=q_I, w_I=w_I, full_scores=full_scores, full_topk=full_topk,
                   block_scores=block_scores, newest_block=newest, pool_blocks_chosen=chosen, pool_positions=pool,
                   reindex_scores=reindex_scores, reindex_topk=reindex_topk, modes=modes, sel_from=sel_from,
                   reuse_from=reuse_from, selections=selections)
