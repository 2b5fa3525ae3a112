"""DeepSeek-V4.1's CSA2 compression (figures A21, A22), small and seeded.

CSA2 changes two things in one layer against V4's CSA (`core.mechanisms.compression.csa_compress`):

1. No overlap, no position bias. Entry b pools only its own block of m tokens, b·m …
   (b+1)m − 1; per channel one softmax over those m scores Z (no bias B), so every token
   sits in exactly one entry. With m = 1 the weight is 1 and the token passes through.

       C = X W^KV_comp,  Z = X W^Z                          [T, c]
       u_b = Σ_rows softmax_rows(Z_block) ⊙ C_block         [n, c]
       C^Comp_pre = RMSNorm(u_b) × scale                    main KV after RMSNorm, before RoPE

2. The index key comes from the main KV, not from a second compressor on X:

       k^I_pre = RMSNorm(C^Comp_pre W^IK) × scale_I         W^IK [c, d^I]

   and RoPE is then applied to each on its last `rope_dim` dims, at the block's first
   token b·m: entries = RoPE(C^Comp_pre), index_keys = RoPE(k^I_pre).

n = ⌊T/m⌋ complete blocks, as everywhere (docs/counting.md). X is the seed's shared input stream,
the same X that `csa_compress` sees, so `compare_csa_csa2` puts both on one input. The
draws come in a fixed order (main compressor, then local KV, then W^IK and its scale), so
the entries do not depend on `index_dim` or on W^IK.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import int_at_least
from ..registry import get
from .compression import CompressDims, CSARun, LocalKV, csa_compress, hca_pool, seeded_input, sources
from .ops import init_scale, init_weight, rms_norm, rope_tail

_V41 = get("v4.1-flash")
# m of the encoder's CSA2 layers (2) and of the decoder's (1), from the layer schedule
ARTICLE_ENCODER_RATIO = _V41.ratio("CSA2", "encoder")
ARTICLE_DECODER_RATIO = _V41.ratio("CSA2", "decoder")
ARTICLE_HEAD_DIM = _V41.dims.head_dim  # c = 512
ARTICLE_INDEX_DIM = _V41.dims.index_head_dim  # d^I = 128
_STREAM = 0xC5A2
_DIMS = CompressDims()  # m = 4: the comparison size of figure A21


def csa2_pool(C, Z, ratio: int) -> tuple[np.ndarray, np.ndarray]:
    """HCA's non-overlapping pooling (`hca_pool`) with no bias: C [T, c] by Z [T, c] over
    complete blocks of m.

    Returns weights S [n, m, c] (softmax along the token axis, per channel, over the
    block's own m scores) and pooled u [n, c] = Σ S ⊙ C_block; n = ⌊T/m⌋.
    """
    C = np.asarray(C, dtype=np.float64)
    _, weights, pooled = hca_pool(C, Z, np.zeros((int_at_least("ratio", ratio), C.shape[-1])), ratio)
    return weights, pooled


def index_key_pre_rope(main_pre_rope, W_IK, scale_I) -> np.ndarray:
    """k^I before RoPE: RMSNorm(C^Comp_pre W^IK) × scale_I, [n, d^I] from [n, c] alone."""
    return rms_norm(np.asarray(main_pre_rope, dtype=np.float64) @ np.asarray(W_IK, dtype=np.float64), scale_I)


@dataclass(frozen=True, kw_only=True)
class CSA2Run:
    """Every intermediate of one CSA2 layer's compression (A21, A22); n = ⌊T/m⌋."""

    dims: CompressDims
    seed: int
    index_dim: int  # d^I
    X: np.ndarray  # [T, D]               layer input (the seed's shared X)
    W_kv_comp: np.ndarray  # [D, c]       X → candidates C (W^KV_comp)
    W_z: np.ndarray  # [D, c]             X → scores Z (W^Z); no bias B in CSA2
    scale: np.ndarray  # [c]              RMSNorm scale of the main KV
    W_IK: np.ndarray  # [c, d^I]          main KV (before RoPE) → index key (W^IK)
    scale_I: np.ndarray  # [d^I]          RMSNorm scale of the index key
    W_kv_win: np.ndarray  # [D, c]        X → local KV (W^KV_win)
    scale_win: np.ndarray  # [c]
    C: np.ndarray  # [T, c]               candidates
    Z: np.ndarray  # [T, c]               pre-softmax scores
    n_entries: int  # N_c = ⌊T/m⌋
    weights: np.ndarray  # [n, m, c]      S_b: softmax of the block's Z along the token axis
    pooled: np.ndarray  # [n, c]          u_b = Σ S_b ⊙ C_block
    main_pre_rope: np.ndarray  # [n, c]   C^Comp before RoPE: RMSNorm(u_b) × scale
    index_pre_rope: np.ndarray  # [n, d^I]  RMSNorm(main_pre_rope W^IK) × scale_I
    entries: np.ndarray  # [n, c]         C^Comp: RoPE(main_pre_rope) on the last rope_dim dims
    index_keys: np.ndarray  # [n, d^I]    k^I: RoPE(index_pre_rope) on the last rope_dim dims
    positions: np.ndarray  # [n]          RoPE position = the block's first token b·m
    sources: tuple[tuple[int, ...], ...]  # b·m … (b+1)m − 1: each token in exactly one entry
    E_win: np.ndarray  # [T, c]           local KV, as V4's (per token, uncompressed)

    @property
    def softmax_size(self) -> int:
        """Tokens one softmax spans: m (CSA: 2m)."""
        return self.dims.ratio


def csa2_compress(dims: CompressDims = _DIMS, seed: int = 0, *, X=None, index_dim: int = 4,
                  W_IK=None) -> CSA2Run:
    """CSA2: each complete block of m tokens becomes one main entry and one index key.

    `X` [T, D] replaces the seeded input and `W_IK` [c, d^I] the seeded projection (the
    other weights still come from the seed). `dims.rope_dim` is rotated in both the entry
    and the index key, so it must be smaller than `index_dim`.
    """
    d = dims
    index_dim = int_at_least("index_dim", index_dim)
    if d.rope_dim >= index_dim:
        raise ValueError(f"index_dim ({index_dim}) must exceed rope_dim ({d.rope_dim})")
    X = seeded_input(d, seed, X)
    rng = np.random.default_rng((seed, _STREAM))
    W_kv_comp, W_z = init_weight(rng, d.hidden, d.head_dim), init_weight(rng, d.hidden, d.head_dim)
    scale = init_scale(rng, d.head_dim)
    local = LocalKV.draw(rng, d, X)
    drawn_IK, scale_I = init_weight(rng, d.head_dim, index_dim), init_scale(rng, index_dim)
    if W_IK is None:
        W_IK = drawn_IK
    else:
        W_IK = np.asarray(W_IK, dtype=np.float64)
        if W_IK.shape != (d.head_dim, index_dim):
            raise ValueError(f"W_IK must be [{d.head_dim}, {index_dim}] (c, d^I), got {W_IK.shape}")

    C, Z = X @ W_kv_comp, X @ W_z
    weights, pooled = csa2_pool(C, Z, d.ratio)
    positions = np.arange(d.n_entries) * d.ratio
    main_pre_rope = rms_norm(pooled, scale)
    index_pre_rope = index_key_pre_rope(main_pre_rope, W_IK, scale_I)
    entries, index_keys = (rope_tail(x, positions, d.rope_dim) for x in (main_pre_rope, index_pre_rope))
    return CSA2Run(
        dims=d, seed=seed, index_dim=index_dim, X=X, W_kv_comp=W_kv_comp, W_z=W_z, scale=scale, W_IK=W_IK,
        scale_I=scale_I, W_kv_win=local.W_kv_win, scale_win=local.scale_win, C=C, Z=Z, n_entries=d.n_entries,
        weights=weights, pooled=pooled, main_pre_rope=main_pre_rope, index_pre_rope=index_pre_rope,
        entries=entries, index_keys=index_keys, positions=positions,
        sources=sources(positions[:, None] + np.arange(d.ratio)), E_win=local.E_win)


@dataclass(frozen=True, kw_only=True)
class CSAvsCSA2:
    """Figure A21: how one entry is made by CSA and by CSA2 from the same X and m."""

    entry: int  # the entry compared (the article: entry 1)
    csa: CSARun
    csa2: CSA2Run
    csa_spans: tuple[tuple[int, ...], ...]  # every CSA entry's source tokens ((i−1)m … (i+1)m − 1)
    csa2_spans: tuple[tuple[int, ...], ...]  # every CSA2 entry's source tokens (i·m … (i+1)m − 1)
    csa_span: tuple[int, ...]  # the compared entry's tokens in CSA (2m; m for entry 0)
    csa2_span: tuple[int, ...]  # … in CSA2 (m)
    csa_softmax_size: int  # rows of CSA's softmax for that entry (2m; m for entry 0)
    csa2_softmax_size: int  # m
    csa_weights: np.ndarray  # [2m, c]  CSA's weights of that entry (padding dropped)
    csa2_weights: np.ndarray  # [m, c]  CSA2's weights of that entry
    csa_bias: np.ndarray  # [2m, c]    CSA's B (CSA2 has none)
    csa_shared: tuple[int, ...]  # tokens the entry shares with the previous entry in CSA (m)
    csa2_shared: tuple[int, ...]  # … in CSA2 (none)


def compare_csa_csa2(dims: CompressDims = _DIMS, seed: int = 0, *, entry: int = 1) -> CSAvsCSA2:
    """CSA and CSA2 on the same seeded X with the same m, entry `entry` side by side.

    The article's A21 compares at m = 4 (`CompressDims()`'s ratio), entry 1.
    """
    entry = int_at_least("entry", entry, 0)
    if entry >= dims.n_entries:
        raise ValueError(f"entry must be in 0..{dims.n_entries - 1} ({dims.n_entries} complete blocks), got {entry!r}")
    csa, csa2 = csa_compress(dims, seed), csa2_compress(dims, seed)
    return CSAvsCSA2(
        entry=entry, csa=csa, csa2=csa2, csa_spans=csa.sources, csa2_spans=csa2.sources,
        csa_span=csa.sources[entry], csa2_span=csa2.sources[entry],
        csa_softmax_size=int((csa.row_tokens[entry] >= 0).sum()), csa2_softmax_size=csa2.softmax_size,
        csa_weights=csa.entry_weights(entry), csa2_weights=csa2.weights[entry], csa_bias=csa.B,
        csa_shared=_shared_with_previous(csa.sources, entry), csa2_shared=_shared_with_previous(csa2.sources, entry))


def _shared_with_previous(spans: tuple[tuple[int, ...], ...], entry: int) -> tuple[int, ...]:
    return tuple(sorted(set(spans[entry]) & set(spans[entry - 1]))) if entry else ()
