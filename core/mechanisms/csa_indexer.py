"""CSA's indexer: score completed blocks and choose the top-k (figure A18), small and seeded.

A compressor of its own (the same overlapping method as `csa_compress`, its own weights,
width d^I) makes one index key K^IComp_s per m tokens; key s and main entry s cover the
same source span, so a chosen block number points at a main entry. The query side shares
the main attention's query latent c^Q:

    q^I_h = RoPE_t(c^Q W^IQ_h)    w^I = X W^w    (H^I heads of width d^I)
    I[t, s] = Σ_h w^I[t, h] · ReLU(q^I_h[t] · K^IComp_s)   for blocks complete at t,
              s ≤ ⌊(t+1)/m⌋ − 1; −∞ for blocks not yet complete (not candidates)

and each row keeps the min(k, completed) highest (ties to the lower block). As V3.2's
formula: no softmax, the score only ranks. RoPE is on the last `rope_dim` dims of keys and
queries, as for V4's entries. X is the seed's shared input, the same as `csa_compress`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..checks import positive_ints
from ..registry import get
from .compression import CompressDims, Compressor, entry_count, overlap_compress, seeded_input, sources
from .ops import index_scores, init_weight, rope_tail, top_k

ARTICLE_INDEX_DIM = get("v4-flash").dims.index_head_dim  # d^I = 128
_STREAM = 0x1C5
# A seed for figure A19's point: at t = 11 (m = 4, k = 2, default dims) the newest complete
# block, 2, scores lowest and is not chosen (checked by the tests).
NEWEST_SKIPPED_SEED = 1
_DIMS = CompressDims()


@dataclass(frozen=True, kw_only=True)
class CSAIndexerRun:
    """The indexer's keys, queries, weights, scores and choice; n = ⌊T/m⌋ blocks."""

    dims: CompressDims  # the layer's sizes (head_dim is the main entry's width, not d^I)
    n_heads: int  # H^I
    index_dim: int  # d^I
    topk: int  # k
    seed: int
    X: np.ndarray  # [T, D]
    W_kv_comp_I: np.ndarray  # [D, 2d^I]   the indexer compressor's candidates (a | b halves)
    W_z_I: np.ndarray  # [D, 2d^I]         its scores Z^I
    B_I: np.ndarray  # [2m, d^I]           its segment/offset bias
    scale_I: np.ndarray  # [d^I]           its RMSNorm scale
    row_tokens: np.ndarray  # [n, 2m]      source token of each pooled row (−1 = padding, entry 0)
    weights_I: np.ndarray  # [n, 2m, d^I]  its compression weights (padded as CSARun.weights)
    K_icomp: np.ndarray  # [n, d^I]        index keys K^IComp, RoPE at `positions`
    positions: np.ndarray  # [n]           own segment's start s·m
    sources: tuple[tuple[int, ...], ...]  # each key's source span = main entry s's span
    W_DQ: np.ndarray  # [D, r_q]           X → c^Q (shared with the main query)
    c_Q: np.ndarray  # [T, r_q]
    W_IQ: np.ndarray  # [H, r_q, d^I]      c^Q → q^I_h
    q_I: np.ndarray  # [H, T, d^I]         RoPE at t on the last rope_dim dims
    W_w: np.ndarray  # [D, H]              X → head weights
    w: np.ndarray  # [T, H]                w^I (not probabilities)
    n_complete: np.ndarray  # [T]          blocks complete at t: ⌊(t+1)/m⌋
    head_scores: np.ndarray  # [H, T, n]   w[t, h] · ReLU(q^I_h[t] · K_s), every block
    I: np.ndarray  # noqa: E741  [T, n]    Σ_h head_scores over complete blocks, −∞ elsewhere
    selected: np.ndarray  # [T, n] bool    top-min(k, complete) blocks per row


def run_csa_indexer(dims: CompressDims = _DIMS, *, n_heads: int = 4, index_dim: int = 4, topk: int = 2,
                q_lora_rank: int = 5, seed: int = 0, X=None) -> CSAIndexerRun:
    """Index keys from the indexer's own overlapping compressor, scores I [T, n], top-k.

    `q_lora_rank` is the width of the shared c^Q; `X` [T, D] replaces the seeded input.
    """
    H, index_dim, topk, q_lora_rank = positive_ints(n_heads=n_heads, index_dim=index_dim, topk=topk,
                                                    q_lora_rank=q_lora_rank)
    key_dims = replace(dims, head_dim=index_dim)  # validates rope_dim < index_dim
    d, T = dims, dims.tokens
    X = seeded_input(d, seed, X)
    rng = np.random.default_rng((seed, _STREAM))
    comp = Compressor.draw(rng, key_dims, 2 * index_dim)
    keys = overlap_compress(X, comp, key_dims)

    W_DQ = init_weight(rng, d.hidden, q_lora_rank)
    W_IQ = init_weight(rng, H, q_lora_rank, index_dim)
    W_w = init_weight(rng, d.hidden, H)
    c_Q = X @ W_DQ
    q_I = rope_tail(c_Q @ W_IQ, np.arange(T), d.rope_dim)
    w = X @ W_w

    n_complete = entry_count(np.arange(1, T + 1), d.ratio)
    complete = np.arange(keys.entries.shape[0])[None, :] < n_complete[:, None]  # [T, n]
    head_scores = index_scores(q_I, keys.entries, w)
    I = np.where(complete, head_scores.sum(axis=0), -np.inf)  # noqa: E741 (the article's symbol)
    return CSAIndexerRun(
        dims=d, n_heads=H, index_dim=index_dim, topk=topk, seed=seed, X=X, W_kv_comp_I=comp.W_kv_comp,
        W_z_I=comp.W_z, B_I=comp.B, scale_I=comp.scale, row_tokens=keys.row_tokens, weights_I=keys.weights,
        K_icomp=keys.entries, positions=keys.positions, sources=sources(keys.row_tokens), W_DQ=W_DQ, c_Q=c_Q,
        W_IQ=W_IQ, q_I=q_I, W_w=W_w, w=w, n_complete=n_complete, head_scores=head_scores, I=I,
        selected=top_k(I, n_complete, topk))
