"""The article's sections, each described once (article/blocks.py): the app's pages and the static
site's pages are both drawn from these. Every number in a text comes from core here."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass

from core import A1_MODELS, ALL_BF16, get, storage_per_token
from core.mechanisms.indexer import selected_count
from core.mechanisms.mla import MLADims, content_score_orders, output_orders, run_mla
from core.mechanisms.token_axis import read_plan, summarize
from core.open_models import OPEN_IMPORTS
from core.summary import Summary, summarise
from core.units import fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens
from core.variants import SGLANG_PAGE_TOKENS, VARIANTS
from figures import EXTRAS, FIGURES, SPECS
from figures.kv_bars import generation_models
from figures.reconcile import variant_name
from i18n import model_name, t

from .blocks import Ask, Chart, Heading, Metrics, Part, Reading, Table, Text, Title, Tool

Blocks = Generator  # a section's blocks (article/blocks.py)


def article_title(lang: str) -> str:
    """Article A's title, its two sizes from core (the Overview's heading, a deck's first slide)."""
    first, last = (storage_per_token(m).total for m in (A1_MODELS[0], A1_MODELS[-1]))
    return t("ov.title", lang, first=fmt_bytes(first, sig=2), last=fmt_exact(last))


def metrics(s: Summary, v: Reading, items: tuple[str, ...]) -> Metrics:
    """A model's headline numbers (storage, cache, ratio, local, read, key_share) at the view's context."""
    L = v.lang
    name = model_name(s.model.id, s.model.name, L)
    shown = {
        "storage": (t("ov.m.storage", L, m=name), fmt_exact(s.storage.total)),
        "cache": (t("ov.m.cache", L, m=name, n=fmt_tokens(v.context)), fmt_bytes(s.cache.total, v.units)),
        "ratio": (t("v2.m.ratio", L), fmt_ratio(s.ratio)),
        "local": (t("v4.m.local", L), fmt_bytes(s.local_kv, v.units)),
        "read": (f"{t('ov.m.read', L, m=name)} ({fmt_tokens(v.context)})", fmt_bytes(s.read.total, v.units)),
        "key_share": (t("dsa.m.share", L), f"{s.key_share:.0%}"),
    }
    return Metrics(tuple(shown[item] for item in items))


def generation_top(model_id: str, key: str, items: tuple[str, ...], figure_id: str,
                   notes: Callable[[Summary, Reading], Blocks] | None = None, **intro_fields) -> Blocks:
    """The top of a generation page, the part the context moves: title, intro (its spec numbers in
    `intro_fields`), the model's headline numbers, the page's own lines about them, where its local
    KV is overtaken, and its A1-family chart. Returns the summary (what the context does not move)."""

    def top(v: Reading) -> Blocks:
        yield Title(t(f"{key}.title", v.lang))
        yield Text(t(f"{key}.intro", v.lang, **intro_fields), "caption")
        s = summarise(model_id, v.context, v.precision)
        yield metrics(s, v, items)
        if notes:
            yield from notes(s, v)
        if s.crossover_tokens:
            yield Text(t("v4.crossover", v.lang, n=f"{s.crossover_tokens:,}", local=fmt_bytes(s.local_kv, v.units)),
                       "info")
        yield Chart(figure_id, dict(context=v.context, precision=v.precision, lang=v.lang, units=v.units))
        return s

    return (yield Part(f"{key}-top", top))


def controls(figure_id: str, *names: str, lang: str) -> Blocks:
    """A figure's named knobs side by side; their values (and the language) as its keyword arguments."""
    spec = SPECS[figure_id]
    values = yield Ask(tuple(spec.knob(n) for n in names))
    return dict(zip(names, values)) | {"lang": lang}


# --- the sections, in the article's order ----------------------------------------------------------


def overview(v: Reading) -> Blocks:
    """Figure A1 (storage and reads), the numbers per model, the local/global crossover."""
    L = v.lang
    a1 = FIGURES["A1"]
    yield Title(article_title(L))
    yield Text(t("ov.intro", L), "caption")
    models, highlight = yield Ask((a1.knob("models"), a1.knob("highlight")), widths=(3, 1))
    if not models:
        yield Text(t("ov.empty", L), "info")
        return
    models = tuple(dict.fromkeys(m for m in (*a1.knob("models").choices, *models) if m in models))  # catalogue order
    highlight = highlight if highlight in models else None

    def numbers(v: Reading) -> Blocks:
        """What the context moves: the highlighted model's numbers, A1, the table and its CSV."""
        rows = [summarise(m, v.context, v.precision) for m in models]
        s = next(r for r in rows if r.model.id == (highlight or models[-1]))
        yield metrics(s, v, ("storage", "cache", "read"))
        yield Chart("A1", dict(context=v.context, precision=v.precision, models=models, highlight=highlight, lang=L,
                               units=v.units))
        yield Heading(t("ov.table", L))
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
        yield Table(columns, numbers=tuple(columns)[1:7], name=t("ov.table", L),
                    download=(t("ov.csv", L), f"kv-atlas-{v.context}-{v.precision.preset}.csv"))

    yield Part("overview-numbers", numbers)
    local = tuple(m for m in models if get(m).n_windowed)  # the models with local KV
    if local:
        # context=None: no "current N" line. The chart sits outside the part a context step
        # reruns, so a line there would go stale.
        yield Chart("crossover", dict(models=local, precision=v.precision, context=None, lang=L, units=v.units))
        yield Text(t("ov.crossover.note", L, w=get(local[0]).window), "caption")


def v2_mla(v: Reading) -> Blocks:
    """The bars with V2 highlighted (A2), the three paths (A3), the two scores (A4), the computation
    orders that avoid expanding keys and values (A5, A6), and their cost."""
    L = v.lang
    yield from generation_top("v2", "v2", ("storage", "ratio", "read"), "A2")
    yield Heading(t("v2.paths", L))
    yield Chart("A3", dict(lang=L), "content")
    yield Chart("A4", dict(lang=L), "content")
    yield Heading(t("v2.absorb", L))
    yield Text(t("v2.absorb.intro", L), "caption")
    knobs = yield from controls("A5", "seed", "tokens", "kv_lora_rank", "qk_nope_head_dim", "calc", lang=L)
    run = run_mla(MLADims(tokens=knobs["tokens"], kv_lora_rank=knobs["kv_lora_rank"],
                          qk_nope_head_dim=knobs["qk_nope_head_dim"]), knobs["seed"])
    calc = knobs["calc"]
    yield Metrics(((t("v2.m.score_diff", L, p=calc.upper()), f"{content_score_orders(run, 0, calc).max_abs_diff:.1e}"),
                   (t("v2.m.out_diff", L, p=calc.upper()), f"{output_orders(run, 0, calc).max_abs_diff:.1e}")))
    yield Chart("A5", knobs, "content")
    yield Chart("A6", knobs, "content")
    yield Heading(t("v2.cost", L))
    yield Text(t("v2.cost.intro", L), "caption")
    yield Chart("mla-cost", dict(lang=L))


def v32_dsa(v: Reading) -> Blocks:
    """The bars with V3.2 highlighted (A7), what the lightning indexer makes (A8), the score that
    picks tokens (A9), and MLA that keeps probability only on them (A10)."""
    L = v.lang

    def note(*_) -> Blocks:
        bf16 = {m: storage_per_token(m, ALL_BF16).total for m in ("v3.2", "v3")}
        yield Text(t("dsa.note", L, g=f"{bf16['v3.2'] / bf16['v3'] - 1:.0%}", a=fmt_exact(bf16["v3.2"]),
                     b=fmt_exact(bf16["v3"])), "info")

    yield from generation_top("v3.2", "dsa", ("storage", "read", "key_share"), "A7", notes=note)
    yield Heading(t("dsa.indexer", L))
    yield Chart("A8", dict(lang=L), "content")
    yield Heading(t("dsa.pick", L))
    knobs = yield from controls("A9", "tokens", "topk", "seed", lang=L)
    yield Text(t("dsa.rows", L, k=knobs["topk"], T=knobs["tokens"], n=selected_count(knobs["tokens"], knobs["topk"])),
               "caption")
    yield Chart("A9", knobs, "content")
    yield Chart("A10", knobs, "content")


def v4_flash(v: Reading) -> Blocks:
    """The bars with V4-Flash highlighted (A11), the layer mix from the spec, HCA (A12–A15) and
    CSA (A16–A19) as computed by small seeded runs."""
    L = v.lang
    model = get("v4-flash")

    def reads(s: Summary, v: Reading) -> Blocks:
        yield Text(t("v4.mix", L, n=model.n_layers, mix=" + ".join(f"{n} {k}" for k, n in model.layer_counts.items()),
                     kv=fmt_bytes(s.read.kv, v.units), key=fmt_bytes(s.read.index_key, v.units)))

    yield from generation_top(model.id, "v4", ("storage", "ratio", "local", "read"), "A11", notes=reads,
                              csa=model.ratio("CSA"), hca=model.ratio("HCA"))
    yield Heading(t("v4.hca", L, m=model.ratio("HCA")))
    yield Chart("A12", dict(lang=L), "content")
    ratio, seed = yield Ask((FIGURES["A13"].knob("ratio"), FIGURES["A13"].knob("seed")))
    yield Chart("A13", dict(ratio=ratio, seed=seed, lang=L), "content")
    yield Heading(t("v4.visible", L), 3)
    step, window = yield Ask((FIGURES["A14"].knob("t_"), FIGURES["A14"].knob("window")))
    yield Chart("A14", dict(t_=step, ratio=ratio, window=window, lang=L), "content")
    yield Heading(t("v4.sink", L), 3)
    sink, = yield Ask((FIGURES["A15"].knob("sink"),))
    yield Chart("A15", dict(sink=sink, seed=seed, lang=L), "content")
    yield Heading(t("v4.csa", L))
    yield Chart("A16", dict(lang=L), "content")
    yield Chart("A17", dict(ratio=ratio, seed=seed, lang=L), "content")
    query, topk = yield Ask((FIGURES["A18"].knob("t_"), FIGURES["A18"].knob("topk")))
    yield Chart("A18", dict(t_=query, ratio=ratio, topk=topk, seed=seed, lang=L), "content")
    yield Chart("A19", dict(t_=query, ratio=ratio, topk=topk, window=window, lang=L), "content")


def v41_flash(v: Reading) -> Blocks:
    """The bars with V4.1-Flash highlighted (A20), CSA2 (A21, A22), layer sharing (A23, A24), the
    hierarchical indexer (A25), CED (A26, A27), and what was reduced."""
    L = v.lang
    model = get("v4.1-flash")

    def reads(s: Summary, v: Reading) -> Blocks:
        yield Text(t("v41.reads", L, kv=fmt_bytes(s.read.kv, v.units), main=fmt_bytes(s.read.main_kv, v.units),
                     local=fmt_bytes(s.read.local_kv, v.units), key=fmt_bytes(s.read.index_key, v.units),
                     n=model.n_global))

    s = yield from generation_top(model.id, "v41", ("storage", "ratio", "local", "read"), "A20", notes=reads)
    yield Heading(t("v41.csa2", L))
    yield Chart("A21", (yield from controls("A21", "ratio", "seed", lang=L)), "content")
    yield Chart("A22", dict(lang=L), "content")
    yield Heading(t("v41.sharing", L))
    yield Chart("A23", dict(lang=L), "content")
    yield Chart("A24", dict(lang=L))
    yield Heading(t("v41.hier", L))
    yield Chart("A25", (yield from controls("A25", "tokens", "pool_blocks", "topk", "seed", lang=L)), "content")
    yield Heading(t("v41.ced", L))
    yield Chart("A26", dict(lang=L), "content")
    yield Chart("A27", (yield from controls("A27", "prompt", "window", lang=L)), "content")
    yield Chart("ced-ratio", dict(lang=L))
    yield Heading(t("v41.remains", L))
    yield Chart("factors", dict(lang=L))
    # the article rounds the storage ratio to two significant digits: "1/4,400"
    yield Text(t("v41.remains.cap", L, w=model.window, r=f"{round(s.ratio, -2):,.0f}"), "caption")


def token_axis(v: Reading) -> Blocks:
    """Article B: token-axis compression, B1–B4 in article order."""
    L = v.lang
    yield Title(t("tb.title", L))
    yield Text(t("tb.intro", L), "caption")
    yield Heading(t("tb.b1", L))
    yield Chart("B1", (yield from controls("B1", "rows", "components", "group", lang=L)), "content")
    yield Heading(t("tb.b2", L))
    yield Text(t("tb.b2.help", L), "caption")
    matrices = yield from controls("B2", "H", "W_u", "W_s", lang=L)
    if None not in matrices.values():  # a matrix that does not parse says so by its control
        try:
            summarize(matrices["H"], matrices["W_u"], matrices["W_s"])
        except ValueError as e:  # shapes that do not fit together, e.g. W_u with the wrong number of rows
            yield Text(t("tb.error", L, e=e), "error")
        else:
            yield Chart("B2", matrices, "content")
    yield Heading(t("tb.b3", L))
    b3 = yield from controls("B3", "position", "group", "window", lang=L)
    yield Chart("B3", b3, "content")
    yield Heading(t("tb.b4", L))
    b4 = FIGURES["B4"]
    position, groups, topk = yield Ask((b4.knob("position"), b4.knob("groups"), b4.knob("topk")))
    plans = [(g, read_plan(position, g, b3["window"], topk=k)) for g, k in ((groups[0], topk), (groups[1], None))]
    yield Metrics(tuple((t("tb.m.stored", L, g=g), f"{plan.stored} / {plan.read}") for g, plan in plans))
    yield Chart("B4", dict(position=position, groups=groups, topk=topk, window=b3["window"], lang=L), "content")


def any_model(v: Reading, import_panel: Callable[[], dict] | None = None,
              variant_toggles: Callable[[], tuple] | None = None) -> Blocks:
    """Beyond the article: any model's KV cache (open presets and a config.json of your own), how many
    requests fit on a GPU node, the decode read floor, and why other sources' numbers differ."""
    L = v.lang
    capacity = EXTRAS["capacity"]
    yield Title(t("by.title", L))
    yield Text(t("by.intro", L), "caption")
    found = yield Tool(import_panel, {})  # the app's config import: this session's imported configs
    models, = yield Ask((capacity.knob("models"),))
    if not models:
        yield Text(t("ov.empty", L), "info")
        return

    def design(model_id: str) -> str:
        known = found.get(model_id) or OPEN_IMPORTS.get(model_id)
        return known.design if known else " + ".join(get(model_id).layer_counts)

    yield Heading(t("by.table", L, n=fmt_tokens(v.context)))
    rows = [summarise(m, v.context, v.precision) for m in models]
    columns = {
        t("col.model", L): [model_name(r.model.id, r.model.name, L) for r in rows],
        t("col.design", L): [design(r.model.id) for r in rows],
        t("col.params", L): [f"{r.model.parameters / 1e9:,.1f} B" if r.model.parameters else "—" for r in rows],
        t("col.storage", L): [r.storage.total for r in rows],
        t("col.local", L): [r.local_kv for r in rows],
        t("col.cache", L): [r.cache.total for r in rows],
        t("col.read", L): [r.read.total for r in rows],
    }
    yield Table(columns, numbers=tuple(columns)[3:], name=t("by.table", L, n=fmt_tokens(v.context)))
    yield Chart("A1", dict(context=v.context, precision=v.precision, models=models, highlight=None, lang=L,
                           units=v.units))

    yield Heading(t("by.planner", L))
    gpu, tp = yield Ask((capacity.knob("gpu"), capacity.knob("tp")))
    custom = {"memory_gb": capacity.knob("memory_gb").default, "bandwidth_tb": capacity.knob("bandwidth_tb").default}
    if gpu == "custom":
        custom = dict(zip(custom, (yield Ask(tuple(capacity.knob(name) for name in custom)))))
    node = dict(gpu=gpu, tp=tp, **custom)
    names = ("bytes_per_parameter", "reserved", "block")
    plan = dict(zip(names, (yield Ask(tuple(capacity.knob(n) for n in names)))))
    yield Chart("capacity", dict(models=models, context=v.context, precision=v.precision, lang=L, units=v.units,
                                 **node, **plan))

    yield Heading(t("by.floor", L))
    batch, = yield Ask((EXTRAS["read-floor"].knob("batch"),))
    yield Chart("read-floor", dict(models=models, precision=v.precision, batch=batch, lang=L, **node))

    yield Heading(t("by.rec", L))
    yield Text(t("by.rec.intro", L), "caption")
    # the site, without the toggles: what each way of counting is and where it comes from
    on = yield Tool(variant_toggles, (), site=tuple(
        Text(f"{variant_name(vid, L)} — {t(f'var.{vid}.desc', L, page=SGLANG_PAGE_TOKENS)} "
             f"({t('rec.source', L)}: {variant.source})") for vid, variant in VARIANTS.items()))
    if on:
        yield Chart("reconciliation", dict(variants=tuple(on), context=v.context, lang=L, units=v.units))
    else:
        yield Text(t("by.rec.none", L), "info")


@dataclass(frozen=True)
class Section:
    slug: str  # its URL path in the app, its file name on the site
    title: str  # i18n key of its name in the navigation
    draw: Callable[..., Generator]
    # the models it prices at its defaults: the precision moves the section only through the formats
    # these store (core.cost.formats), which is how the static site counts its precision states
    prices: tuple[str, ...] = ()


SECTIONS = {s.slug: s for s in (
    Section("overview", "app.page.overview", overview, FIGURES["A1"].knob("models").default),
    Section("v2-mla", "app.page.v2", v2_mla, generation_models("v2")),
    Section("v3-2-dsa", "app.page.v32", v32_dsa, generation_models("v3.2")),
    Section("v4-flash", "app.page.v4", v4_flash, generation_models("v4-flash")),
    Section("v4-1-flash", "app.page.v41", v41_flash, generation_models("v4.1-flash")),
    Section("token-axis", "app.page.b", token_axis),
    Section("any-model", "app.page.beyond", any_model, EXTRAS["capacity"].knob("models").default),
)}
