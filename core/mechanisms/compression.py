"""DeepSeek-V4's token-axis compression (figures A12, A13, A16, A17), small and seeded.

A compressed entry C^Comp folds the KV of several tokens into one vector of width c that
every head uses as Key and Value. Per token, X gives a candidate C = X W^KV_comp and a
pre-softmax score Z = X W^Z; per channel, the scores of a block plus a learned position
bias B are softmaxed along the token axis into weights S, and

    u_b = Σ_rows S ⊙ C        (one row per block, channel by channel)
    entry_b = RoPE(RMSNorm(u_b) × scale, position = the block's first token)

with RoPE on the last `rope_dim` dims only (the article: 64 of 512), adjacent pairs as
MLA's (`core.mechanisms.ops.rope_tail`). An entry exists only once its block is complete: ⌊T/m⌋ entries from T tokens.

HCA (`hca_compress`): blocks of m′ tokens that do not overlap; B [m′, c] has one value per
offset in the block and channel, shared by all blocks.

CSA (`csa_compress`): W^KV_comp and W^Z are twice as wide; each token's candidate and score
split into an a-half [:, :c] and a b-half [:, c:]. Entry i reads segment i−1's a rows
(m rows) and its own segment i's b rows (m rows): 2m rows, one softmax over all of them
per channel, B [2m, c] (rows :m bias the previous segment's a rows, rows m: the own b
rows). Entry 0 has no previous segment and softmaxes its m b rows with B[m:]. The RoPE
position is the own segment's start i·m, so neighbouring entries share m source tokens.

Local KV (E^win) is made separately and uncompressed: RoPE(RMSNorm(X W^KV_win) × scale_win)
at each token's own position. Weights are [input, output]; X and every weight are drawn
from the seed (X from its own stream, so HCA, CSA and the CSA indexer share one input).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import int_at_least, positive_fields, rope_part, runnable, whole_numbers
from ..registry import get
from .ops import init_scale, init_weight, rms_norm, rope_tail, softmax

_V4 = get("v4-flash")
ARTICLE_CSA_RATIO = _V4.ratio("CSA")  # m = 4
ARTICLE_HCA_RATIO = _V4.ratio("HCA")  # m′ = 128
ARTICLE_HEAD_DIM = _V4.dims.head_dim  # c = 512, one entry's width
ARTICLE_ROPE_DIM = _V4.dims.qk_rope_head_dim  # the rotated tail of an entry (64)

_X_STREAM = 0xC0  # the input X, shared by every V4 run of one seed
_HCA_STREAM = 0xC1
_CSA_STREAM = 0xC2


@dataclass(frozen=True)
class CompressDims:
    """Sizes of one compressing layer. `ratio` is HCA's m′ or CSA's m."""

    tokens: int = 12  # T
    hidden: int = 8  # D
    head_dim: int = 6  # c, the width of one entry (Key and Value at once)
    rope_dim: int = 2  # the last rope_dim dims of an entry are rotated by RoPE
    ratio: int = 4  # m′ (HCA) or m (CSA): tokens per entry

    def __post_init__(self):
        positive_fields(self)
        rope_part(self.rope_dim, self.head_dim)
        if self.tokens < self.ratio:
            raise ValueError(f"tokens ({self.tokens}) must be at least ratio ({self.ratio}): "
                             "a run needs one complete block")
        runnable(self, max(self.tokens, self.hidden) * 2 * self.head_dim)

    @property
    def n_entries(self) -> int:
        """⌊T/m⌋: entries whose block is complete."""
        return self.tokens // self.ratio


def entry_count(n, ratio):
    """Compressed entries that exist at context N: ⌊N/m⌋, complete blocks only.

    The cost model's rule (`core.cost`, docs/counting.md); `n` may be an int or an
    array (the result follows). Entries complete at token t: entry_count(t + 1, m).
    """
    out = whole_numbers("n", n, 0) // int_at_least("ratio", ratio)
    return int(out) if out.ndim == 0 else out


def hca_pool(C, Z, B, ratio: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Non-overlapping pooling of C [T, c] by Z [T, c] + B [m, c] over complete blocks.

    Returns Z_biased [n, m, c] (= Z_block + B), weights S [n, m, c] (softmax along the
    token axis, per channel: each [b, :, j] sums to 1) and pooled u [n, c] = Σ S ⊙ C_block;
    n = ⌊T/m⌋, tokens of an incomplete last block are left out.
    """
    C, Z, B = (np.asarray(a, dtype=np.float64) for a in (C, Z, B))
    if C.ndim != 2 or Z.shape != C.shape or B.shape != (ratio, C.shape[1]):
        raise ValueError(f"need C, Z [T, c] and B [{ratio}, c]; got {C.shape}, {Z.shape}, {B.shape}")
    n, c = entry_count(C.shape[0], ratio), C.shape[1]
    C_blocks = C[: n * ratio].reshape(n, ratio, c)
    Z_biased = Z[: n * ratio].reshape(n, ratio, c) + B
    weights = softmax(Z_biased, axis=1)
    return Z_biased, weights, (weights * C_blocks).sum(axis=1)


def csa_pool(C_a, C_b, Z_a, Z_b, B, ratio: int) -> tuple[np.ndarray, ...]:
    """Overlapping pooling: entry i reads segment i−1's a rows and segment i's b rows.

    All inputs are [T, c] halves except B [2m, c]. Returns, for n = ⌊T/m⌋ entries, arrays
    padded to 2m rows: rows :m are the previous segment's a rows, rows m: the own segment's
    b rows; entry 0 has no previous segment, so its rows :m are padding (token −1,
    Z_biased −∞, weight exactly 0, candidate 0).

      row_tokens [n, 2m]  source token of each row (−1 = padding)
      C_rows [n, 2m, c]   the candidate rows
      Z_biased [n, 2m, c] scores + B
      weights [n, 2m, c]  one softmax over the 2m rows per channel (m rows for entry 0)
      pooled [n, c]       u_i = Σ_rows weights ⊙ C_rows
    """
    C_a, C_b, Z_a, Z_b, B = (np.asarray(a, dtype=np.float64) for a in (C_a, C_b, Z_a, Z_b, B))
    m, c = ratio, C_a.shape[1]
    n = entry_count(C_a.shape[0], m)
    if any(a.shape != C_a.shape for a in (C_b, Z_a, Z_b)) or B.shape != (2 * m, c):
        raise ValueError(f"need C_a, C_b, Z_a, Z_b [T, c] and B [{2 * m}, c]; got "
                         f"{[a.shape for a in (C_a, C_b, Z_a, Z_b, B)]}")
    own = np.arange(n)[:, None] * m + np.arange(m)  # [n, m]: segment i's tokens
    prev = own - m  # segment i−1's tokens; negative for entry 0 (padding)
    row_tokens = np.concatenate([np.where(prev >= 0, prev, -1), own], axis=1)
    has = np.concatenate([prev >= 0, np.ones_like(own, dtype=bool)], axis=1)[..., None]
    prev_ok = np.maximum(prev, 0)
    C_rows = np.where(has, np.concatenate([C_a[prev_ok], C_b[own]], axis=1), 0.0)
    Z_rows = np.concatenate([Z_a[prev_ok], Z_b[own]], axis=1) + B
    Z_biased = np.where(has, Z_rows, -np.inf)
    weights = softmax(Z_biased, axis=1)  # −∞ rows get exactly 0
    return row_tokens, C_rows, Z_biased, weights, (weights * C_rows).sum(axis=1)


def sources(row_tokens) -> tuple[tuple[int, ...], ...]:
    """Each entry's source tokens, from its rows' tokens [n, rows] with padding (−1) dropped."""
    return tuple(tuple(int(s) for s in row if s >= 0) for row in np.asarray(row_tokens))


def seeded_input(dims: CompressDims, seed: int, X=None) -> np.ndarray:
    """The layer input X [T, D]: drawn from the seed's own stream, so HCA, CSA, CSA2 and the
    CSA indexer of one seed see the same X; or the caller's X, checked for shape."""
    if X is None:
        return np.random.default_rng((seed, _X_STREAM)).standard_normal((dims.tokens, dims.hidden))
    X = np.asarray(X, dtype=np.float64)
    if X.shape != (dims.tokens, dims.hidden):
        raise ValueError(f"X must be [{dims.tokens}, {dims.hidden}] (tokens, hidden), got {X.shape}")
    return X


@dataclass(frozen=True, kw_only=True)
class Compressor:
    """One compressor's learned weights. width = c (HCA) or 2c (CSA: a | b halves)."""

    W_kv_comp: np.ndarray  # [D, width]  X → candidates C (W^KV_comp)
    W_z: np.ndarray  # [D, width]        X → scores Z (W^Z)
    B: np.ndarray  # [m · width/c, c]    position bias: one value per row offset and channel
    scale: np.ndarray  # [c]             RMSNorm learned scale of the entries

    @classmethod
    def draw(cls, rng: np.random.Generator, dims: CompressDims, width: int) -> Compressor:
        """Drawn in field order: the order is part of what a seed means."""
        c = dims.head_dim
        return cls(W_kv_comp=init_weight(rng, dims.hidden, width), W_z=init_weight(rng, dims.hidden, width),
                   B=0.5 * rng.standard_normal((dims.ratio * width // c, c)), scale=init_scale(rng, c))


@dataclass(frozen=True, kw_only=True)
class LocalKV:
    """Local KV E^win: each token's own entry, uncompressed, RoPE(RMSNorm(X W^KV_win) ×
    scale_win) at the token's position."""

    W_kv_win: np.ndarray  # [D, c]
    scale_win: np.ndarray  # [c]
    E_win: np.ndarray  # [T, c]

    @classmethod
    def draw(cls, rng: np.random.Generator, dims: CompressDims, X: np.ndarray) -> LocalKV:
        W_kv_win, scale_win = init_weight(rng, dims.hidden, dims.head_dim), init_scale(rng, dims.head_dim)
        E_win = rope_tail(rms_norm(X @ W_kv_win, scale_win), np.arange(dims.tokens), dims.rope_dim)
        return cls(W_kv_win=W_kv_win, scale_win=scale_win, E_win=E_win)


@dataclass(frozen=True, kw_only=True)
class HCARun:
    """Every intermediate of HCA's compression (figures A12, A13); n = ⌊T/m′⌋."""

    dims: CompressDims
    seed: int
    X: np.ndarray  # [T, D]            layer input
    W_kv_comp: np.ndarray  # [D, c]    X → candidates C (W^KV_comp)
    W_z: np.ndarray  # [D, c]          X → scores Z (W^Z)
    W_kv_win: np.ndarray  # [D, c]     X → local KV (W^KV_win)
    B: np.ndarray  # [m, c]            position bias: one value per offset and channel, all blocks
    scale: np.ndarray  # [c]           RMSNorm learned scale of the entries
    scale_win: np.ndarray  # [c]       RMSNorm learned scale of the local KV
    C: np.ndarray  # [T, c]            candidates
    Z: np.ndarray  # [T, c]            pre-softmax scores
    n_entries: int  # n = ⌊T/m⌋, complete blocks only
    Z_biased: np.ndarray  # [n, m, c]  Z_block + B
    weights: np.ndarray  # [n, m, c]   S_b: softmax of Z_biased along the token axis (axis 1)
    pooled: np.ndarray  # [n, c]       u_b = Σ S_b ⊙ C_block
    normed: np.ndarray  # [n, c]       RMSNorm(u_b) × scale
    entries: np.ndarray  # [n, c]      C^Comp: RoPE on the last rope_dim dims at `positions`
    positions: np.ndarray  # [n]       RoPE position = the block's first token b·m
    sources: tuple[tuple[int, ...], ...]  # source tokens of each entry
    E_win: np.ndarray  # [T, c]        local KV E^win: RoPE(RMSNorm(X W^KV_win) × scale_win) at t


def hca_compress(dims: CompressDims = CompressDims(), seed: int = 0, *, X=None) -> HCARun:
    """HCA: each complete block of m′ tokens becomes one entry (no overlap).

    `X` [T, D] replaces the seeded input (the weights still come from the seed).
    """
    d = dims
    X = seeded_input(d, seed, X)
    rng = np.random.default_rng((seed, _HCA_STREAM))
    comp = Compressor.draw(rng, d, d.head_dim)
    local = LocalKV.draw(rng, d, X)
    C, Z = X @ comp.W_kv_comp, X @ comp.W_z
    Z_biased, weights, pooled = hca_pool(C, Z, comp.B, d.ratio)
    positions = np.arange(d.n_entries) * d.ratio
    normed = rms_norm(pooled, comp.scale)
    return HCARun(dims=d, seed=seed, X=X, W_kv_comp=comp.W_kv_comp, W_z=comp.W_z, W_kv_win=local.W_kv_win,
                  B=comp.B, scale=comp.scale, scale_win=local.scale_win, C=C, Z=Z, n_entries=d.n_entries,
                  Z_biased=Z_biased, weights=weights, pooled=pooled, normed=normed,
                  entries=rope_tail(normed, positions, d.rope_dim), positions=positions,
                  sources=sources(positions[:, None] + np.arange(d.ratio)), E_win=local.E_win)


@dataclass(frozen=True, kw_only=True)
class Overlap:
    """The overlapping compressor's work on X: CSA's main entries, and its indexer's keys.

    Row-wise arrays are padded to 2m rows per entry: rows :m = segment i−1's a-half, rows
    m: = segment i's b-half; entry 0's rows :m are padding (row token −1, weight 0).
    """

    C_a: np.ndarray  # [T, c]          a-half of the candidates (read by the next segment's entry)
    C_b: np.ndarray  # [T, c]          b-half (read by the own segment's entry)
    Z_a: np.ndarray  # [T, c]
    Z_b: np.ndarray  # [T, c]
    row_tokens: np.ndarray  # [n, 2m]  source token of each row, −1 for padding
    C_rows: np.ndarray  # [n, 2m, c]   the candidate rows an entry pools (0 for padding)
    Z_biased: np.ndarray  # [n, 2m, c] scores + B (−∞ for padding)
    weights: np.ndarray  # [n, 2m, c]  one softmax over the 2m rows per channel (m rows for entry 0)
    pooled: np.ndarray  # [n, c]
    normed: np.ndarray  # [n, c]       RMSNorm(pooled) × scale
    entries: np.ndarray  # [n, c]      RoPE on the last rope_dim dims at `positions`
    positions: np.ndarray  # [n]       own segment's start i·m


def overlap_compress(X, comp: Compressor, dims: CompressDims) -> Overlap:
    """The overlapping compressor with weights `comp` (width 2c) on X [T, D], at dims' m and RoPE."""
    c = comp.W_kv_comp.shape[1] // 2
    C2, Z2 = X @ comp.W_kv_comp, X @ comp.W_z
    C_a, C_b, Z_a, Z_b = C2[:, :c], C2[:, c:], Z2[:, :c], Z2[:, c:]
    row_tokens, C_rows, Z_biased, weights, pooled = csa_pool(C_a, C_b, Z_a, Z_b, comp.B, dims.ratio)
    positions = np.arange(row_tokens.shape[0]) * dims.ratio
    normed = rms_norm(pooled, comp.scale)
    return Overlap(C_a=C_a, C_b=C_b, Z_a=Z_a, Z_b=Z_b, row_tokens=row_tokens, C_rows=C_rows, Z_biased=Z_biased,
                   weights=weights, pooled=pooled, normed=normed, entries=rope_tail(normed, positions, dims.rope_dim),
                   positions=positions)


@dataclass(frozen=True, kw_only=True)
class CSARun(Overlap):
    """Every intermediate of CSA's overlapping compression (figures A16, A17): the
    overlapping compressor's work (`Overlap`) with the layer's weights and local KV;
    n = ⌊T/m⌋."""

    dims: CompressDims
    seed: int
    X: np.ndarray  # [T, D]
    W_kv_comp: np.ndarray  # [D, 2c]   X → [C_a | C_b]
    W_z: np.ndarray  # [D, 2c]         X → [Z_a | Z_b]
    W_kv_win: np.ndarray  # [D, c]     X → local KV
    B: np.ndarray  # [2m, c]           segment/offset bias: rows :m previous a, rows m: own b
    scale: np.ndarray  # [c]
    scale_win: np.ndarray  # [c]
    n_entries: int
    sources: tuple[tuple[int, ...], ...]  # (i−1)m … (i+1)m−1, clipped at 0
    E_win: np.ndarray  # [T, c]

    def entry_weights(self, i: int) -> np.ndarray:
        """Entry i's weights without padding: [2m, c], or [m, c] for entry 0."""
        return self.weights[i][self.row_tokens[i] >= 0]


def csa_compress(dims: CompressDims = CompressDims(), seed: int = 0, *, X=None) -> CSARun:
    """CSA: one entry per m tokens, each pooling 2m rows that overlap the previous segment."""
    d = dims
    X = seeded_input(d, seed, X)
    rng = np.random.default_rng((seed, _CSA_STREAM))
    comp = Compressor.draw(rng, d, 2 * d.head_dim)
    local = LocalKV.draw(rng, d, X)
    o = overlap_compress(X, comp, d)
    return CSARun(**vars(o), dims=d, seed=seed, X=X, W_kv_comp=comp.W_kv_comp, W_z=comp.W_z,
                  W_kv_win=local.W_kv_win, B=comp.B, scale=comp.scale, scale_win=local.scale_win,
                  n_entries=d.n_entries, sources=sources(o.row_tokens), E_win=local.E_win)
