"""One MLA layer (DeepSeek-V2/V3) at small, seeded dims, keeping every intermediate.

Symbols follow the article (figures A3–A6); field names follow DeepSeek's configs.
Activations are [tokens, features] (per head: [n_heads, tokens, features]); weights are
[input, output]. Three paths leave the same X:

    query:        X W^DQ = C^Q;  C^Q W^UQ_h = Q^C_h;  RoPE(C^Q W^QR_h) = Q^R_h
    KV latent:    X W^DKV = C^KV (cached);  C^KV W^UK_h = K^C_h;  C^KV W^UV_h = V_h
    position key: RoPE(X W^KR) = K^R (cached, one for all heads)

S_h = (Q^C_h K^C_hᵀ + Q^R_h K^Rᵀ) / √(d_k + d_r) + causal mask;  P_h = softmax(S_h);
Z_h = P_h V_h;  Y = [Z_1 … Z_nh] W^O = Σ_h Z_h W^O_h.

The content score and the output can each be computed in three orders (expand, absorb,
pre-merge); `content_score` and `head_output` take the order as an argument and
`content_score_orders` / `output_orders` run all three side by side. Like the article,
C^Q and C^KV are used as projected (DeepSeek's RMSNorm on them is left out).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..checks import one_of, positive_fields, runnable, whole_numbers
from ..models import ARTICLE_CONTEXT, Dims
from ..registry import get
from .numerics import check_precision, matmul
from .ops import causal_mask, init_weight, rope, softmax

SCORE_ORDERS = ("expand", "absorb", "premerged")
OUTPUT_ORDERS = ("expand", "absorb", "merged")


@dataclass(frozen=True)
class MLADims:
    """Sizes of one MLA layer. Defaults are tiny but keep the article's order of widths:
    C^Q wider than C^KV, C^KV wider than a head, the RoPE part smaller than the content part.
    """

    tokens: int = 6  # T
    hidden: int = 16  # D
    q_lora_rank: int = 12  # r_q, width of C^Q
    kv_lora_rank: int = 8  # r_kv, width of C^KV
    n_heads: int = 2  # n_h
    qk_nope_head_dim: int = 4  # d_k, content part of a head's query/key; also d_v
    qk_rope_head_dim: int = 2  # d_r, RoPE part (Q^R_h, K^R)

    def __post_init__(self):
        positive_fields(self)
        if self.qk_rope_head_dim % 2:
            raise ValueError(f"qk_rope_head_dim must be even (RoPE rotates pairs), got {self.qk_rope_head_dim}")

    @property
    def v_head_dim(self) -> int:
        return self.qk_nope_head_dim

    @property
    def qk_head_dim(self) -> int:
        """d_k + d_r: the width the scores are scaled by."""
        return self.qk_nope_head_dim + self.qk_rope_head_dim

    @classmethod
    def of(cls, dims: Dims, tokens: int) -> MLADims:
        """A model's MLA widths (its spec's `Dims`) over `tokens` tokens."""
        return cls(tokens=tokens, hidden=dims.hidden_size, q_lora_rank=dims.q_lora_rank,
                   kv_lora_rank=dims.kv_lora_rank, n_heads=dims.num_attention_heads,
                   qk_nope_head_dim=dims.qk_nope_head_dim, qk_rope_head_dim=dims.qk_rope_head_dim)


# DeepSeek-V2 at the article's context (131,072): for cost formulas only, never run.
ARTICLE_DIMS = MLADims.of(get("v2").dims, ARTICLE_CONTEXT)


@dataclass(frozen=True, kw_only=True)
class MLAWeights:
    """Learned weights, each [input, output] (per head: [n_heads, input, output]).

    W_O is W^O split into per-head row blocks W^O_h, so [Z_1 … Z_nh] W^O = Σ_h Z_h W^O_h.
    X, the layer input, is not learned; it is drawn from the same generator so one seed
    fixes the whole example.
    """

    W_DQ: np.ndarray  # [D, r_q]          X → C^Q
    W_UQ: np.ndarray  # [n_h, r_q, d_k]   C^Q → Q^C_h
    W_QR: np.ndarray  # [n_h, r_q, d_r]   C^Q → Q^R_h (before RoPE)
    W_DKV: np.ndarray  # [D, r_kv]        X → C^KV
    W_UK: np.ndarray  # [n_h, r_kv, d_k]  C^KV → K^C_h
    W_UV: np.ndarray  # [n_h, r_kv, d_k]  C^KV → V_h
    W_KR: np.ndarray  # [D, d_r]          X → K^R (before RoPE)
    W_O: np.ndarray  # [n_h, d_k, D]      Z_h → Y_h
    X: np.ndarray  # [T, D]


def init_weights(dims: MLADims = MLADims(), seed: int = 0) -> MLAWeights:
    """Gaussian weights with std 1/√fan_in (so activations stay O(1)) and X ~ N(0, 1)."""
    d, rng = dims, np.random.default_rng(seed)
    nh, dk, dr = d.n_heads, d.qk_nope_head_dim, d.qk_rope_head_dim
    runnable(dims, max(nh * d.tokens * d.tokens, nh * d.q_lora_rank * dk, nh * d.kv_lora_rank * dk,
                       d.hidden * nh * dk), "; use order_costs for the article's sizes")
    return MLAWeights(
        W_DQ=init_weight(rng, d.hidden, d.q_lora_rank),
        W_UQ=init_weight(rng, nh, d.q_lora_rank, dk),
        W_QR=init_weight(rng, nh, d.q_lora_rank, dr),
        W_DKV=init_weight(rng, d.hidden, d.kv_lora_rank),
        W_UK=init_weight(rng, nh, d.kv_lora_rank, dk),
        W_UV=init_weight(rng, nh, d.kv_lora_rank, dk),
        W_KR=init_weight(rng, d.hidden, dr),
        W_O=init_weight(rng, nh, dk, d.hidden, fan_in=nh * dk),
        X=rng.standard_normal((d.tokens, d.hidden)),
    )


@dataclass(frozen=True, kw_only=True)
class MLARun:
    """Every intermediate of one layer on X, computed in `precision` (expanded path).

    S_content and S_position are raw (unscaled, unmasked); S is their scaled sum with the
    causal mask. Shapes: per-head arrays are [n_h, T, ·]; C_KV and K_R are what is cached.
    """

    dims: MLADims
    seed: int
    precision: str
    weights: MLAWeights
    X: np.ndarray  # [T, D]
    C_Q: np.ndarray  # [T, r_q]           query latent C^Q
    Q_C: np.ndarray  # [n_h, T, d_k]      content queries Q^C_h
    Q_R: np.ndarray  # [n_h, T, d_r]      position queries Q^R_h (RoPE)
    C_KV: np.ndarray  # [T, r_kv]         KV latent C^KV (cached)
    K_C: np.ndarray  # [n_h, T, d_k]      content keys K^C_h
    V: np.ndarray  # [n_h, T, d_k]        values V_h
    K_R: np.ndarray  # [T, d_r]           position key K^R (RoPE, shared by heads, cached)
    S_content: np.ndarray  # [n_h, T, T]  Q^C_h K^C_hᵀ
    S_position: np.ndarray  # [n_h, T, T] Q^R_h K^Rᵀ
    S: np.ndarray  # [n_h, T, T]          (S_content + S_position)/√(d_k+d_r) + causal mask
    P: np.ndarray  # [n_h, T, T]          softmax rows
    Z: np.ndarray  # [n_h, T, d_k]        P_h V_h
    Y: np.ndarray  # [T, D]               [Z_1 … Z_nh] W^O


def _t(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def run_mla(dims: MLADims = MLADims(), seed: int = 0, precision: str = "fp64") -> MLARun:
    """Run one layer the way figure A4 draws it (keys and values expanded per head)."""
    check_precision(precision)
    w = init_weights(dims, seed)
    d, p = dims, precision
    pos = np.arange(d.tokens)
    C_Q = matmul(w.X, w.W_DQ, p)
    Q_C = matmul(C_Q, w.W_UQ, p)  # [T, r_q] @ [n_h, r_q, d_k] broadcasts over heads
    Q_R = rope(matmul(C_Q, w.W_QR, p), pos)
    C_KV = matmul(w.X, w.W_DKV, p)
    K_C = matmul(C_KV, w.W_UK, p)
    V = matmul(C_KV, w.W_UV, p)
    K_R = rope(matmul(w.X, w.W_KR, p), pos)
    S_content = matmul(Q_C, _t(K_C), p)
    S_position = matmul(Q_R, K_R.T, p)
    S = (S_content + S_position) / math.sqrt(d.qk_head_dim) + causal_mask(d.tokens)
    P = softmax(S)
    Z = matmul(P, V, p)
    concat = Z.transpose(1, 0, 2).reshape(d.tokens, d.n_heads * d.qk_nope_head_dim)
    Y = matmul(concat, w.W_O.reshape(d.n_heads * d.qk_nope_head_dim, d.hidden), p)
    return MLARun(dims=dims, seed=seed, precision=precision, weights=w, X=w.X, C_Q=C_Q, Q_C=Q_C, Q_R=Q_R,
                  C_KV=C_KV, K_C=K_C, V=V, K_R=K_R, S_content=S_content, S_position=S_position, S=S, P=P, Z=Z, Y=Y)


# --- the same quantity in three orders (figures A5, A6) ---------------------------------


def _check_head(run: MLARun, head: int) -> int:
    if not 0 <= head < run.dims.n_heads:
        raise ValueError(f"head must be in 0..{run.dims.n_heads - 1}, got {head}")
    return head


def content_score(run: MLARun, head: int = 0, order: str = "absorb",
                  precision: str = "fp64") -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Head h's raw content score [T, T] from C^Q and C^KV, and the intermediates it made.

    expand:    Q^C_h = C^Q W^UQ_h;  K^C_h = C^KV W^UK_h;  Q^C_h K^C_hᵀ      (dots in d_k)
    absorb:    Q^C_h = C^Q W^UQ_h;  Q̂_h = Q^C_h W^UK_hᵀ [T, r_kv];  Q̂_h C^KVᵀ   (dots in r_kv)
    premerged: Ŵ^Q_h = W^UQ_h W^UK_hᵀ [r_q, r_kv];  C^Q Ŵ^Q_h C^KVᵀ
    """
    h, p, w = _check_head(run, head), check_precision(precision), run.weights
    one_of("score order", order, SCORE_ORDERS)
    if order == "expand":
        Q_C_h = matmul(run.C_Q, w.W_UQ[h], p)
        K_C_h = matmul(run.C_KV, w.W_UK[h], p)
        return matmul(Q_C_h, K_C_h.T, p), {"Q_C_h": Q_C_h, "K_C_h": K_C_h}
    if order == "absorb":
        Q_C_h = matmul(run.C_Q, w.W_UQ[h], p)
        Q_hat = matmul(Q_C_h, w.W_UK[h].T, p)
        return matmul(Q_hat, run.C_KV.T, p), {"Q_C_h": Q_C_h, "Q_hat": Q_hat}
    W_hat = matmul(w.W_UQ[h], w.W_UK[h].T, p)  # premerged: offline, once per head
    return matmul(matmul(run.C_Q, W_hat, p), run.C_KV.T, p), {"W_hat": W_hat}


def head_output(run: MLARun, head: int = 0, order: str = "absorb",
                precision: str = "fp64") -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Head h's contribution Y_h [T, D] to the output from P_h and C^KV, and its intermediates.

    expand: V_h = C^KV W^UV_h [T, d_k];  Z_h = P_h V_h;  Z_h W^O_h
    absorb: U_h = P_h C^KV [T, r_kv];  Z_h = U_h W^UV_h;  Z_h W^O_h
    merged: Ŵ^O_h = W^UV_h W^O_h [r_kv, D];  U_h = P_h C^KV;  U_h Ŵ^O_h
    """
    h, p, w = _check_head(run, head), check_precision(precision), run.weights
    one_of("output order", order, OUTPUT_ORDERS)
    P_h = run.P[h]
    if order == "expand":
        V_h = matmul(run.C_KV, w.W_UV[h], p)
        Z_h = matmul(P_h, V_h, p)
        return matmul(Z_h, w.W_O[h], p), {"V_h": V_h, "Z_h": Z_h}
    if order == "absorb":
        U_h = matmul(P_h, run.C_KV, p)
        Z_h = matmul(U_h, w.W_UV[h], p)
        return matmul(Z_h, w.W_O[h], p), {"U_h": U_h, "Z_h": Z_h}
    W_hat = matmul(w.W_UV[h], w.W_O[h], p)  # merged: offline, once per head
    U_h = matmul(P_h, run.C_KV, p)
    return matmul(U_h, W_hat, p), {"U_h": U_h, "W_hat": W_hat}


@dataclass(frozen=True, kw_only=True)
class OrderResult:
    """One head's quantity computed in three orders from the same inputs.

    results: order name -> matrix. intermediates: what the orders made on the way, by
    name (score: Q_C_h, K_C_h, Q_hat, W_hat; output: V_h, Z_h, U_h, W_hat; where two orders
    make the same thing the first order's copy is kept). max_abs_diff: largest
    |difference| over all pairs of orders.
    """

    quantity: str  # "content score" | "output"
    head: int
    precision: str
    results: dict[str, np.ndarray]
    intermediates: dict[str, np.ndarray]
    max_abs_diff: float

    @property
    def max_rel_diff(self) -> float:
        """max_abs_diff relative to the largest |value| (comparable across dims and seeds)."""
        scale = max(float(np.max(np.abs(r))) for r in self.results.values())
        return self.max_abs_diff / scale if scale else 0.0


def _orders(quantity, fn, orders, run, head, precision) -> OrderResult:
    results, inter = {}, {}
    for order in orders:
        results[order], made = fn(run, head, order, precision)
        for name, value in made.items():
            inter.setdefault(name, value)
    diff = max(float(np.max(np.abs(a - b))) for a, b in itertools.combinations(results.values(), 2))
    return OrderResult(quantity=quantity, head=head, precision=precision, results=results, intermediates=inter,
                       max_abs_diff=diff)


def content_score_orders(run: MLARun, head: int = 0, precision: str = "fp64") -> OrderResult:
    """Figure A5: head h's content score as expand / absorb / premerged (see `content_score`)."""
    return _orders("content score", content_score, SCORE_ORDERS, run, head, precision)


def output_orders(run: MLARun, head: int = 0, precision: str = "fp64") -> OrderResult:
    """Figure A6: head h's output contribution Y_h as expand / absorb / merged (Σ_h Y_h = Y)."""
    return _orders("output", head_output, OUTPUT_ORDERS, run, head, precision)


# --- what each order costs ------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Cost:
    """What one computation order costs one head: int64 arrays over the broadcast
    (queries, keys), 0-d for scalar inputs. macs = project + expand + attend; values read,
    reads = cache + expanded + other."""

    queries: np.ndarray
    keys: np.ndarray
    macs_project: np.ndarray
    macs_expand: np.ndarray
    macs_attend: np.ndarray
    reads_cache: np.ndarray  # n·r_kv: C^KV, read by every order
    reads_expanded: np.ndarray  # K^C_h or V_h read back (n·d_k, expand only)
    reads_other: np.ndarray  # weights, queries, P_h and other activations

    @property
    def macs(self) -> np.ndarray:
        return self.macs_project + self.macs_expand + self.macs_attend

    @property
    def reads(self) -> np.ndarray:
        return self.reads_cache + self.reads_expanded + self.reads_other


def order_costs(queries, keys, dims: MLADims = ARTICLE_DIMS) -> dict[tuple[str, str], Cost]:
    """Multiply-adds and values read by each order, for ONE head, `queries` query rows
    (1 = a decode step; = keys for prefill) against `keys` cached positions.

    Returns {(quantity, order): Cost} for ("score", each of SCORE_ORDERS) and ("output",
    each of OUTPUT_ORDERS); `queries` and `keys` may be integers or arrays, broadcast
    together: order_costs(1, n)["score", "absorb"].macs is the decode cost at each n.
    With q = queries, n = keys, r_q, r_kv, d_k, D:

    content score (the position score and the scale are the same in every order, left out)
      expand:    project q·r_q·d_k  + expand n·r_kv·d_k + attend q·n·d_k
      absorb:    project q·r_q·d_k + q·d_k·r_kv          + attend q·n·r_kv
      premerged: project q·r_q·r_kv                      + attend q·n·r_kv
    output (Y_h from P_h)
      expand:    expand n·r_kv·d_k + attend q·n·d_k  + project q·d_k·D
      absorb:                        attend q·n·r_kv + project q·r_kv·d_k + q·d_k·D
      merged:                        attend q·n·r_kv + project q·r_kv·D

    Values read count every operand of every matmul once; merged weights Ŵ are made
    offline and not counted.
    """
    q, n = np.broadcast_arrays(whole_numbers("queries", queries, 1), whole_numbers("keys", keys, 1))
    rq, rkv, dk, D = dims.q_lora_rank, dims.kv_lora_rank, dims.qk_nope_head_dim, dims.hidden
    zero = np.zeros_like(n)

    def cost(project, expand, attend, expanded, other) -> Cost:
        return Cost(queries=q, keys=n, macs_project=project, macs_expand=expand, macs_attend=attend,
                    reads_cache=n * rkv, reads_expanded=expanded, reads_other=other)

    return {
        ("score", "expand"): cost(q * rq * dk, n * rkv * dk, q * n * dk, n * dk,
                                  q * rq + rq * dk + rkv * dk + q * dk),
        ("score", "absorb"): cost(q * rq * dk + q * dk * rkv, zero, q * n * rkv, zero,
                                  q * rq + rq * dk + q * dk + rkv * dk + q * rkv),
        ("score", "premerged"): cost(q * rq * rkv, zero, q * n * rkv, zero, q * rq + rq * rkv + q * rkv),
        ("output", "expand"): cost(q * dk * D, n * rkv * dk, q * n * dk, n * dk,
                                   rkv * dk + q * n + q * dk + dk * D),
        ("output", "absorb"): cost(q * rkv * dk + q * dk * D, zero, q * n * rkv, zero,
                                   q * n + q * rkv + rkv * dk + q * dk + dk * D),
        ("output", "merged"): cost(q * rkv * D, zero, q * n * rkv, zero, q * n + q * rkv + rkv * D),
    }
