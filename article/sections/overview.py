"""The Overview: what the KV cache is and why its size and its reads cost, the hypothetical MHA worked
out (the baseline every section measures against), the one number the article follows, figure A1
(storage and reads) and how to read it, what sets the per-token number layer kind by layer kind, how
KV Atlas counts, the numbers per model, the local/global crossover, what follows, and the sources."""

from __future__ import annotations

from fractions import Fraction

from core import (
    A1_MODELS,
    ALL_BF16,
    DEPLOYED,
    Group,
    Model,
    Precision,
    cache_at,
    crossover_tokens,
    fitted,
    fmt_bytes,
    fmt_exact,
    fmt_ratio,
    fmt_tokens,
    get,
    ratio_to,
    read_terms,
    reads,
    role_layouts,
    storage_groups,
    storage_per_token,
    summarise,
)
from figures import FIGURES
from i18n import model_name, t

from ..blocks import Ask, Chart, Heading, Part, Reading, Table, Text, Title
from ..derive import entry_terms, num, per_token_sum, read_sum
from ..prose import passage
from ..sources import SOURCES
from .common import Blocks, article_title, metrics

SLUG = "overview"
PAGES = ("v2", "v32", "v4", "v41", "b", "beyond", "glossary")  # the sections the list at the end names


def overview(v: Reading) -> Blocks:
    """What the KV cache is and why it costs, the MHA baseline, the one number, figure A1 and how to
    read it, what sets the per-token number per layer kind, how storage and reads are counted, the
    numbers per model, the local/global crossover, what follows, sources."""
    L = v.lang
    a1 = FIGURES["A1"]
    yield Title(article_title(L))
    yield from passage(SLUG, "lead", L)

    def baseline(v: Reading) -> Blocks:
        """The hypothetical MHA worked out, its cache and reads at the reader's context."""
        yield from passage(SLUG, "baseline", L, **_baseline(v))

    yield Part("overview-baseline", baseline)
    yield from passage(SLUG, "number", L, **_path())
    yield from passage(SLUG, "a1-intro", L, ratio_example=fmt_ratio(summarise("v2", v.context, v.precision).ratio))
    yield from passage(SLUG, "a1-pick", L)  # app only: the models and the highlighted one
    models, highlight = yield Ask((a1.knob("models"), a1.knob("highlight")), widths=(3, 1))
    models = tuple(dict.fromkeys(m for m in (*a1.knob("models").choices, *models) if m in models))  # catalogue order
    highlight = highlight if highlight in models else None

    def numbers(v: Reading) -> Blocks:
        """What the context moves: the highlighted model's numbers, A1 and its reading, what sets the
        per-token number, the counting rules' examples, the table and its CSV."""
        if models:
            rows = [summarise(m, v.context, v.precision) for m in models]
            s = next(r for r in rows if r.model.id == (highlight or get(models[-1]).id))  # the last: an id or a Model
            yield metrics(s, v, ("storage", "cache", "read"))
            yield Chart("A1", dict(context=v.context, precision=v.precision, models=models, highlight=highlight,
                                   lang=L, units=v.units))
        else:
            yield Text(t("ov.empty", L), "info")
        yield from passage(SLUG, "a1-read", L, **_a1_reading(v))
        yield from passage(SLUG, "factors", L, rows=_kind_rows(v.precision, L), **_levers(v.precision))
        yield from passage(SLUG, "counting", L, **_counting(v))
        if models:
            yield Heading(t("ov.table", L))
            yield from passage(SLUG, "table", L, n=fmt_tokens(v.context))
            yield from passage(SLUG, "table-units", L)  # app only: the units setting
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
    yield from passage(SLUG, "next", L, **{k: t(f"app.page.{k}", L) for k in PAGES})
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


# --- What sets the per-token number: one row per kind of storing layer -----------------------------

def storing_kinds(model: Model | str, precision: Precision = DEPLOYED) -> tuple[tuple[str, Group], ...]:
    """The model's storing layers by kind: core.cost.storage_groups (layers alike in ratio and entry),
    each with its layer kind, and its stack where two groups share a kind (V4.1's encoder and decoder
    Full layers, m = 2 and 1)."""
    m = get(model)
    found = []
    for g in storage_groups(m, precision):
        keyed = len(g.entry) > 1  # an index key beside the main KV
        alike = {(ly.kind, ly.mode, ly.stack) for ly in m.layers
                 if ly.stores_global and ly.ratio == g.ratio and ly.stores_index_key == keyed}
        if len(alike) != 1:
            raise ValueError(f"{m.id}: storing layers of ratio {g.ratio} are of kinds {alike}")
        found.append((*alike.pop(), g))
    named = []
    for kind, mode, stack, g in found:
        label = f"{kind} {mode.capitalize()}" if kind == "CSA2" else kind  # V4.1 stores in its Full layers only
        if stack and sum(k == kind for k, *_ in found) > 1:
            label += f" ({stack})"
        named.append((label, g))
    return tuple(named)


def _share(part: Fraction, whole: Fraction) -> str:
    """A part of the per-token bytes as a percentage: whole percent, one decimal under 10 %."""
    x = float(part / whole)
    return f"{x:.0%}" if x >= 0.1 else f"{x:.1%}"


def _kind_rows(precision: Precision, lang: str) -> str:
    """Per model and kind of storing layer: kind, layers, entry width (main KV + index key), entry bytes
    (the same two), the compression ratio m and the bytes per token (and their share where a model
    has more than one kind), as Markdown table rows at the reader's precision (fitted per model, as
    A1 prices it)."""
    rows = []
    for m in A1_MODELS:
        kinds = storing_kinds(m, fitted(m, precision))
        whole = sum(g.per_token for _, g in kinds)
        for label, g in kinds:
            dims = " + ".join(f"{c.dims:,}" for c in get(m).components if c.role in dict(g.entry))
            entry = " + ".join(f"{b:,}" for _, b in g.entry)
            per = f"{num(g.per_token)} B" + (f" ({_share(g.per_token, whole)})" if len(kinds) > 1 else "")
            cells = (model_name(m, get(m).name, lang), label, f"{g.layers:,}", dims, entry, f"{g.ratio:,}", per)
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _levers(precision: Precision) -> dict:
    """The spec numbers behind 'which generation moved which lever', and HCA's small share."""
    mha, v2, v32, v4, v41 = (get(m) for m in A1_MODELS)
    v4_kinds = {label: g for label, g in storing_kinds(v4, fitted(v4, precision))}
    whole = sum(g.per_token for g in v4_kinds.values())
    return dict(mha_w=f"{mha.dims.num_attention_heads * 2 * mha.dims.head_dim:,}",
                latent=v2.dims.kv_lora_rank, rope=v2.dims.qk_rope_head_dim,
                v2_w=v2.dims.kv_lora_rank + v2.dims.qk_rope_head_dim, key_w=v32.dims.index_head_dim,
                topk=f"{v32.index_topk:,}", csa=v4.ratio("CSA"), hca=v4.ratio("HCA"),
                hca_layers=v4.layer_counts["HCA"], hca_share=_share(v4_kinds["HCA"].per_token, whole),
                v4_all=v4.n_layers, v4_layers=v4.n_global, v41_layers=v41.n_global, v41_all=v41.n_layers,
                v41_enc=v41.ratio("CSA2", "encoder"), v41_dec=v41.ratio("CSA2", "decoder"))


# --- Fields the other passages quote, from core -------------------------------------------------

def _path() -> dict:
    """The article's path in its deployed formats: the first and last model, the ratio, the last one's window."""
    first, last = A1_MODELS[0], A1_MODELS[-1]
    return dict(first=fmt_exact(storage_per_token(first).total), last=fmt_exact(storage_per_token(last).total),
                ratio=fmt_ratio(ratio_to(last)), w=get(last).window)


def _a1_reading(v: Reading) -> dict:
    """What A1 shows at the reader's context: V2 against V3.2 in the deployed formats and all in BF16,
    the local KV's window, the two ends of the right panel, V3.2's top-k and its index keys' share."""
    first, last = A1_MODELS[0], A1_MODELS[-1]
    stored = {f"{m.replace('.', '')}_{name}": fmt_exact(storage_per_token(m, p).total)
              for m in ("v2", "v3.2") for name, p in (("dep", DEPLOYED), ("bf16", ALL_BF16))}
    return dict(n=fmt_tokens(v.context), first_read=fmt_bytes(summarise(first, v.context, v.precision).read.total,
                                                                v.units),
                last_read=fmt_bytes(summarise(last, v.context, v.precision).read.total, v.units),
                topk=f"{get('v3.2').index_topk:,}",
                share=f"{summarise('v3.2', v.context, v.precision).key_share:.0%}", w=get("v4-flash").window,
                **stored)


def _entry(layout, lang: str) -> str:
    """One MHA entry's bytes: the bare size where every value is alike, else its terms summed."""
    return f"{layout.nbytes:,} B" if layout.uniform else entry_terms(layout, lang)


def _baseline(v: Reading) -> dict:
    """The hypothetical MHA: its widths, one layer's entry in the reader's format, the per-token sum
    (layers × heads × (key + value) × bytes where each value is the same size), its cache and read at N."""
    m = get(A1_MODELS[0])
    d, p = m.dims, fitted(m, v.precision)
    layout = role_layouts(m, p)["main_kv"]
    seg = layout.segments[0]
    per_value = num(seg.value_bytes / seg.dims)
    total = storage_per_token(m, p).total
    product = (f"{m.n_layers:,} × {d.num_attention_heads:,} × ({d.head_dim:,} + {d.head_dim:,}) × {per_value} B"
               f" = {fmt_exact(total)}") if layout.uniform else per_token_sum(m, p)
    return dict(layers=m.n_layers, heads=d.num_attention_heads, dk=d.head_dim, dv=d.head_dim,
                values=f"{d.num_attention_heads * 2 * d.head_dim:,}", dtype=seg.dtype.short,
                per_value=per_value, entry=_entry(layout, v.lang), product=product,
                total=fmt_bytes(total, v.units), n=fmt_tokens(v.context), n_exact=f"{v.context:,}",
                cache=fmt_bytes(cache_at(m, v.context, p).total, v.units),
                read=fmt_bytes(reads(m, v.context, p).total, v.units))


def _counting(v: Reading) -> dict:
    """The counting rules' examples at the reader's context: the last model's cache split into
    global KV (≈ storage per token × N) and local KV; V3.2's reads written out."""
    s = summarise(A1_MODELS[-1], v.context, v.precision)
    last, cache = s.model, s.cache
    v32 = get("v3.2")
    return dict(m=model_name(last.id, last.name, v.lang), n=fmt_tokens(v.context), w=last.window,
                n_exact=f"{v.context:,}", growth=fmt_exact(s.storage.total),
                glob=fmt_bytes(cache.main_kv + cache.index_key, v.units), local=fmt_bytes(cache.local_kv, v.units),
                cache=fmt_bytes(cache.total, v.units), hca=get("v4-flash").ratio("HCA"),
                v32_reads=read_sum(read_terms(v32, v.context, fitted(v32, v.precision)), v.units))
