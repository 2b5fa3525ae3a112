"""MLA figures A3–A6: the three paths, the two scores, and the computation orders that
give the same score and output without expanding keys or values.

A3/A4 are structural: boxes carry the article's sizes (V2's dims in core.models). A5/A6 run
a small seeded MLA layer (core.mechanisms.mla) and show the results of the three orders with their
measured difference, at the chosen computation precision. The cost of the orders is a chart's model
(figures/charts/order_costs.py) the layout pass places for the canvas and draws.
"""

from __future__ import annotations

import numpy as np

from core import ARTICLE_CONTEXT, get
from core.mechanisms import MLADims, content_score_orders, order_costs, output_orders, run_mla
from i18n import t

from ..charts.order_costs import CostLine, OrderCostChart
from ..matrix import Box, Diagram, Op


def sym(base: str, sup: str = "", sub: str = "", t_: bool = False) -> str:
    """HTML for a symbol like W^UK_h (t_ = transposed)."""
    s = base + (f"<sup>{sup}</sup>" if sup else "") + (f"<sub>{sub}</sub>" if sub else "")
    return f"({s})<sup>T</sup>" if t_ and (sup or sub) else s + ("<sup>T</sup>" if t_ else "")


def article_dims() -> MLADims:
    """V2's MLA sizes at the article's context, read from the spec when a figure is built."""
    return MLADims.of(get("v2").dims, ARTICLE_CONTEXT)


def build_a3(*, lang: str = "ko") -> Diagram:
    """X splits into the query path, the shared KV latent C^KV and the position key K^R; the
    latter two are cached."""
    d = article_dims()
    X = Box("X", ("T", d.hidden))
    CQ = Box(sym("C", "Q"), ("T", d.q_lora_rank))
    CKV = Box(sym("C", "KV"), ("T", d.kv_lora_rank), "kv", cached=True)
    lanes = (
        (X, Op("×"), Box(sym("W", "DQ"), (d.hidden, d.q_lora_rank), "weight"), Op("="), CQ,
         Op("×"), Box(sym("W", "UQ", "h"), (d.q_lora_rank, d.qk_nope_head_dim), "weight"), Op("="),
         Box(sym("Q", "C", "h"), ("T", d.qk_nope_head_dim))),
        (CQ, Op("×"), Box(sym("W", "QR", "h"), (d.q_lora_rank, d.qk_rope_head_dim), "weight"), Op("→", "RoPE"),
         Box(sym("Q", "R", "h"), ("T", d.qk_rope_head_dim))),
        (X, Op("×"), Box(sym("W", "DKV"), (d.hidden, d.kv_lora_rank), "weight"), Op("="), CKV,
         Op("×"), Box(sym("W", "UK", "h"), (d.kv_lora_rank, d.qk_nope_head_dim), "weight"), Op("="),
         Box(sym("K", "C", "h"), ("T", d.qk_nope_head_dim))),
        (CKV, Op("×"), Box(sym("W", "UV", "h"), (d.kv_lora_rank, d.qk_nope_head_dim), "weight"), Op("="),
         Box(sym("V", sub="h"), ("T", d.qk_nope_head_dim))),
        (X, Op("×"), Box(sym("W", "KR"), (d.hidden, d.qk_rope_head_dim), "weight"), Op("→", "RoPE"),
         Box(sym("K", "R"), ("T", d.qk_rope_head_dim), "kv", cached=True, note=t("a3.shared", lang))),
    )
    return Diagram(
        t("a3.title", lang), lanes,
        lane_labels=(t("a3.query", lang), "", t("a3.kv", lang), "", t("a3.pos", lang)),
        captions=(t("a3.cap", lang, kv=d.kv_lora_rank, r=d.qk_rope_head_dim), t("mx.width", lang)),
        lang=lang, subtitle=t("a3.sub", lang))


def build_a4(*, lang: str = "ko") -> Diagram:
    """One head: content score + position score, scaled, masked and softmaxed to P_h; then
    P_h V_h, the heads concatenated and W^O."""
    d = article_dims()
    dk, dr, nh = d.qk_nope_head_dim, d.qk_rope_head_dim, d.n_heads
    S = Box(sym("S", sub="h"), ("T", "T"), "score")
    P = Box(sym("P", sub="h"), ("T", "T"), "score")
    lanes = (
        (Box(sym("Q", "C", "h"), ("T", dk)), Op("×"), Box(sym("K", "C", "h", t_=True), (dk, "T"), "kv"), Op("+"),
         Box(sym("Q", "R", "h"), ("T", dr)), Op("×"), Box(sym("K", "R", t_=True), (dr, "T"), "kv"), Op("="), S),
        (S, Op("→", f"÷√({dk}+{dr}) · mask · softmax"), P),
        (P, Op("×"), Box(sym("V", sub="h"), ("T", dk), "kv"), Op("="), Box(sym("Z", sub="h"), ("T", dk)),
         Op("→", t("a4.concat", lang, n=nh)), Box("Z", ("T", nh * dk)), Op("×"),
         Box(sym("W", "O"), (nh * dk, d.hidden), "weight"), Op("="), Box("Y", ("T", d.hidden))),
    )
    return Diagram(
        t("a4.title", lang), lanes, lane_labels=(t("a4.score", lang), t("a4.prob", lang), t("a4.out", lang)),
        captions=(t("a4.cap", lang, dk=dk, dr=dr), t("mx.width", lang)),
        lang=lang, subtitle=t("a4.sub", lang))


def _dims(tokens: int, kv_lora_rank: int, qk_nope_head_dim: int) -> MLADims:
    return MLADims(tokens=tokens, kv_lora_rank=kv_lora_rank, qk_nope_head_dim=qk_nope_head_dim)


def _diff_caption(result, lang: str) -> str:
    return t("a5.diff", lang, d=f"{result.max_abs_diff:.1e}", r=f"{result.max_rel_diff:.1e}",
             p=result.precision.upper())


def build_a5(*, seed: int = 0, tokens: int = 6, kv_lora_rank: int = 8, qk_nope_head_dim: int = 4,
             calc: str = "fp64", head: int = 0, lang: str = "ko") -> Diagram:
    """One head's content score in three orders (expand / absorb / premerged), values shown."""
    dims = _dims(tokens, kv_lora_rank, qk_nope_head_dim)
    run = run_mla(dims, seed)
    res = content_score_orders(run, head, calc)
    T, rq, rkv, dk = dims.tokens, dims.q_lora_rank, dims.kv_lora_rank, dims.qk_nope_head_dim
    S = {o: Box(sym("S", "C", "h"), (T, T), "score", values=v) for o, v in res.results.items()}
    CKVt = Box(sym("C", "KV", t_=True), (rkv, T), "kv", cached=True)
    lanes = (
        (Box(sym("Q", "C", "h"), (T, dk)), Op("×"),
         Box(sym("K", "C", "h", t_=True), (dk, T), note=t("a5.expanded", lang)), Op("="), S["expand"]),
        (Box("Q̂<sub>h</sub>", (T, rkv), note=t("a5.qhat", lang)), Op("×"), CKVt, Op("="), S["absorb"]),
        (Box(sym("C", "Q"), (T, rq)), Op("×"), Box("Ŵ<sup>Q</sup><sub>h</sub>", (rq, rkv), "weight",
                                                  note=t("a5.what", lang)),
         Op("×"), CKVt, Op("="), S["premerged"]),
    )
    return Diagram(
        t("a5.title", lang), lanes,
        lane_labels=(t("a5.expand", lang, d=dk), t("a5.absorb", lang, d=rkv), t("a5.premerged", lang)),
        captions=(_diff_caption(res, lang), _absorb_caption(lang)),
        lang=lang, subtitle=t("a5.sub", lang, h=head, seed=seed))


def _absorb_caption(lang: str) -> str:
    d = article_dims()
    return t("a5.cap", lang, dk=d.qk_nope_head_dim, rkv=d.kv_lora_rank, x=f"{d.kv_lora_rank / d.qk_nope_head_dim:g}")


def build_a6(*, seed: int = 0, tokens: int = 6, kv_lora_rank: int = 8, qk_nope_head_dim: int = 4,
             calc: str = "fp64", head: int = 0, lang: str = "ko") -> Diagram:
    """One head's output contribution Y_h in three orders (expand / absorb / merged)."""
    dims = _dims(tokens, kv_lora_rank, qk_nope_head_dim)
    run = run_mla(dims, seed)
    res = output_orders(run, head, calc)
    T, rkv, dk, D = dims.tokens, dims.kv_lora_rank, dims.qk_nope_head_dim, dims.hidden
    Y = {o: Box(sym("Y", sub="h"), (T, D), values=v) for o, v in res.results.items()}
    U = Box(sym("U", sub="h"), (T, rkv), note=t("a6.u", lang))
    WO = Box(sym("W", "O", "h"), (dk, D), "weight")
    lanes = (
        (Box(sym("P", sub="h"), (T, T), "score"), Op("×"), Box(sym("V", sub="h"), (T, dk), note=t("a6.v", lang)),
         Op("×"), WO, Op("="), Y["expand"]),
        (U, Op("×"), Box(sym("W", "UV", "h"), (rkv, dk), "weight"), Op("×"), WO, Op("="), Y["absorb"]),
        (U, Op("×"), Box("Ŵ<sup>O</sup><sub>h</sub>", (rkv, D), "weight", note=t("a6.what", lang)), Op("="),
         Y["merged"]),
    )
    return Diagram(
        t("a6.title", lang), lanes,
        lane_labels=(t("a6.expand", lang), t("a6.absorb", lang), t("a6.merged", lang)),
        captions=(_diff_caption(res, lang), t("a6.cap", lang)),
        lang=lang, subtitle=t("a6.sub", lang, h=head, seed=seed))


def build_mla_cost(*, lang: str = "ko", max_tokens: int = 1 << 20) -> OrderCostChart:
    """Multiply-adds of one head's content score: expand vs absorb, decode vs prefill, over T; on a
    phone's column (for its text) the legend under the plot, not over its lines."""
    d = article_dims()
    n = np.unique(np.geomspace(16, max_tokens, 60).astype(np.int64))
    lines, records = [], []
    for phase, queries in (("decode", 1), ("prefill", n)):
        costs = order_costs(queries, n, d)
        for order in ("expand", "absorb"):
            c = costs["score", order]
            records += [{"phase": phase, "order": order, "tokens": int(k), "macs": int(v)}
                        for k, v in zip(c.keys, c.macs)]
            lines.append(CostLine(f"{t(f'cost.{order}', lang)} · {t(f'cost.{phase}', lang)}", order, phase, c.keys,
                                  c.macs))
    return OrderCostChart(t("cost.title", lang), t("cost.sub", lang, rkv=d.kv_lora_rank, dk=d.qk_nope_head_dim),
                          t("cost.x", lang), t("cost.y", lang), tuple(lines), tuple(records))
