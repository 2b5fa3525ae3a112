"""V3.2 · DSA: the lightning indexer picks the positions read (A7–A10), with its prose
(article/prose/<lang>/v3-2-dsa.md) between the figures and its bytes counted from core."""

from __future__ import annotations

from fractions import Fraction

from core import (
    ALL_BF16,
    DEPLOYED,
    VARIANTS,
    fitted,
    fmt_bytes,
    fmt_exact,
    fmt_ratio,
    get,
    ratio_to,
    read_terms,
    role_layouts,
    storage_per_token,
    summarise,
)
from core.mechanisms import IndexerDims, MLADims, run_indexer, run_mla, selected_count
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
    pages = dict(v2page=t("app.page.v2", L), overview=t("app.page.overview", L))
    widths = dict(topk=f"{spec.index_topk:,}", ih=d.index_n_heads, idim=d.index_head_dim, qrank=f"{d.q_lora_rank:,}",
                  irope=IndexerDims.of(d).rope_dim, latent=d.kv_lora_rank, rope=d.qk_rope_head_dim,
                  mla=d.kv_lora_rank + d.qk_rope_head_dim)
    yield Part("dsa-top", lambda r: top(r, widths, pages))
    yield from passage(SLUG, "indexer", L, **widths)
    yield Chart("A8", dict(lang=L), "content")
    yield from passage(SLUG, "indexer-read", L, **widths)
    yield from passage(SLUG, "indexer-rope", L, **widths, **pages)
    yield from passage(SLUG, "score", L, topk=widths["topk"])
    knobs = yield from controls("A9", "tokens", "topk", "seed", lang=L)
    shown = dict(T=knobs["tokens"], k=knobs["topk"], seed=knobs["seed"])
    yield Either(app=(Text(t("dsa.ctl.app", L), "caption"),),
                 site=(Text(t("dsa.ctl.site", L, T=shown["T"], k=shown["k"]), "caption"),))
    yield Chart("A9", knobs, "content")
    yield from passage(SLUG, "score-read", L, k=shown["k"], h=IndexerDims().n_heads,
                       n=selected_count(shown["T"], shown["k"]), rows=example_rows(L, **shown))
    yield from passage(SLUG, "score-try", L)
    yield from passage(SLUG, "sparse", L, **pages)
    yield Chart("A10", knobs, "content")
    yield from passage(SLUG, "sparse-read", L, topk=widths["topk"])
    yield from passage(SLUG, "storage", L, **storage_fields(v))
    yield Part("dsa-reads", read_passage)
    yield from passage(SLUG, "worth", L, **worth_fields())
    yield from passage(SLUG, "next", L, v4page=t("app.page.v4", L))
    yield from passage(SLUG, "sources", L, **sources_fields(L), **widths)


def top(v: Reading, widths: dict, pages: dict) -> Blocks:
    """What the context moves at the top: the title, V3.2's numbers, and A7 introduced and read."""
    L = v.lang
    yield Title(t("dsa.title", L))
    yield Text(t("dsa.intro", L), "caption")
    s = summarise(MODEL, v.context, v.precision)
    yield metrics(s, v, ("storage", "read", "key_share"))
    yield from passage(SLUG, "why", L, **widths, **pages)
    yield from passage(SLUG, "bars", L, storage=t("a1.storage", L), read=t("a1.read", L, n=f"{v.context:,}"), **pages)
    yield Chart("A7", dict(context=v.context, precision=v.precision, lang=L, units=v.units))
    yield from passage(SLUG, "bars-read", L)


def example_rows(lang: str, T: int, k: int, seed: int) -> str:
    """What the rows of A9's mask show at the reader's T, k and seed: which rows keep every position
    they see, which lose some, and how many leave out even their own position (M's diagonal)."""
    if T <= k:
        return t("dsa.rows.all", lang, T=T, k=k)
    idx = run_indexer(run_mla(MLADims(tokens=T), seed), topk=k, seed=seed)  # the run A9 draws
    skip = sum(not idx.selected[i, i] for i in range(T))
    own = t("dsa.rows.self", lang, n=skip) if skip > 1 else t("dsa.rows.self1", lang) if skip else ""
    return f"{t('dsa.rows.cut', lang, k=k)} {own}".strip()


def storage_fields(v: Reading) -> dict:
    """What DSA adds to the cache, by architecture (all BF16, fixed) and in the chosen precision."""
    d = get(MODEL).dims
    deployed = role_layouts(MODEL, DEPLOYED)
    chosen = role_layouts(MODEL, v.precision)
    mla = d.kv_lora_rank + d.qk_rope_head_dim
    return dict(
        mla=mla, latent=d.kv_lora_rank, rope=d.qk_rope_head_dim, idim=d.index_head_dim, dims=mla + d.index_head_dim,
        v2_bf16=per_token_sum("v2", ALL_BF16), v3_bf16=per_token_sum("v3", ALL_BF16),
        v32_bf16=per_token_sum(MODEL, ALL_BF16), **growth(),
        group=deployed["main_kv"].segments[0].group, kgroup=deployed["index_key"].segments[0].group,
        kscales=deployed["index_key"].segments[0].n_scales, fp8_b=deployed["main_kv"].segments[0].dtype.bits // 8,
        main_terms=entry_terms(chosen["main_kv"], v.lang), key_terms=entry_terms(chosen["index_key"], v.lang),
        layers=get(MODEL).n_layers, per_token=per_token_sum(MODEL, v.precision),
        ratio=fmt_ratio(ratio_to(MODEL, "mha", fitted(MODEL, v.precision))))  # as summarise prices it


def read_passage(v: Reading) -> Blocks:
    """One decode step's reads at the reader's context, term by term, against V2's (moves with the context)."""
    terms = {r.role: r for r in read_terms(MODEL, v.context, v.precision)}
    total = sum(r.total for r in terms.values())
    topk = get(MODEL).index_topk
    cut = (t("dsa.cut", v.lang, n=f"{v.context:,}", k=f"{topk:,}", x=num(Fraction(v.context, topk)))
           if v.context > topk else t("dsa.cut.all", v.lang, n=f"{v.context:,}", k=f"{topk:,}"))
    v2 = summarise("v2", v.context, v.precision).read.total  # in the format V2 has nearest the chosen one
    yield from passage(SLUG, "reads", v.lang, n=f"{v.context:,}", topk=f"{topk:,}",
                       versus=versus(v, total, v2), kv_term=read_sum((terms["main_kv"],), v.units),
                       key_term=read_sum((terms["index_key"],), v.units), total=fmt_bytes(total, v.units),
                       share=f"{terms['index_key'].total / total:.0%}", cut=cut)


def versus(v: Reading, total: float, v2: float) -> str:
    """V3.2's reads against V2's at the reader's context: in the precision chosen, and, when the two
    models store their main KV in different formats there (the deployed ones: V2 BF16, V3.2 FP8), all
    in BF16 as well, which leaves the architecture alone."""
    pct = dict(v2=fmt_bytes(v2, v.units), pct=f"{total / v2:.0%}")
    if len({role_layouts(m, fitted(m, v.precision))["main_kv"] for m in ("v2", MODEL)}) == 1:
        return t("dsa.vs.same", v.lang, **pct)
    bf16 = summarise(MODEL, v.context, ALL_BF16).read.total / summarise("v2", v.context, ALL_BF16).read.total
    # whatever the controls
    deployed = all(role_layouts(m, v.precision) == role_layouts(m, DEPLOYED) for m in ("v2", MODEL))
    return t("dsa.vs.deployed" if deployed else "dsa.vs.chosen", v.lang, **pct, bf16=f"{bf16:.0%}")


def growth() -> dict:
    """What the index key adds, all in BF16 (the architecture alone): V3.2's storage per token over V3's
    (V3 with no indexer) and over V2's, and how much less a given memory then holds than with V3."""
    bf16 = {m: storage_per_token(m, ALL_BF16).total for m in ("v2", "v3", MODEL)}
    return dict(growth=f"{bf16[MODEL] / bf16['v3'] - 1:.0%}", growth_v2=f"{bf16[MODEL] / bf16['v2'] - 1:.0%}",
                fits_less=f"{1 - bf16['v3'] / bf16[MODEL]:.0%}")


def worth_fields() -> dict:
    """The trade in numbers that no control moves: all-BF16 growth, and both models deployed."""
    return dict(**growth(), topk=f"{get(MODEL).index_topk:,}",
                v2_fmt=role_layouts("v2", DEPLOYED)["main_kv"].short,
                v2_deployed=fmt_exact(storage_per_token("v2", DEPLOYED).total),
                v32_deployed=fmt_exact(storage_per_token(MODEL, DEPLOYED).total))


def sources_fields(lang: str) -> dict:
    """The cited formats' sums (deployed, as the sources give them), the HF reference code's count, and
    V3.2's config (its spec's source)."""
    deployed = role_layouts(MODEL, DEPLOYED)
    hf = VARIANTS["hf-reference-v3.2"].apply(MODEL).stored[0]
    return dict(SOURCES, main_sum=entry_sum(deployed["main_kv"]), key_sum=entry_sum(deployed["index_key"]),
                hf_sum=per_token_sum(hf.model, hf.precision), beyond=t("app.page.beyond", lang),
                v32_config=get(MODEL).source)
