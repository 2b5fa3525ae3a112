"""DeepSeek-V3.2's lightning indexer and the sparse MLA it feeds (figures A8–A10), small and seeded.

From the MLA layer's C^Q and X the indexer makes per-head queries q^I_j, one shared key
k^I (the cached "index key") and per-head weights w^I, scores every visible position

    I(t, s) = Σ_j w^I(t, j) · ReLU(q^I(t, j) · k^I(s))        (no softmax: it only ranks)

and keeps the top-k visible positions (self included) per query row as the mask M
(0 chosen, −∞ otherwise). Main attention is the absorbed MLA score plus M, so P_h is
non-zero only on chosen positions. Field names follow DeepSeek-V3.2's config
(`index_n_heads`, `index_head_dim`, `index_topk`); the indexer's FP8 rounding, Hadamard
rotation and weight scaling are left out, as in the article's formula.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..checks import positive_fields, rope_part
from ..models import Dims
from ..registry import get
from .mla import MLARun, content_score
from .ops import causal_mask, index_scores, init_weight, layer_norm, rope_slice, softmax, top_k

ARTICLE_TOPK = get("v3.2").index_topk  # positions kept per query (2,048), from the model spec
_STREAM = 0x1D3  # the indexer's draws come from their own stream of the same seed


@dataclass(frozen=True)
class IndexerDims:
    """H^I indexer heads of width d^I; RoPE on the first `rope_dim` dims of q^I and k^I."""

    n_heads: int = 4  # H^I (index_n_heads)
    head_dim: int = 4  # d^I (index_head_dim)
    rope_dim: int = 2  # RoPE part of d^I (V3.2: qk_rope_head_dim, 64 of 128)

    def __post_init__(self):
        positive_fields(self)
        rope_part(self.rope_dim, self.head_dim, whole=True)

    @classmethod
    def of(cls, dims: Dims) -> IndexerDims:
        """A model's indexer widths from its spec's `Dims` (V3.2 ropes qk_rope_head_dim of them)."""
        return cls(n_heads=dims.index_n_heads, head_dim=dims.index_head_dim, rope_dim=dims.qk_rope_head_dim)


ARTICLE_INDEXER_DIMS = IndexerDims.of(get("v3.2").dims)


def _rope_first(x: np.ndarray, rope_dim: int, positions: np.ndarray) -> np.ndarray:
    """V3.2's indexer rotates its leading dims with half-split (non-interleaved) pairs."""
    return rope_slice(x, positions, slice(0, rope_dim), interleaved=False)


@dataclass(frozen=True, kw_only=True)
class IndexerRun:
    """The indexer on one MLA run: what it makes, its scores and the selection."""

    dims: IndexerDims
    topk: int
    seed: int
    W_IQ: np.ndarray  # [H, r_q, d]   C^Q → q^I_j
    W_IK: np.ndarray  # [D, d]        X → k^I (before LayerNorm and RoPE)
    W_Iw: np.ndarray  # [D, H]        X → w^I
    q_I: np.ndarray  # [H, T, d]      indexer queries (RoPE on the first rope_dim dims)
    k_I: np.ndarray  # [T, d]         index key, shared by heads (LayerNorm, then RoPE; cached)
    w_I: np.ndarray  # [T, H]         head weights (not probabilities)
    head_scores: np.ndarray  # [H, T, T]  w^I(t, j) · ReLU(q^I(t, j) · k^I(s)), every s
    I: np.ndarray  # noqa: E741  [T, T]  Σ_j head_scores; −∞ for future s > t (not candidates)
    selected: np.ndarray  # [T, T] bool  top-k of the visible positions per row
    M: np.ndarray  # [T, T]           0 where selected, −∞ elsewhere


def selected_count(tokens: int, topk: int) -> int:
    """Positions chosen over all rows of a causal top-k: Σ_t min(k, t + 1)."""
    return sum(min(topk, t + 1) for t in range(tokens))


def run_indexer(mla: MLARun, topk: int = 3, dims: IndexerDims = IndexerDims(), seed: int = 0) -> IndexerRun:
    """Score every (query t, position s ≤ t) pair and keep the top-k per row."""
    d, T = dims, mla.dims.tokens
    rng = np.random.default_rng((seed, _STREAM))
    r_q, D = mla.dims.q_lora_rank, mla.dims.hidden
    W_IQ = init_weight(rng, d.n_heads, r_q, d.head_dim)
    W_IK = init_weight(rng, D, d.head_dim)
    W_Iw = init_weight(rng, D, d.n_heads)
    pos = np.arange(T)
    q_I = _rope_first(mla.C_Q @ W_IQ, d.rope_dim, pos)
    k_I = _rope_first(layer_norm(mla.X @ W_IK), d.rope_dim, pos)
    w_I = mla.X @ W_Iw
    head_scores = index_scores(q_I, k_I, w_I)
    I = head_scores.sum(axis=0) + causal_mask(T)  # noqa: E741 (the article's symbol)
    selected = top_k(I, pos + 1, topk)  # row t sees positions 0 … t, itself included
    return IndexerRun(dims=d, topk=topk, seed=seed, W_IQ=W_IQ, W_IK=W_IK, W_Iw=W_Iw, q_I=q_I, k_I=k_I, w_I=w_I,
                      head_scores=head_scores, I=I, selected=selected, M=np.where(selected, 0.0, -np.inf))


@dataclass(frozen=True, kw_only=True)
class SparseResult:
    """One head of MLA restricted to the indexer's choice (figure A10)."""

    head: int
    Q_hat: np.ndarray  # [T, r_kv]     absorbed query Q̂_h = Q^C_h W^UK_hᵀ
    S: np.ndarray  # [T, T]            (Q̂_h C^KVᵀ + Q^R_h K^Rᵀ) / √(d_k + d_r), unmasked
    M: np.ndarray  # [T, T]            the indexer's mask (also the causal mask)
    S_masked: np.ndarray  # [T, T]     S + M
    P: np.ndarray  # [T, T]            softmax rows, non-zero only where selected
    U: np.ndarray  # [T, r_kv]         U_h = P_h C^KV


def sparse_mla(mla: MLARun, idx: IndexerRun, head: int = 0) -> SparseResult:
    """Absorbed MLA score for head h + M → softmax → P_h → U_h = P_h C^KV (in float64)."""
    T = mla.dims.tokens
    if idx.selected.shape != (T, T):
        raise ValueError(f"indexer run is for {idx.selected.shape[0]} tokens, MLA run for {T}")
    content, made = content_score(mla, head, order="absorb")
    S = (content + mla.Q_R[head] @ mla.K_R.T) / math.sqrt(mla.dims.qk_head_dim)
    S_masked = S + idx.M
    P = softmax(S_masked)
    return SparseResult(head=head, Q_hat=made["Q_hat"], S=S, M=idx.M, S_masked=S_masked, P=P, U=P @ mla.C_KV)
