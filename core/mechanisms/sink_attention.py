"""DeepSeek-V4's attention over shared K = V entries, with a per-head sink (figure A15).

No per-head Key or Value is expanded: every head's query multiplies the entries E [N, c]
(compressed entries and local KV, already RoPE-rotated at their positions s) directly.
For one query token t with a seeded input x_t:

    c^Q = x_t W^DQ;  Q_h = RoPE_t(RMSNorm(c^Q W^UQ_h))          (RoPE on the last rope_dim dims)
    S = Q Eᵀ / √c;  P_h = exp(S_h) / (Σ exp(S_h) + exp(z′_h))   (the sink z′_h: Σ P_h < 1)
    O = P E;  Ô = RoPE_{−t}(O)                                   (inverse RoPE on the last dims)
    heads → g groups of H/g; Z^a_g = [Ô_h]_{h∈g} W^{O,a}_g  (width c_g = (H/g)·c → r_o)
    y = [Z^a_1 … Z^a_g] W^{O,b}                                  (g·r_o → D)

An entry rotated by s contributes R(s − t) to Ô, so Ô (and y) depend on s − t only.
The per-head RMSNorm uses a scale of 1 (learned scales left out).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..checks import int_at_least, positive_fields, rope_part
from .ops import init_weight, rms_norm, rope_tail, sink_softmax

_STREAM = 0x5A


@dataclass(frozen=True)
class SinkDims:
    """Sizes of V4's attention for one query."""

    n_heads: int = 4  # H (n_h)
    head_dim: int = 6  # c, the entry width (each head's query has it too)
    rope_dim: int = 2  # the last rope_dim dims carry RoPE
    n_groups: int = 2  # g, output groups (must divide n_heads)
    o_lora_rank: int = 4  # r_o, a group's width after W^{O,a}_g
    hidden: int = 8  # D
    q_lora_rank: int = 5  # width of c^Q

    def __post_init__(self):
        positive_fields(self)
        rope_part(self.rope_dim, self.head_dim)
        if self.n_heads % self.n_groups:
            raise ValueError(f"n_groups ({self.n_groups}) must divide n_heads ({self.n_heads})")

    @property
    def heads_per_group(self) -> int:
        return self.n_heads // self.n_groups

    @property
    def group_dim(self) -> int:
        """c_g = (H/g)·c: the concatenated width of one group's head outputs."""
        return self.heads_per_group * self.head_dim


@dataclass(frozen=True, kw_only=True)
class SinkRun:
    """Every intermediate of one query's attention over shared entries."""

    dims: SinkDims
    seed: int
    t: int  # query position
    x: np.ndarray  # [D]                 the query token's input x_t
    W_DQ: np.ndarray  # [D, r_q]         x_t → c^Q
    W_UQ: np.ndarray  # [H, r_q, c]      c^Q → each head's query
    c_Q: np.ndarray  # [r_q]             query latent c^Q
    Q_pre: np.ndarray  # [H, c]          c^Q W^UQ_h, before norm and RoPE
    Q: np.ndarray  # [H, c]              per-head RMSNorm, then RoPE(t) on the last rope_dim dims
    E: np.ndarray  # [N, c]              entries, Key and Value at once (RoPE at `positions`)
    positions: np.ndarray  # [N]         each entry's RoPE position s (≤ t)
    S: np.ndarray  # [H, N]              Q Eᵀ / √c
    sink: np.ndarray  # [H]              z′_h
    P: np.ndarray  # [H, N]              exp(S) / (Σ exp(S) + exp(z′_h))
    sink_mass: np.ndarray  # [H]         exp(z′_h) / (Σ exp(S) + exp(z′_h)) = 1 − Σ_N P
    O: np.ndarray  # noqa: E741  [H, c]  head outputs P E
    O_unrot: np.ndarray  # [H, c]        inverse RoPE by t on the last rope_dim dims
    groups: tuple[tuple[int, ...], ...]  # heads of each group (consecutive)
    O_groups: np.ndarray  # [g, c_g]     concatenated O_unrot of each group's heads
    W_Oa: np.ndarray  # [g, c_g, r_o]    W^{O,a}_g, one per group
    Z_a: np.ndarray  # [g, r_o]          O_groups[g] W^{O,a}_g
    W_Ob: np.ndarray  # [g·r_o, D]       W^{O,b}, shared
    y: np.ndarray  # [D]                 [Z_a flattened] W^{O,b}


def shared_kv_attention(entries, positions, t: int, *, dims: SinkDims = SinkDims(), sink=0.0,
                        seed: int = 0) -> SinkRun:
    """Attention of query token t over `entries` [N, c] (rotated at `positions` [N]).

    `sink` is z′: one value for every head or an array [H]; −∞ turns the sink off. The
    query input and the weights come from `seed`; the entries are the caller's.
    """
    d = dims
    E = np.asarray(entries, dtype=np.float64)
    pos = np.asarray(positions)
    if E.ndim != 2 or E.shape[1] != d.head_dim or E.shape[0] == 0:
        raise ValueError(f"entries must be [N ≥ 1, {d.head_dim}], got {E.shape}")
    if pos.shape != (E.shape[0],) or pos.dtype.kind not in "iu":
        raise ValueError(f"positions must be {E.shape[0]} integers, got {pos!r}")
    t = int_at_least("t", t, 0)
    if np.any(pos > t):
        raise ValueError(f"an entry at position {int(pos.max())} is after the query at t = {t}")
    z = np.broadcast_to(np.asarray(sink, dtype=np.float64), (d.n_heads,)).copy()
    if np.any(np.isnan(z)) or np.any(z == np.inf):
        raise ValueError(f"sink must be finite or −∞, got {sink!r}")

    rng = np.random.default_rng((seed, _STREAM))
    H, c, g, r_o = d.n_heads, d.head_dim, d.n_groups, d.o_lora_rank
    x = rng.standard_normal(d.hidden)
    W_DQ = init_weight(rng, d.hidden, d.q_lora_rank)
    W_UQ = init_weight(rng, H, d.q_lora_rank, c)
    W_Oa = init_weight(rng, g, d.group_dim, r_o)
    W_Ob = init_weight(rng, g * r_o, d.hidden)

    c_Q = x @ W_DQ
    Q_pre = np.einsum("r,hrc->hc", c_Q, W_UQ)
    Q = rope_tail(rms_norm(Q_pre, np.ones(c)), [t], d.rope_dim)
    S = Q @ E.T / math.sqrt(c)
    P, sink_mass = sink_softmax(S, z)
    O = P @ E  # noqa: E741 (the article's symbol)
    O_unrot = rope_tail(O, [-t], d.rope_dim)
    groups = tuple(tuple(range(j * d.heads_per_group, (j + 1) * d.heads_per_group)) for j in range(g))
    O_groups = O_unrot.reshape(g, d.group_dim)  # consecutive heads per group
    Z_a = np.einsum("gi,gir->gr", O_groups, W_Oa)
    y = Z_a.reshape(g * r_o) @ W_Ob
    return SinkRun(dims=d, seed=seed, t=t, x=x, W_DQ=W_DQ, W_UQ=W_UQ, c_Q=c_Q, Q_pre=Q_pre, Q=Q, E=E,
                   positions=pos.astype(np.int64), S=S, sink=z, P=P, sink_mass=sink_mass, O=O, O_unrot=O_unrot,
                   groups=groups, O_groups=O_groups, W_Oa=W_Oa, Z_a=Z_a, W_Ob=W_Ob, y=y)
