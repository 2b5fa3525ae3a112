"""V4-Flash · CSA/HCA: compression along the token axis (A11–A19), its prose in
article/prose/<lang>/v4-flash.md, every number in it from core."""

from __future__ import annotations

from core import (
    ALL_BF16,
    BF16,
    DEPLOYED,
    V4_PAGE_ALIGN,
    VARIANTS,
    Summary,
    fmt_bytes,
    fmt_exact,
    fmt_ratio,
    get,
    read_terms,
    role_layouts,
    storage_per_token,
    summarise,
)
from core.mechanisms import SinkDims, visible_rows
from figures import FIGURES
from i18n import t

from ..blocks import Ask, Chart, Either, Part, Reading, Text
from ..derive import entry_terms, per_token_sum, read_sum
from ..prose import passage
from ..sources import SOURCES
from .common import Blocks, generation_top

SLUG = "v4-flash"
MODEL = "v4-flash"
BEFORE = "v3.2"  # the generation V4 improves on: its per-token storage and index-key scan


def v4_flash(v: Reading) -> Blocks:
    """What V4 set out to fix and the bars (A11); HCA (A12–A15) and CSA (A16–A19) as computed by
    small seeded runs; what it costs, term by term; where it leaves the problem; sources."""
    L = v.lang
    m = get(MODEL)
    d = m.dims
    csa, hca = m.ratio("CSA"), m.ratio("HCA")
    counts = m.layer_counts

    def top_notes(_: Summary, v: Reading) -> Blocks:
        before = summarise(BEFORE, v.context, v.precision)
        yield from passage(SLUG, "why", L, before=before.model.name, before_topk=f"{before.model.index_topk:,}",
                           before_storage=fmt_exact(before.storage.total), n=f"{v.context:,}",
                           before_key=fmt_bytes(before.read.index_key, v.units))
        yield from passage(SLUG, "bars", L, n=f"{v.context:,}")  # what the bars split into is counted in _reads

    s = yield from generation_top(m.id, "v4", ("storage", "ratio", "local", "read"), "A11", notes=top_notes,
                                  csa=csa, hca=hca)
    yield from passage(SLUG, "entries", L, before=get(BEFORE).name, csa=csa, hca=hca, n_layers=m.n_layers,
                       swa=counts.get("SWA", 0), n_csa=counts["CSA"], n_hca=counts["HCA"], window=f"{m.window:,}",
                       n_windowed=m.n_windowed, c=d.head_dim, n_h=d.num_attention_heads)

    # HCA: the branches (A12), one entry (A13), what t reads (A14), the attention (A15)
    yield from passage(SLUG, "hca", L, hca=hca)
    yield Chart("A12", dict(lang=L), "content")
    yield from passage(SLUG, "hca-pool", L, rope=d.qk_rope_head_dim, hca=hca)
    yield Either(app=(Text(t("v4.how.a13", L), "caption"),))
    ratio, seed = yield Ask((FIGURES["A13"].knob("ratio"), FIGURES["A13"].knob("seed")))
    yield Chart("A13", dict(ratio=ratio, seed=seed, lang=L), "content")
    yield from passage(SLUG, "hca-ready", L)
    yield Either(app=(Text(t("v4.how.a14", L), "caption"),))
    step, window = yield Ask((FIGURES["A14"].knob("t_"), FIGURES["A14"].knob("window")))
    yield Chart("A14", dict(t_=step, ratio=ratio, window=window, lang=L), "content")
    now, then = (_rows(at, ratio, window) for at in (step, step + 1))
    yield from passage(SLUG, "hca-ready-read", L, m=ratio, w=window, t0=step, t1=step + 1, c0=now[0], w0=now[1],
                       c1=then[0], w1=then[1])
    yield from passage(SLUG, "hca-attn", L)
    yield Either(app=(Text(t("v4.how.a15", L), "caption"),))
    sink, = yield Ask((FIGURES["A15"].knob("sink"),))
    yield Chart("A15", dict(sink=sink, seed=seed, lang=L), "content")
    small = SinkDims()
    yield from passage(SLUG, "hca-attn-read", L, rope=d.qk_rope_head_dim, n_h=d.num_attention_heads,
                       groups=d.o_groups, r_o=f"{d.o_lora_rank:,}", D=f"{d.hidden_size:,}", c=d.head_dim,
                       h_small=small.n_heads, g_small=small.n_groups)

    # CSA: the branches (A16), overlapping compression (A17), the indexer (A18), what is read (A19)
    yield from passage(SLUG, "csa", L, csa=csa, times=hca // csa)
    yield Chart("A16", dict(lang=L), "content")
    yield from passage(SLUG, "csa-overlap", L, csa=csa)
    yield Either(app=(Text(t("v4.how.a17", L), "caption"),))
    yield Chart("A17", dict(ratio=ratio, seed=seed, lang=L), "content")
    yield from passage(SLUG, "csa-indexer", L, before=get(BEFORE).name, d_i=d.index_head_dim, n_i=d.index_n_heads,
                       topk=f"{m.index_topk:,}")
    yield Either(app=(Text(t("v4.how.a18", L), "caption"),))
    query, topk = yield Ask((FIGURES["A18"].knob("t_"), FIGURES["A18"].knob("topk")))
    yield Chart("A18", dict(t_=query, ratio=ratio, topk=topk, seed=seed, lang=L), "content")
    yield from passage(SLUG, "csa-read", L)
    yield Chart("A19", dict(t_=query, ratio=ratio, topk=topk, window=window, lang=L), "content")
    yield from passage(SLUG, "all-or-some", L, csa=csa, hca=hca, times=hca // csa, topk=f"{m.index_topk:,}",
                       full=f"{m.index_topk * csa:,}")

    # the cost: structure alone, the formats, local KV, the reads at the reader's context
    yield from _cost(v, s)
    yield Part("v4-reads", _reads)
    yield from passage(SLUG, "limits", L, storage=fmt_exact(s.storage.total), n_global=m.n_global, n_csa=counts["CSA"],
                       next=get("v4.1-flash").name, next_global=get("v4.1-flash").n_global)
    yield from _sources(L)


def _rows(t_: int, ratio: int, window: int) -> tuple[int, int]:
    """(compressed, window) rows token t reads in HCA (A14's boxes)."""
    rows = visible_rows(t_, ratio, window)
    compressed = sum(r.kind == "compressed" for r in rows)
    return compressed, len(rows) - compressed


def _cost(v: Reading, s: Summary) -> Blocks:
    """Storage per token: the structure alone in BF16, the entry formats at the page's precision and
    the deployed one's parts, the per-token sum, other engines' numbers, the local KV."""
    L, m = v.lang, get(MODEL)
    d = m.dims
    mla = get(BEFORE).dims
    bf16 = storage_per_token(MODEL, ALL_BF16).total
    before_bf16 = storage_per_token("v2", ALL_BF16).total
    yield from passage(SLUG, "cost", L, csa=m.ratio("CSA"), hca=m.ratio("HCA"), c=d.head_dim, d_i=d.index_head_dim,
                       arch_sum=per_token_sum(MODEL, ALL_BF16), bf16_b=BF16.bits // 8, v2=get("v2").name,
                       v2_bf16=fmt_exact(before_bf16),
                       x_v2=f"{before_bf16 / bf16:.0f}", mla=mla.kv_lora_rank + mla.qk_rope_head_dim)
    deployed = role_layouts(MODEL, DEPLOYED)
    main, key = deployed["main_kv"], deployed["index_key"]
    values, rope = main.segments  # the FP8 part and the BF16 RoPE part
    shown = role_layouts(MODEL, v.precision)
    yield from passage(
        SLUG, "formats", L, rope=rope.dims, nope=values.dims, group=values.group, scale_b=values.scale.bits // 8,
        pad=main.pad, scale_row=int(values.scale_bytes) + main.pad, k_group=key.segments[0].group,
        k_bits=key.segments[0].dtype.bits, main_terms=entry_terms(shown["main_kv"], L),
        key_terms=entry_terms(shown["index_key"], L), local_terms=entry_terms(shown["local_kv"], L),
        per_token=per_token_sum(MODEL, v.precision), ratio=fmt_ratio(s.ratio),
        deployed=fmt_exact(storage_per_token(MODEL, DEPLOYED).total),
        fp8_key=fmt_exact(VARIANTS["sglang-fp8-index-key"].apply(MODEL).storage_per_token().total),
        paged=fmt_exact(VARIANTS["v4-page-padding"].apply(MODEL).storage_per_token().total),
        align=f"{V4_PAGE_ALIGN:,}")
    local = shown["local_kv"].nbytes
    yield from passage(SLUG, "local", L, n_windowed=m.n_windowed, window=f"{m.window:,}", local_entry=f"{local:,}",
                       local=fmt_bytes(s.local_kv, v.units), cross=f"{s.crossover_tokens:,}")


def _reads(v: Reading) -> Blocks:
    """What one decode step reads at the reader's context, term by term (layers × entries × bytes):
    the part of the page the context moves besides its top."""
    L, m = v.lang, get(MODEL)
    s = summarise(MODEL, v.context, v.precision)
    kinds = {ly.ratio: ly.kind for ly in m.layers if ly.ratio > 1}  # CSA's and HCA's entries per token
    lines = []
    for r in read_terms(MODEL, v.context, v.precision):
        what = t(f"v4.read.{r.role}", L, n=m.n_windowed) + (f" ({kinds[r.ratio]})" if r.role != "local_kv" else "")
        lines.append(f"- {what}: {read_sum([r], v.units)}")
    before = summarise(BEFORE, v.context, v.precision)
    yield from passage(SLUG, "reads", L, n=f"{v.context:,}", terms="\n".join(lines),
                       total=fmt_bytes(s.read.total, v.units), kv=fmt_bytes(s.read.kv, v.units),
                       key=fmt_bytes(s.read.index_key, v.units), share=f"{s.key_share:.0%}",
                       before=before.model.name, before_key=fmt_bytes(before.read.index_key, v.units),
                       before_layers=before.model.n_layers, before_entry=f"{before.formats['index_key'].nbytes:,}",
                       n_csa=m.layer_counts["CSA"],
                       csa=m.ratio("CSA"), key_entry=f"{s.formats['index_key'].nbytes:,}",
                       n_hca=m.layer_counts["HCA"], hca=m.ratio("HCA"))


def _sources(lang: str) -> Blocks:
    deployed = role_layouts(MODEL, DEPLOYED)
    yield from passage(SLUG, "sources", lang, main_bytes=f"{deployed['main_kv'].nbytes:,}",
                       key_bytes=f"{deployed['index_key'].nbytes:,}", align=f"{V4_PAGE_ALIGN:,}",
                       config=get(MODEL).source, **SOURCES)
