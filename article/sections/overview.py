"""The Overview: what the KV cache is and the article's one number per token, figure A1 (storage
and reads), the MHA baseline, how KV Atlas counts, the numbers per model, the local/global crossover,
and the sources."""

from __future__ import annotations

from core import A1_MODELS, ALL_BF16, get, storage_per_token
from core.cost import DEPLOYED, Precision, cache_at, crossover_tokens, fitted, formats, ratio_to, read_terms, reads
from core.factors import factors
from core.summary import summarise
from core.units import fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens
from figures import FIGURES
from i18n import model_name, t

from ..blocks import Ask, Chart, Heading, Part, Reading, Table, Text, Title
from ..derive import entry_terms, num, per_token_sum, read_sum
from ..prose import passage
from ..sources import SOURCES
from .common import Blocks, article_title, metrics

SLUG = "overview"


def overview(v: Reading) -> Blocks:
    """What the KV cache is, the four factors, figure A1 and how to read it, the MHA baseline, how
    storage and reads are counted, the numbers per model, the local/global crossover, sources."""
    L = v.lang
    a1 = FIGURES["A1"]
    yield Title(article_title(L))
    yield from passage(SLUG, "lead", L, **_path())
    yield from passage(SLUG, "factors", L, rows=_factor_rows(v.precision, L), **_cuts())
    yield from passage(SLUG, "a1-intro", L)
    models, highlight = yield Ask((a1.knob("models"), a1.knob("highlight")), widths=(3, 1))
    models = tuple(dict.fromkeys(m for m in (*a1.knob("models").choices, *models) if m in models))  # catalogue order
    highlight = highlight if highlight in models else None

    def numbers(v: Reading) -> Blocks:
        """What the context moves: the highlighted model's numbers, A1 and its reading, the MHA
        baseline at this context, the counting rules' examples, the table and its CSV."""
        if models:
            rows = [summarise(m, v.context, v.precision) for m in models]
            s = next(r for r in rows if r.model.id == (highlight or models[-1]))
            yield metrics(s, v, ("storage", "cache", "read"))
            yield Chart("A1", dict(context=v.context, precision=v.precision, models=models, highlight=highlight,
                                   lang=L, units=v.units))
        else:
            yield Text(t("ov.empty", L), "info")
        yield from passage(SLUG, "a1-read", L, **_a1_reading(v))
        yield from passage(SLUG, "baseline", L, **_baseline(v))
        yield from passage(SLUG, "counting", L, **_counting(v))
        if models:
            yield Heading(t("ov.table", L))
            yield from passage(SLUG, "table", L, n=fmt_tokens(v.context))
            yield _table(rows, v)

    yield Part("overview-numbers", numbers)
    local = tuple(m for m in models if get(m).n_windowed)  # the models with local KV
    if local:
        yield from passage(SLUG, "crossover", L, w=get(local[0]).window)
        # context=None: no "current N" line. The chart sits outside the part a context step
        # reruns, so a line there would go stale.
        yield Chart("crossover", dict(models=local, precision=v.precision, context=None, lang=L, units=v.units))
        meets = [t("ov.meet", L, m=model_name(m, get(m).name, L), n=f"{crossover_tokens(m, fitted(m, v.precision)):,}")
                 for m in local]
        yield from passage(SLUG, "crossover-read", L, meets=", ".join(meets), w=get(local[0]).window)
    # the sections that follow, by their names in the navigation
    yield from passage(SLUG, "next", L, **{k: t(f"app.page.{k}", L) for k in ("v2", "v32", "v4", "v41", "b", "beyond")})
    yield from passage(SLUG, "sources", L, **SOURCES)


def _table(rows, v: Reading) -> Table:
    L = v.lang
    columns = {
        t("col.model", L): [model_name(r.model.id, r.model.name, L) for r in rows],
        t("col.storage", L): [r.storage.total for r in rows],
        t("col.local", L): [r.local_kv for r in rows],
        t("col.cache", L): [r.cache.total for r in rows],
        t("col.read_kv", L): [r.read.kv for r in rows],
        t("col.read_key", L): [r.read.index_key for r in rows],
        t("col.read", L): [r.read.total for r in rows],
        t("col.ratio", L): [fmt_ratio(r.ratio) for r in rows],
        # a model without local KV has no crossover
        t("col.crossover", L): [f"{r.crossover_tokens:,}" if r.crossover_tokens else "—" for r in rows],
    }
    return Table(columns, numbers=tuple(columns)[1:7], name=t("ov.table", L),
                 download=(t("ov.csv", L), f"kv-atlas-{v.context}-{v.precision.preset}.csv"))


# --- Fields the passages quote, from core -------------------------------------------------------

def _path() -> dict:
    """The article's path in its deployed formats: the first and last model, and the ratio."""
    first, last = A1_MODELS[0], A1_MODELS[-1]
    return dict(first=fmt_exact(storage_per_token(first).total), last=fmt_exact(storage_per_token(last).total),
                ratio=fmt_ratio(ratio_to(last)))


def _approx(x: float, digits: int) -> str:
    """A factor as the table shows it: whole numbers exact, others '≈' to `digits` decimals."""
    if float(x).is_integer():
        return f"{int(x):,}"
    shown = f"{x:,.{digits}f}"
    return "≈" + (shown.rstrip("0").rstrip(".") if digits else shown)


def _factor_rows(precision: Precision, lang: str) -> str:
    """The four factors per model (core.factors) as Markdown table rows, at the reader's precision."""
    rows = []
    for m in A1_MODELS:
        p = fitted(m, precision)  # a format the model lacks leaves its deployed one, as A1 prices it
        f = factors(m, p)
        cells = (model_name(m, get(m).name, lang), _approx(f.width, 0), f"{f.layers:,}",
                 _approx(f.bytes_per_element, 2), _approx(f.ratio, 1), fmt_exact(storage_per_token(m, p).total))
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _cuts() -> dict:
    """The spec numbers behind 'which generation cut which factor'."""
    mha, v2, v32, v4, v41 = (get(m) for m in A1_MODELS)
    return dict(mha_w=f"{mha.dims.num_attention_heads * 2 * mha.dims.head_dim:,}",
                latent=v2.dims.kv_lora_rank, rope=v2.dims.qk_rope_head_dim,
                v2_w=v2.dims.kv_lora_rank + v2.dims.qk_rope_head_dim, key_w=v32.dims.index_head_dim,
                topk=f"{v32.index_topk:,}", csa=v4.ratio("CSA"), hca=v4.ratio("HCA"),
                v4_layers=v4.n_global, v41_layers=v41.n_global, v41_all=v41.n_layers)


def _a1_reading(v: Reading) -> dict:
    """What A1 shows at the reader's context: the two ends of the right panel, V3.2's key share,
    V2 against V3.2 in the deployed formats and all in BF16, the local KV's window."""
    first, last = A1_MODELS[0], A1_MODELS[-1]
    stored = {f"{m.replace('.', '')}_{name}": fmt_exact(storage_per_token(m, p).total)
              for m in ("v2", "v3.2") for name, p in (("dep", DEPLOYED), ("bf16", ALL_BF16))}
    return dict(n=fmt_tokens(v.context), first_read=fmt_bytes(summarise(first, v.context, v.precision).read.total,
                                                                v.units),
                last_read=fmt_bytes(summarise(last, v.context, v.precision).read.total, v.units),
                share=f"{summarise('v3.2', v.context, v.precision).key_share:.0%}", w=get("v4-flash").window,
                **stored)


def _baseline(v: Reading) -> dict:
    """The hypothetical MHA: its widths, one layer's entry in the reader's format, the per-token sum
    (layers × heads × (key + value) × bytes where each value is the same size), its cache and read at N."""
    m = get(A1_MODELS[0])
    d, p = m.dims, fitted(m, v.precision)
    layout = formats(m, p)["main_kv"]
    seg = layout.segments[0]
    per_value = num(seg.value_bytes / seg.dims)
    total = storage_per_token(m, p).total
    product = (f"{m.n_layers:,} × {d.num_attention_heads:,} × ({d.head_dim:,} + {d.head_dim:,}) × {per_value} B"
               f" = {fmt_exact(total)}") if layout.uniform else per_token_sum(m, p)
    return dict(layers=m.n_layers, heads=d.num_attention_heads, dk=d.head_dim, dv=d.head_dim,
                values=f"{d.num_attention_heads * 2 * d.head_dim:,}", dtype=seg.dtype.short,
                per_value=per_value, entry=entry_terms(layout, v.lang), product=product,
                total=fmt_bytes(total, v.units), n=fmt_tokens(v.context), n_exact=f"{v.context:,}",
                cache=fmt_bytes(cache_at(m, v.context, p).total, v.units),
                read=fmt_bytes(reads(m, v.context, p).total, v.units))


def _counting(v: Reading) -> dict:
    """The counting rules' examples at the reader's context: the last model's cache split into
    global KV (≈ growth × N) and local KV; V3.2's reads written out."""
    s = summarise(A1_MODELS[-1], v.context, v.precision)
    last, cache = s.model, s.cache
    v32 = get("v3.2")
    return dict(m=model_name(last.id, last.name, v.lang), n=fmt_tokens(v.context), w=last.window,
                n_exact=f"{v.context:,}", growth=fmt_exact(s.storage.total),
                glob=fmt_bytes(cache.main_kv + cache.index_key, v.units), local=fmt_bytes(cache.local_kv, v.units),
                cache=fmt_bytes(cache.total, v.units), hca=get("v4-flash").ratio("HCA"),
                topk=f"{v32.index_topk:,}",
                v32_reads=read_sum(read_terms(v32, v.context, fitted(v32, v.precision)), v.units))
