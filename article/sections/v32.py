"""V3.2 · DSA: the lightning indexer picks the positions read (A7–A10), with its prose
(article/prose/<lang>/v3-2-dsa.md) between the figures and its bytes counted from core."""

from __future__ import annotations

from fractions import Fraction

from core import ALL_BF16, DEPLOYED, get, ratio_to, storage_per_token
from core.cost import fitted, formats, read_terms
from core.mechanisms.indexer import IndexerDims, selected_count
from core.summary import summarise
from core.units import fmt_bytes, fmt_exact, fmt_ratio
from core.variants import VARIANTS
from i18n import t

from ..blocks import Chart, Either, Part, Reading, Text, Title
from ..derive import entry_sum, entry_terms, num, per_token_sum, read_sum
from ..prose import passage
from ..sources import SOURCES
from .common import Blocks, controls, metrics

SLUG = "v3-2-dsa"
MODEL = "v3.2"


def v32_dsa(v: Reading) -> Blocks:
    """The bars with V3.2 highlighted (A7), what the lightning indexer makes (A8), the score that
    picks positions (A9), MLA that keeps probability only on them (A10), and what it all costs."""
    L = v.lang
    spec = get(MODEL)
    d = spec.dims
    widths = dict(topk=f"{spec.index_topk:,}", ih=d.index_n_heads, idim=d.index_head_dim, qrank=f"{d.q_lora_rank:,}",
                  irope=IndexerDims.of(d).rope_dim)
    yield Part("dsa-top", lambda r: top(r, widths))
    yield from passage(SLUG, "indexer", L, **widths)
    yield Chart("A8", dict(lang=L), "content")
    yield from passage(SLUG, "indexer-read", L, idim=d.index_head_dim)
    yield from passage(SLUG, "score", L, topk=widths["topk"])
    knobs = yield from controls("A9", "tokens", "topk", "seed", lang=L)
    shown = dict(T=knobs["tokens"], k=knobs["topk"], seed=knobs["seed"])
    yield Either(app=(Text(t("dsa.ctl.app", L), "caption"),), site=(Text(t("dsa.ctl.site", L, **shown), "caption"),))
    yield Chart("A9", knobs, "content")
    yield from passage(SLUG, "score-read", L, T=shown["T"], k=shown["k"], h=IndexerDims().n_heads,
                       n=selected_count(shown["T"], shown["k"]))
    yield from passage(SLUG, "sparse", L, v2page=t("app.page.v2", L))
    yield Chart("A10", knobs, "content")
    yield from passage(SLUG, "sparse-read", L, topk=widths["topk"])
    yield from passage(SLUG, "storage", L, **storage_fields(v))
    yield Part("dsa-reads", read_passage)
    main, key = (formats(MODEL, v.precision)[role].nbytes for role in ("main_kv", "index_key"))
    yield from passage(SLUG, "next", L, idim=d.index_head_dim, ih=d.index_n_heads, key_bytes=f"{key:,} B",
                       main_bytes=f"{main:,} B")
    yield from passage(SLUG, "sources", L, **sources_fields(L))


def top(v: Reading, widths: dict) -> Blocks:
    """What the context moves at the top: the title, V3.2's numbers, and A7 introduced and read."""
    L = v.lang
    yield Title(t("dsa.title", L))
    yield Text(t("dsa.intro", L), "caption")
    s = summarise(MODEL, v.context, v.precision)
    yield metrics(s, v, ("storage", "read", "key_share"))
    yield from passage(SLUG, "why", L, topk=widths["topk"])
    yield from passage(SLUG, "bars", L, n=f"{v.context:,}")
    yield Chart("A7", dict(context=v.context, precision=v.precision, lang=L, units=v.units))
    v2 = summarise("v2", v.context, v.precision)
    yield from passage(SLUG, "bars-read", L, n=f"{v.context:,}",
                       storage=fmt_exact(s.storage.total), v2_storage=fmt_exact(v2.storage.total),
                       read=fmt_bytes(s.read.total, v.units), v2_read=fmt_bytes(v2.read.total, v.units),
                       pct=f"{s.read.total / v2.read.total:.0%}", share=f"{s.key_share:.0%}")


def storage_fields(v: Reading) -> dict:
    """What DSA adds to the cache, by architecture (all BF16, fixed) and in the chosen precision."""
    d = get(MODEL).dims
    bf16 = {m: storage_per_token(m, ALL_BF16).total for m in ("v3", MODEL)}
    deployed = formats(MODEL, DEPLOYED)
    chosen = formats(MODEL, v.precision)
    mla = d.kv_lora_rank + d.qk_rope_head_dim
    return dict(
        mla=mla, latent=d.kv_lora_rank, rope=d.qk_rope_head_dim, idim=d.index_head_dim, dims=mla + d.index_head_dim,
        v3_bf16=per_token_sum("v3", ALL_BF16), v32_bf16=per_token_sum(MODEL, ALL_BF16),
        growth=f"{bf16[MODEL] / bf16['v3'] - 1:.0%}",
        group=deployed["main_kv"].segments[0].group, kgroup=deployed["index_key"].segments[0].group,
        kscales=deployed["index_key"].segments[0].n_scales, fp8_b=deployed["main_kv"].segments[0].dtype.bits // 8,
        main_terms=entry_terms(chosen["main_kv"], v.lang), key_terms=entry_terms(chosen["index_key"], v.lang),
        layers=get(MODEL).n_layers, per_token=per_token_sum(MODEL, v.precision),
        ratio=fmt_ratio(ratio_to(MODEL, "mha", fitted(MODEL, v.precision))))  # as summarise prices it


def read_passage(v: Reading) -> Blocks:
    """One decode step's reads at the reader's context, term by term (moves with the context)."""
    terms = {r.role: r for r in read_terms(MODEL, v.context, v.precision)}
    total = sum(r.total for r in terms.values())
    topk = get(MODEL).index_topk
    cut = (t("dsa.cut", v.lang, n=f"{v.context:,}", k=f"{topk:,}", x=num(Fraction(v.context, topk)))
           if v.context > topk else t("dsa.cut.all", v.lang, n=f"{v.context:,}", k=f"{topk:,}"))
    yield from passage(SLUG, "reads", v.lang, n=f"{v.context:,}", kv_term=read_sum((terms["main_kv"],), v.units),
                       key_term=read_sum((terms["index_key"],), v.units), total=fmt_bytes(total, v.units),
                       share=f"{terms['index_key'].total / total:.0%}", cut=cut)


def sources_fields(lang: str) -> dict:
    """The cited formats' sums (deployed, as the sources give them) and the HF reference code's count."""
    deployed = formats(MODEL, DEPLOYED)
    hf = VARIANTS["hf-reference-v3.2"].apply(MODEL).stored[0]
    return dict(SOURCES, main_sum=entry_sum(deployed["main_kv"]), key_sum=entry_sum(deployed["index_key"]),
                hf_sum=per_token_sum(hf.model, hf.precision), beyond=t("app.page.beyond", lang))
