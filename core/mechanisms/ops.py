"""Numeric primitives of the mechanism runs, in float64, written once: RoPE, softmax (with
a sink), the two norms, the causal mask, the indexer score and its top-k, and the seeded
initialisation every run draws its weights with."""

from __future__ import annotations

import numpy as np

from ..checks import int_at_least

ROPE_BASE = 10000.0


def rope(x, positions, base: float = ROPE_BASE, interleaved: bool = True) -> np.ndarray:
    """Rotate pairs of the last axis of `x` [..., T, d] by position × θ_i, θ_i = base^(−2i/d).

    interleaved=True pairs adjacent dims (2i, 2i+1), as MLA and V4 do; False pairs i with
    i + d/2, as DeepSeek-V3.2's indexer does. Either way the rotation keeps norms and makes
    RoPE(q, t)·RoPE(k, s) depend on t − s only; negative positions turn back.
    """
    x = np.asarray(x, dtype=np.float64)
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"RoPE needs an even width, got {d}")
    theta = base ** (-np.arange(0, d, 2) / d)
    angle = np.atleast_1d(np.asarray(positions, dtype=np.float64))[:, None] * theta  # [T, d/2]
    cos, sin = np.cos(angle), np.sin(angle)
    first, second = (slice(0, None, 2), slice(1, None, 2)) if interleaved else (slice(0, d // 2), slice(d // 2, None))
    a, b = x[..., first], x[..., second]
    out = np.empty_like(x)
    out[..., first], out[..., second] = a * cos - b * sin, a * sin + b * cos
    return out


def rope_slice(x, positions, dims: slice, *, interleaved: bool = True) -> np.ndarray:
    """RoPE on x[..., dims] only; the other dims pass unchanged (a model rotates part of a vector)."""
    out = np.array(x, dtype=np.float64)
    out[..., dims] = rope(out[..., dims], positions, interleaved=interleaved)
    return out


def rope_tail(x, positions, rope_dim: int) -> np.ndarray:
    """RoPE (adjacent pairs) on the last `rope_dim` dims of x [..., T, d] at `positions` [T]
    (or one position for every row), as V4 rotates its entries and queries."""
    x = np.asarray(x, dtype=np.float64)
    return rope_slice(x, positions, slice(x.shape[-1] - rope_dim, None))


def softmax(s, axis: int = -1) -> np.ndarray:
    """Softmax along `axis` (rows by default); −∞ entries get exactly 0. Every slice needs a
    finite entry."""
    s = np.asarray(s, dtype=np.float64)
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def sink_softmax(S, sink) -> tuple[np.ndarray, np.ndarray]:
    """P [..., N] = exp(S) / (Σ exp(S) + exp(sink)) and the sink's mass [...], computed
    stably (shifted by the larger of max S and the sink). sink = −∞ gives plain softmax."""
    S = np.asarray(S, dtype=np.float64)
    sink = np.asarray(sink, dtype=np.float64)
    shift = np.maximum(S.max(axis=-1), sink)
    e = np.exp(S - shift[..., None])
    e_sink = np.exp(sink - shift)
    denom = e.sum(axis=-1) + e_sink
    return e / denom[..., None], e_sink / denom


def rms_norm(x, scale, eps: float = 1e-6) -> np.ndarray:
    """x / √(mean(x²) + eps) over the last axis, times the learned `scale` (the article's
    'learned scale', not an FP8 scale)."""
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * np.asarray(scale, dtype=np.float64)


def layer_norm(x, eps: float = 1e-6) -> np.ndarray:
    """Zero mean, unit variance over the last axis (learned scale 1 and bias 0, as at init)."""
    x = np.asarray(x, dtype=np.float64)
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)


def causal_mask(tokens: int) -> np.ndarray:
    """0 where s ≤ t, −∞ above the diagonal (a query never sees a later position)."""
    return np.where(np.tri(tokens, dtype=bool), 0.0, -np.inf)


def index_scores(q, keys, w) -> np.ndarray:
    """The lightning indexer's per-head scores w[t, h] · ReLU(q[h, t] · k_s), [H, T, S] from
    q [H, T, d], keys [S, d] and head weights w [T, H]. Summed over heads they only rank
    positions (no softmax)."""
    return np.asarray(w).T[:, :, None] * np.maximum(np.asarray(q) @ np.asarray(keys).T, 0.0)


def top_k(scores, candidates, k: int) -> np.ndarray:
    """Bool mask like `scores` [..., n]: per row the min(k, c) highest of its first c scores,
    c = `candidates` (broadcast over the leading axes); nothing past them is chosen.

    Every selection in core ranks this way: causal positions (c = t + 1), completed blocks,
    pool blocks. Ties go to the lower index (a stable sort), so the choice is deterministic
    even where ReLU leaves many scores at 0.
    """
    k = int_at_least("topk", k)
    scores = np.asarray(scores, dtype=np.float64)
    n = scores.shape[-1]
    counts = np.asarray(candidates)[..., None]
    candidate = np.arange(n) < counts
    order = np.argsort(-np.where(candidate, scores, -np.inf), axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(n), order.shape), axis=-1)
    return (rank < np.minimum(k, counts)) & candidate


def init_weight(rng: np.random.Generator, *shape: int, fan_in: int | None = None) -> np.ndarray:
    """Gaussian weights [..., input, output] with std 1/√fan_in (the input width unless
    given), so activations stay O(1)."""
    return rng.standard_normal(shape) / np.sqrt(shape[-2] if fan_in is None else fan_in)


def init_scale(rng: np.random.Generator, n: int) -> np.ndarray:
    """A learned RMSNorm scale [n] near 1 (1 + 0.1·N(0, 1)), so figures show it is not 1."""
    return 1.0 + 0.1 * rng.standard_normal(n)
