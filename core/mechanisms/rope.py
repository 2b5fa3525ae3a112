"""RoPE in a small seeded run (the V2 page's RoPE figure): what the rotation keeps of two
positions, and why a turned key cannot be absorbed.

RoPE (`ops.rope`) turns a vector two dimensions at a time, each pair by its position times the
pair's own frequency. On row vectors that is a product with a rotation matrix,
rope(x, p) = x R_p (`rotation`), with R_a R_b = R_{a+b} and R_pᵀ = R_{−p}. Two consequences:

1. Only the distance is left. A query q turned by its position t and a key k turned by its
   position s score
       rope(q, t)·rope(k, s) = q R_t R_sᵀ kᵀ = q R_{t−s} kᵀ = rope(q, t − s)·k,
   so the score matrix of one q and one k over positions has one number on each diagonal.
2. A turned key cannot be absorbed. Put RoPE on MLA's content key, k_s = rope(c_s W^UK_h, s)
   (c_s the latent C^KV at s), and the score of the query q_t (before RoPE) is
       rope(q_t, t)·k_s = q_t R_{t−s} (W^UK_h)ᵀ c_sᵀ:
   the matrix between the query and the latent, R_{t−s}(W^UK_h)ᵀ (`between`), changes with s.
   One absorbed query per row, Q̂_t = rope(q_t, t)(W^UK_h)ᵀ, is right only where R_{−s} is the
   identity, at s = 0; the others would need a Q̂ of their own, one per cached position.

The first part uses two seeded vectors of `width` values and length 1 (their score is the cosine
of the angle between them); the second one head of the small MLA
layer of figures A5/A6 (`core.mechanisms.mla.run_mla`, at its default widths), from the same seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import int_at_least
from .mla import MLADims, MLARun, run_mla
from .ops import ROPE_BASE, rope

WIDTH = 2  # q and k: one pair, a point in the plane turned by one radian per position


def turns(width: int) -> np.ndarray:
    """Radians each pair turns per position, θ_i = base^(−2i/width), fastest first (ops.rope's)."""
    return ROPE_BASE ** (-np.arange(0, int_at_least("width", width, 2), 2) / width)


def rotation(position: float, width: int) -> np.ndarray:
    """R_p [width, width]: rope(x, p) = x @ R_p for any row vector x (adjacent pairs, as MLA turns them)."""
    eye = np.eye(int_at_least("width", width, 2))
    return rope(eye, np.full(width, float(position)))


@dataclass(frozen=True, kw_only=True)
class RopeRun:
    """Two vectors turned by their positions, and one MLA head with its content key turned.

    Positions are 0 … T−1. S, S_turned and S_absorbed hold every pair (t, s); a query reads
    only s ≤ t (`causal`)."""

    seed: int
    tokens: int  # T
    width: int  # d, of q and k
    q: np.ndarray  # [d], length 1
    k: np.ndarray  # [d], length 1
    Q: np.ndarray  # [T, d]          row t: rope(q, t)
    K: np.ndarray  # [T, d]          row s: rope(k, s)
    S: np.ndarray  # [T, T]          Q Kᵀ
    D: np.ndarray  # [T, d]          row Δ: rope(q, Δ), Δ = t − s = 0 … T−1
    by_distance: np.ndarray  # [T]  D k: the score at each distance
    mla: MLARun  # the head's weights and latents
    head: int
    turned_queries: np.ndarray  # [T, d_k]  rope(Q^C_h, t)
    turned_keys: np.ndarray  # [T, d_k]     rope(C^KV W^UK_h, s)
    S_turned: np.ndarray  # [T, T]          the content score with both turned
    Q_hat: np.ndarray  # [T, r_kv]          rope(Q^C_h, t)(W^UK_h)ᵀ: one absorbed query per row
    S_absorbed: np.ndarray  # [T, T]        Q̂ C^KVᵀ

    @property
    def causal(self) -> np.ndarray:
        """[T, T] bool: the pairs a query reads (s ≤ t)."""
        return np.tri(self.tokens, dtype=bool)

    @property
    def distance_error(self) -> float:
        """Largest |S[t, s] − by_distance[t − s]| over s ≤ t: zero but for rounding."""
        t, s = np.nonzero(self.causal)
        return float(np.max(np.abs(self.S[t, s] - self.by_distance[t - s])))

    @property
    def absorbed_error(self) -> float:
        """Largest |S_turned − S_absorbed| over s ≤ t: what one absorbed query per row gets wrong."""
        return float(np.max(np.abs(self.S_turned - self.S_absorbed)[self.causal]))

    def between(self, t: int, s: int) -> np.ndarray:
        """[d_k, r_kv]: the matrix between the query at t (before RoPE) and the latent at s,
        R_t R_sᵀ (W^UK_h)ᵀ = R_{t−s}(W^UK_h)ᵀ, so S_turned[t, s] = Q^C_h[t] · between · c_sᵀ."""
        d_k = self.turned_queries.shape[1]
        W_UK = self.mla.weights.W_UK[self.head]
        return rotation(t, d_k) @ rotation(s, d_k).T @ W_UK.T


def run_rope(tokens: int = 6, seed: int = 0, width: int = WIDTH, head: int = 0) -> RopeRun:
    """The RoPE figure's run: q and k of `width` values in random directions from `seed`, length 1,
    turned at positions
    0 … tokens−1; and head `head` of the seeded MLA layer (A5's, `tokens` long) with RoPE put on
    its content query and key, scored expanded and with one absorbed query per row."""
    T = int_at_least("tokens", tokens, 1)
    if width % 2:
        raise ValueError(f"RoPE turns pairs: width must be even, got {width}")
    rng = np.random.default_rng(seed)
    q, k = (v / np.linalg.norm(v) for v in rng.standard_normal((2, int_at_least("width", width, 2))))
    pos = np.arange(T)
    Q, K, D = rope(np.tile(q, (T, 1)), pos), rope(np.tile(k, (T, 1)), pos), rope(np.tile(q, (T, 1)), pos)
    mla = run_mla(MLADims(tokens=T), seed)
    if not 0 <= head < mla.dims.n_heads:
        raise ValueError(f"head must be in 0..{mla.dims.n_heads - 1}, got {head}")
    W_UK = mla.weights.W_UK[head]
    turned_q = rope(mla.Q_C[head], pos)
    turned_k = rope(mla.C_KV @ W_UK, pos)
    Q_hat = turned_q @ W_UK.T
    return RopeRun(seed=seed, tokens=T, width=width, q=q, k=k, Q=Q, K=K, S=Q @ K.T, D=D, by_distance=D @ k,
                   mla=mla, head=head, turned_queries=turned_q, turned_keys=turned_k, S_turned=turned_q @ turned_k.T,
                   Q_hat=Q_hat, S_absorbed=Q_hat @ mla.C_KV.T)
