"""V2 · MLA: a narrower stored vector (A2–A6, RoPE and the cost of each computation order), its prose
in article/prose/<lang>/v2-mla.md."""

from __future__ import annotations

import math
from fractions import Fraction

from core import (
    ALL_BF16,
    ARTICLE_CONTEXT,
    Layout,
    Precision,
    Summary,
    cache_at,
    fitted,
    fmt_bytes,
    fmt_exact,
    fmt_ratio,
    get,
    ratio_to,
    read_terms,
    role_layouts,
    storage_per_token,
)
from core.mechanisms import MLADims, content_score_orders, order_costs, output_orders, run_mla, run_rope, turns
from i18n import t

from ..blocks import Chart, Metrics, Part, Reading
from ..derive import entry_sum, entry_terms, factor, num, per_token_sum
from ..prose import passage
from ..sources import SOURCES
from .common import Blocks, controls, generation_top

SLUG = "v2-mla"


def v2_mla(v: Reading) -> Blocks:
    """Why MHA's cache is the problem and what MLA stores (the bars, A2), the three paths (A3), the two
    scores (A4), absorption with a live check (A5, A6), RoPE and why a turned key cannot be absorbed
    (the figure rope, on A5's seed and T), decoupled RoPE, the cost of each order, the bytes per
    token, what a decode step still reads, and the sources. What the app's knobs let a reader try is
    in passages only the app shows."""
    L, w = v.lang, widths()
    yield from generation_top("v2", "v2", ("storage", "ratio", "read"), "A2", notes=problem)
    yield from passage(SLUG, "layer", L, **w)
    yield Chart("A3", dict(lang=L), "content")
    lanes = {f"lane_{k}": t(f"a3.{key}", L) for k, key in (("q", "query"), ("kv", "kv"), ("pos", "pos"))}
    yield from passage(SLUG, "layer.read", L, **w, **lanes)  # A3's rows by their labels: a phone wraps them
    yield from passage(SLUG, "scores", L)
    yield Chart("A4", dict(lang=L), "content")
    yield from passage(SLUG, "scores.read", L, **w)
    yield from passage(SLUG, "absorb", L, **w)
    yield from passage(SLUG, "absorb.knobs", L)
    knobs = yield from controls("A5", "seed", "tokens", "kv_lora_rank", "qk_nope_head_dim", "calc", lang=L)
    run = run_mla(MLADims(tokens=knobs["tokens"], kv_lora_rank=knobs["kv_lora_rank"],
                          qk_nope_head_dim=knobs["qk_nope_head_dim"]), knobs["seed"])
    calc = knobs["calc"]
    yield Metrics(((t("v2.m.score_diff", L, p=calc.upper()), f"{content_score_orders(run, 0, calc).max_abs_diff:.1e}"),
                   (t("v2.m.out_diff", L, p=calc.upper()), f"{output_orders(run, 0, calc).max_abs_diff:.1e}")))
    yield Chart("A5", knobs, "content")
    d = get("v2").dims  # the merged Ŵ^Q_h against W^UQ_h and W^UK_h kept apart; the dot products' lengthening
    merged = factor(d.q_lora_rank * d.kv_lora_rank / ((d.q_lora_rank + d.kv_lora_rank) * d.qk_nope_head_dim), 2)
    yield from passage(SLUG, "absorb.read", L, **w, merged_x=merged)
    yield from passage(SLUG, "absorb.rounding", L)
    yield from passage(SLUG, "values", L)
    yield Chart("A6", knobs, "content")
    yield from passage(SLUG, "values.read", L)
    yield from rope_part(knobs["seed"], knobs["tokens"], L)
    yield from passage(SLUG, "cost", L, **w, x=factor(d.kv_lora_rank / d.qk_nope_head_dim, 2),
                       expand_macs=f"{d.kv_lora_rank * d.qk_nope_head_dim:,}")
    yield Chart("mla-cost", dict(lang=L))
    yield from passage(SLUG, "cost.read", L, **cost_at(ARTICLE_CONTEXT))
    counted = {**w, **bytes_fields(v)}
    for name in ("bytes", "bytes.try", "bytes.v3"):  # what FP8 would store; the app's knob for it; V3
        yield from passage(SLUG, name, L, **counted)
    yield Part("v2-reads", what_a_step_reads)
    yield from passage(SLUG, "sources", L, **w, v3_layers=get("v3").n_layers, v3_config=get("v3").source, **SOURCES)


def rope_part(seed: int, tokens: int, L: str) -> Blocks:
    """RoPE taught where MLA first needs it: the rotation, the figure (on A5's seed and T: its MLA head
    is A5's layer at its default widths), what it shows, and decoupled RoPE."""
    d, run = get("v2").dims, run_rope(tokens, seed)
    yield from passage(SLUG, "rope", L, dr=f"{d.qk_rope_head_dim:,}", pairs=f"{d.qk_rope_head_dim // 2:,}",
                       v32page=t("app.page.v32", L), v4page=t("app.page.v4", L))
    yield Chart("rope", dict(seed=seed, tokens=tokens, lang=L), "content")
    yield from passage(SLUG, "rope.read", L, deg=f"{math.degrees(turns(run.width)[0]):.0f}",
                       off=f"{run.absorbed_error:.2f}")
    yield from passage(SLUG, "rope.try", L)
    yield from passage(SLUG, "decoupled", L, **widths())


def widths() -> dict:
    """V2's MLA widths and counts, as the prose names them (the spec's dims)."""
    d, model = get("v2").dims, get("v2")
    counts = dict(rkv=d.kv_lora_rank, dr=d.qk_rope_head_dim, dk=d.qk_nope_head_dim, rq=d.q_lora_rank,
                  heads=d.num_attention_heads, hidden=d.hidden_size, width=d.kv_lora_rank + d.qk_rope_head_dim,
                  qk=d.qk_nope_head_dim + d.qk_rope_head_dim, layers=model.n_layers)
    return {name: f"{n:,}" for name, n in counts.items()}


def problem(s: Summary, v: Reading) -> Blocks:
    """The top's own lines (they move with the context): what the hypothetical MHA stores and reads
    (recalled: the Overview derives it), what MLA stores instead, and how to read the bars."""
    L, w = v.lang, widths()
    mha = get("mha")
    heads, dh = mha.dims.num_attention_heads, mha.dims.head_dim
    same = fitted("v2", v.precision)  # MHA in the format V2 is priced in, as the rest of the page
    layout = role_layouts("mha", same)["main_kv"]
    yield from passage(SLUG, "problem", L, heads=heads, dh=dh, mha_width=f"{layout.dims:,}", mha_layers=mha.n_layers,
                       fmt=layout.short,
                       mha_total=fmt_exact(storage_per_token("mha", same).total), n=f"{v.context:,}",
                       mha_cache=fmt_bytes(cache_at("mha", v.context, same).total, v.units))
    yield from passage(SLUG, "idea", L, **w, mha_width=f"{layout.dims:,}", ratio=fmt_ratio(s.ratio))
    # the bars' panels by their titles: side by side on a wide screen, stacked on a phone
    yield from passage(SLUG, "bars", L, storage=t("a1.storage", L), read=t("a1.read", L, n=f"{v.context:,}"))


def bytes_fields(v: Reading) -> dict:
    """V2's entry and per-token sum in the view's precision, the MHA it is compared with, FlashMLA's FP8
    entry (main KV stored in FP8: its sum, and the format K^R keeps), and V3 (V2's MLA in one more
    layer) at BF16: an architecture statement the precision control does not move."""
    layout, fp8 = (role_layouts("v2", p)["main_kv"] for p in (v.precision, Precision(main_kv="fp8")))
    w, same = widths(), fitted("v2", v.precision)  # MHA in the format V2 is priced in
    rope = next(s for s in fp8.segments if s.part == "rope")
    return dict(fmt=layout.short, entry=_entry(layout, f"({w['rkv']} + {w['dr']})", v.lang),
                rope_fmt=rope.dtype.short, fp8_entry=entry_sum(fp8),
                deployed=role_layouts("v2")["main_kv"].short, per_token=per_token_sum("v2", v.precision),
                mha_total=fmt_exact(storage_per_token("mha", same).total), ratio=fmt_ratio(ratio_to("v2", "mha", same)),
                v3_layers=get("v3").n_layers, v3_sum=per_token_sum("v3", ALL_BF16))


def what_a_step_reads(v: Reading) -> Blocks:
    """What moves with the context: a decode step's reads at N, term by term (the hypothetical MHA's are
    its whole cache, stated at the top), and where that leaves V2: the N of the product, which V3.2 cuts."""
    (term,) = read_terms("v2", v.context, v.precision)
    same = fitted("v2", v.precision)  # MHA in the format V2 is priced in
    n = f"{term.entries:,}"
    yield from passage(SLUG, "reads", v.lang, layers=term.layers, n=n,
                       entry_b=f"{term.entry_bytes:,}", read=fmt_bytes(term.total, v.units),
                       ratio=fmt_ratio(ratio_to("v2", "mha", same)))
    yield from passage(SLUG, "next", v.lang, n=n, per_token=fmt_exact(storage_per_token("v2", same).total),
                       topk=f"{get('v3.2').index_topk:,}", v32page=t("app.page.v32", v.lang))


def cost_at(keys: int) -> dict:
    """One head's content-score multiply-adds at `keys` cached positions: how many times expanding
    costs absorbing at decode, and absorbing costs expanding at prefill (figure mla-cost)."""
    decode, prefill = order_costs(1, keys), order_costs(keys, keys)
    return dict(t=f"{keys:,}", decode_x=f"{decode['score', 'expand'].macs / decode['score', 'absorb'].macs:.0f}",
                prefill_x=f"{prefill['score', 'absorb'].macs / prefill['score', 'expand'].macs:.2g}")


def _entry(layout: Layout, count: str, lang: str) -> str:
    """An entry's bytes: '(512 + 64) × 2 B = 1,152 B' when every value has one format and no scale
    (`count` says how many values), else term by term (article/derive.py)."""
    if layout.uniform:
        return f"{count} × {num(Fraction(layout.nbytes, layout.dims))} B = {layout.nbytes:,} B"
    return entry_terms(layout, lang)


