"""V3.2 DSA figures A8–A10: what the lightning indexer makes, the score that picks tokens,
and MLA that keeps probability only on the chosen tokens.

A8 is structural (the article's sizes); A9/A10 run a small seeded MLA layer and indexer
(core.mechanisms.mla, core.mechanisms.indexer) and show every matrix's values.
"""

from __future__ import annotations

from core import get
from core.mechanisms import IndexerDims, MLADims, run_indexer, run_mla, sparse_mla
from i18n import t

from ..matrix import Box, Diagram, Op
from .mla import sym

MAX_HEADS_SHOWN = 2


def build_a8(*, lang: str = "ko") -> Diagram:
    """The lightning indexer's per-head queries q^I (from C^Q), its one cached key k^I and its
    head weights w^I (from X), at V3.2's sizes."""
    spec = get("v3.2")
    d, i = spec.dims, IndexerDims.of(spec.dims)
    key = spec.component("index_key")
    fmt = key.layout(key.deployed)
    lanes = (
        (Box(sym("C", "Q"), ("T", d.q_lora_rank)), Op("×"), Box(sym("W", "IQ", "j"), (d.q_lora_rank, i.head_dim),
                                                               "weight"),
         Op("→", t("a8.rope", lang, r=i.rope_dim, d=i.head_dim)), Box(sym("q", "I", "j"), ("T", i.head_dim))),
        (Box("X", ("T", d.hidden_size)), Op("×"), Box(sym("W", "IK"), (d.hidden_size, i.head_dim), "weight"),
         Op("→", "LayerNorm · " + t("a8.rope", lang, r=i.rope_dim, d=i.head_dim)),
         Box(sym("k", "I"), ("T", i.head_dim), "index", cached=True,
             note=t("a8.fp8", lang, f=fmt.short, b=fmt.nbytes))),
        (Box("X", ("T", d.hidden_size)), Op("×"), Box(sym("W", "Iw"), (d.hidden_size, i.n_heads), "weight"), Op("="),
         Box(sym("w", "I"), ("T", i.n_heads))),
    )
    return Diagram(
        t("a8.title", lang), lanes,
        lane_labels=(t("a8.q", lang, h=i.n_heads), t("a8.k", lang), t("a8.w", lang)),
        captions=(t("a8.cap", lang), t("mx.width", lang)),
        lang=lang, subtitle=t("a8.sub", lang))


def _runs(tokens: int, topk: int, seed: int):
    mla = run_mla(MLADims(tokens=tokens), seed)
    return mla, run_indexer(mla, topk=topk, seed=seed)


def build_a9(*, tokens: int = 6, topk: int = 3, seed: int = 0, lang: str = "ko") -> Diagram:
    """Per-head scores w·ReLU(q·k), their sum I, and the top-k mask M, all [T × T]."""
    _, idx = _runs(tokens, topk, seed)
    T, H = tokens, idx.dims.n_heads
    heads: list = []
    for j in range(min(H, MAX_HEADS_SHOWN)):
        heads += [Box(t("a9.head", lang, j=j + 1), (T, T), "index", values=idx.head_scores[j]), Op("+")]
    if H > MAX_HEADS_SHOWN:
        heads += [Op("…", t("a9.more", lang, n=H - MAX_HEADS_SHOWN)), Op("+")]
    total = Box("I", (T, T), "score", values=idx.I)
    lanes = (
        (*heads[:-1], Op("="), total),
        (total, Op("→", t("a9.topk", lang, k=topk)), Box("M", (T, T), "score", values=idx.M, fmt="{:.0f}")),
    )
    return Diagram(
        t("a9.title", lang), lanes, lane_labels=(t("a9.sum", lang, h=H), t("a9.select", lang)),
        captions=(t("a9.formula", lang), t("a9.cap", lang, k=topk)),
        subtitle=t("a9.sub", lang, seed=seed), lang=lang)


def build_a10(*, tokens: int = 6, topk: int = 3, seed: int = 0, head: int = 0, lang: str = "ko") -> Diagram:
    """Absorbed MLA score S_h + the indexer's mask M → softmax → P_h → U_h = P_h C^KV."""
    mla, idx = _runs(tokens, topk, seed)
    sp = sparse_mla(mla, idx, head)
    T, rkv = tokens, mla.dims.kv_lora_rank
    P = Box(sym("P", sub="h"), (T, T), "score", values=sp.P)
    lanes = (
        (Box(sym("S", sub="h"), (T, T), "score", values=sp.S), Op("+"), Box("M", (T, T), "index", values=sp.M,
                                                                          fmt="{:.0f}"),
         Op("→", "softmax"), P),
        (P, Op("×"), Box(sym("C", "KV"), (T, rkv), "kv", values=mla.C_KV, cached=True), Op("="),
         Box(sym("U", sub="h"), (T, rkv), values=sp.U)),
    )
    return Diagram(
        t("a10.title", lang), lanes, lane_labels=(t("a10.score", lang), t("a10.out", lang)),
        captions=(t("a10.cap", lang),), lang=lang,
        subtitle=t("a10.sub", lang, h=head, k=topk, seed=seed))
