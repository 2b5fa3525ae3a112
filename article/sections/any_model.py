"""Beyond the article: any model, GPU capacity, the read floor, other sources' numbers."""

from __future__ import annotations

import re
from collections.abc import Callable

from core import (
    DEPLOYED,
    ENGINES,
    GENERAL_RULES,
    OPEN_IMPORTS,
    RUNTIME_BYTES,
    SGLANG,
    SGLANG_PAGE,
    SGLANG_PAGE_TOKENS,
    SGLANG_STATE_RATIO,
    VARIANTS,
    VLLM,
    VLLM_BLOCK,
    VLLM_GRAPHS_BYTES,
    VLLM_MARGIN_FLOOR,
    VLLM_MARGIN_FRACTION,
    EngineError,
    Parallel,
    allocation,
    budgets_side_by_side,
    exact,
    fitted,
    fmt_bytes,
    fmt_exact,
    fmt_tokens,
    get,
    get_gpu,
    kv_heads,
    layer_groups,
    read_floor_seconds,
    reads,
    role_layouts,
    sglang_fraction,
    state_bytes,
    storage_per_token,
    summarise,
    vllm_batch,
)
from figures import EXTRAS, gpu_of, variant_name
from i18n import model_name, t

from ..blocks import AppField, Ask, Chart, Either, Heading, Reading, Table, Text, Title, Tool
from ..prose import passage
from .common import Blocks

SLUG = "any-model"
HF_EXAMPLE = "deepseek-ai/DeepSeek-V3.2"  # a model id, as a field's example


def any_model(v: Reading, import_panel: Callable[[], dict] | None = None,
              variant_toggles: Callable[[], tuple] | None = None) -> Blocks:
    """Beyond the article: any model's KV cache (open presets and a config.json of your own), how many
    requests fit on a GPU node, the decode read floor, and why other sources' numbers differ. What the
    page answers first, each table and chart with how to read it, what is read from a config last."""
    L = v.lang
    capacity = EXTRAS["capacity"]
    ctx = fmt_tokens(v.context)
    yield Title(t("by.title", L))
    yield from passage(SLUG, "lead", L, n=len(OPEN_IMPORTS), bf16=_gqa_example(L)["value"])
    yield from passage(SLUG, "presets", L, n=len(OPEN_IMPORTS), ctx=ctx, ctx_tokens=f"{v.context:,}",
                       **_gqa_example(L))
    yield _presets(v)
    yield from passage(SLUG, "presets-notes", L, **_preset_notes(v))
    # the app's config import (this session's imported configs); the site says where to do it
    yield from passage(SLUG, "import", L)
    found = yield Tool(import_panel, {}, site=(Text(t("by.import.site", L), "caption"),
                                               AppField("hf", t("by.hf", L), HF_EXAMPLE, t("by.hf.open", L))))

    yield Heading(t("by.table", L, n=ctx))
    yield from passage(SLUG, "pick", L)
    models, = yield Ask((capacity.knob("models"),))
    if not models:  # nothing to compare: the reference of what a config gives still holds
        yield Text(t("ov.empty", L), "info")
        yield from passage(SLUG, "reference", L)
        return

    def design(model_id: str) -> str:
        known = found.get(model_id) or OPEN_IMPORTS.get(model_id)
        return design_name(known.design, L) if known else " + ".join(get(model_id).layer_counts)

    rows = [summarise(m, v.context, v.precision) for m in models]
    size = _sizes(v)
    columns = {
        t("col.model", L): [model_name(r.model.id, r.model.name, L) for r in rows],
        t("col.design", L): [design(r.model.id) for r in rows],
        t("by.col.params", L): [round(r.model.parameters / 1e9, 1) if r.model.parameters else None for r in rows],
        t("by.col.storage", L): [r.storage.total for r in rows],
        t("by.col.local", L): [size(r.local_kv) for r in rows],
        t("by.col.state", L): [size(state_bytes(r.model)) for r in rows],
        t("by.col.cache", L, n=ctx): [size(r.cache.total) for r in rows],
        t("by.col.read", L): [size(r.read.total) for r in rows],
    }
    yield from passage(SLUG, "table", L, ctx=ctx)
    yield Table(columns, numbers=tuple(columns)[2:4], name=t("by.table", L, n=ctx))
    yield from passage(SLUG, "chart", L)
    yield Chart("A1", dict(context=v.context, precision=v.precision, models=models, highlight=None, lang=L,
                           units=v.units))
    yield from passage(SLUG, "layers", L)
    yield Table(_layer_table(rows, v), numbers=tuple(t(k, L) for k in _LAYER_NUMBERS), name=t("by.layers", L))

    yield from passage(SLUG, "engines", L, vllm=VLLM, sglang=SGLANG)
    yield Table(_engine_table(rows, v), numbers=tuple(t(k, L) for k in _ENGINE_NUMBERS),
                name=t("by.engines", L, n=ctx))
    yield from passage(SLUG, "rules", L)
    yield Table(_rules_table(rows, v), name=t("by.rules", L), wrap=True)

    yield from passage(SLUG, "planner", L, **_planner_fields(capacity, L))
    yield from passage(SLUG, "planner-try", L)
    gpu, tp = yield Ask((capacity.knob("gpu"), capacity.knob("tp")))
    custom = {"memory_gb": capacity.knob("memory_gb").default, "bandwidth_tb": capacity.knob("bandwidth_tb").default}
    if gpu == "custom":
        custom = dict(zip(custom, (yield Ask(tuple(capacity.knob(name) for name in custom)))))
    node = dict(gpu=gpu, tp=tp, **custom)
    names = ("bytes_per_parameter", "reserved", "block", "parallel", "engine", "spec", "ask")
    plan = dict(zip(names, (yield Ask(tuple(capacity.knob(n) for n in names)))))
    if plan["ask"] == "context":  # the question the other way round: how many requests, then how long
        plan["requests"], = yield Ask((capacity.knob("requests"),))
    yield Chart("capacity", dict(models=models, context=v.context, precision=v.precision, lang=L, units=v.units,
                                 **node, **plan))
    yield from passage(SLUG, "planner-read", L, tp=tp, **_replicated_heads(L))

    # one GPU of that node as a capacity review splits it: the same GPU, layout and weights, one model
    yield from passage(SLUG, "budget", L, **_budget_fields(L, v.units))
    yield from passage(SLUG, "budget-try", L)
    model, = yield Ask((EXTRAS["budget"].knob("model"),))
    yield Chart("budget", dict(model=model, gpu=gpu, memory_gb=custom["memory_gb"], tp=tp,
                               parallel=_budget_spread(plan["parallel"]),
                               bytes_per_parameter=plan["bytes_per_parameter"], reserved=plan["reserved"], lang=L,
                               units=v.units))

    yield from passage(SLUG, "floor", L, **_floor_example(v, gpu_of(gpu, **custom), tp))
    yield from passage(SLUG, "floor-try", L)
    batch, = yield Ask((EXTRAS["read-floor"].knob("batch"),))
    yield Chart("read-floor", dict(models=models, precision=v.precision, batch=batch, lang=L, **node))

    yield from passage(SLUG, "sources-differ", L)
    # how to compare a variant's numbers: switched on in the app, only described on the site
    yield Either((Text(t("by.rec.intro", L), "caption"),), (Text(t("by.rec.site", L), "caption"),))
    # the site, without the toggles: what each way of counting is and where it comes from
    on = yield Tool(variant_toggles, (), site=(Text("\n".join(
        f"- **{variant_name(vid, L)}**: {t(f'var.{vid}.desc', L, page=SGLANG_PAGE_TOKENS)} "
        f"{t('rec.source', L)}: {variant_source(vid, L)}" for vid in VARIANTS), "prose"),))
    if on:
        yield Chart("reconciliation", dict(variants=tuple(on), context=v.context, lang=L, units=v.units))
    else:  # the app's hint: the site has no toggle to switch on
        yield Either((Text(t("by.rec.none", L), "info"),))

    yield from passage(SLUG, "reference", L)


def _budget_spread(mode: str) -> str:
    """The budget's spread for the planner's: decode context parallelism reuses the TP ranks (same weights)."""
    return "tp" if mode == "dcp" else mode


GQA_EXAMPLE = "llama-3.1-8b"  # the presets' first, a plain GQA model: its storage per token worked out


def _gqa_example(lang: str) -> dict:
    """A GQA model's storage per token as layers × KV heads × head width × 2 (key and value) × bytes per value,
    in its deployed format (BF16), every number core's; `value`: the bytes of one value in it."""
    m = get(GQA_EXAMPLE)
    d, (segment,) = m.dims, role_layouts(m)["main_kv"].segments
    total = storage_per_token(m).total
    terms = (m.n_layers, d.num_key_value_heads, d.head_dim, 2, f"{segment.dtype.bits // 8} B")
    return dict(ex=model_name(m.id, m.name, lang), ex_sum=f"{' × '.join(map(str, terms))} = {fmt_exact(total)}",
                value=terms[-1])


_URL = re.compile(r"https?://[^\s()]+")


def variant_source(vid: str, lang: str) -> str:
    """Where a variant's way of counting comes from, in the reader's language: each document core names
    (core.variants) as a Markdown link under a label that says what it is; the addresses are core's."""
    urls = _URL.findall(VARIANTS[vid].source)
    return t(f"var.{vid}.src", lang, **{f"u{i}": url for i, url in enumerate(urls)})


def _presets(v: Reading) -> Table:
    """Every open preset at the reader's context and precision: what grows (exact bytes), what is fixed and
    the cache (sizes a reader reads at a glance, in the reader's units)."""
    L, rows = v.lang, [summarise(m, v.context, v.precision) for m in OPEN_IMPORTS]
    ctx, size = fmt_tokens(v.context), _sizes(v)
    columns = {
        t("col.model", L): [r.model.name for r in rows],
        t("col.design", L): [design_name(OPEN_IMPORTS[r.model.id].design, L) for r in rows],
        t("by.col.storage", L): [r.storage.total for r in rows],
        t("by.col.fixed", L): [size(r.local_kv + state_bytes(r.model)) for r in rows],
        t("by.col.cache", L, n=ctx): [size(r.cache.total) for r in rows],
    }
    return Table(columns, numbers=tuple(columns)[2:3], name=t("by.presets", L, n=ctx))


def _sizes(v: Reading) -> Callable[[object], str]:
    """A byte count as a size a reader takes in at a glance ('17.2 GB', in the reader's units); a missing one a
    dash. The tables give exact bytes where a reader adds them up (per token, per layer)."""
    return lambda x: "—" if x is None else fmt_bytes(x, v.units) if x else "0"


LONG_CHUNKS = "llama-4-scout"  # an open preset whose chunked layers the import prices at full length
DSA_EXAMPLE = ("deepseek-v3.2", "v3.2")  # the open preset with an indexer, and the article's model of it


def _preset_notes(v: Reading) -> dict:
    """What the notes under the presets' table quote, every number core's: the chunk a chunked model's layers
    attend within (from its config), and a DSA model's storage per token as the table counts it (its deployed
    format: BF16, index key too), as both engines store it by default (the index key in FP8 whatever the cache's
    dtype) and in DeepSeek's own format."""
    chunk = OPEN_IMPORTS[LONG_CHUNKS].used["text_config.attention_chunk_size"]
    open_id, article_id = DSA_EXAMPLE
    model = get(open_id)
    engine = allocation(model, v.context, fitted(model, DEPLOYED), "vllm").per_token
    with_dsa = [f.model.name for f in OPEN_IMPORTS.values() if any(ly.kind == "DSA" for ly in f.model.layers)]
    return dict(chunked=model_name(LONG_CHUNKS, get(LONG_CHUNKS).name, v.lang), chunk=f"{chunk:,}",
                dsa_models=", ".join(with_dsa), dsa=model.name, dsa_open=fmt_exact(storage_per_token(model).total),
                dsa_engine=fmt_exact(engine),
                dsa_article=model_name(article_id, get(article_id).name, v.lang),
                dsa_deployed=fmt_exact(storage_per_token(article_id).total))


def _planner_fields(capacity, lang: str) -> dict:
    """The planner's default page size beside each engine's own, and the models it may chart whose parameter
    count is not published (their weights counted as none)."""
    unpublished = [model_name(m, get(m).name, lang) for m in capacity.knob("models").choices
                   if not get(m).parameters and m != "mha"]
    return dict(block=capacity.knob("block").default, vllm_block=VLLM_BLOCK, sglang_page=SGLANG_PAGE,
                unpublished=", ".join(unpublished))


REPLICATED_EXAMPLE = "gemma-3-4b"  # few KV heads: more GPUs than heads replicate them


def _replicated_heads(lang: str) -> dict:
    """A GQA model with few KV heads and how many: on more GPUs than heads, each keeps 1/heads of the cache."""
    m = get(REPLICATED_EXAMPLE)
    return dict(few=model_name(m.id, m.name, lang), heads=kv_heads(m))


def _budget_fields(lang: str, units: str) -> dict:
    """What the budget's passage quotes, every number core's: the model and GPU the chart opens on, what that
    GPU's driver reports beside its data sheet, the planner's reserve, vLLM's and SGLang's stated assumptions
    and defaults (core.budget), and the KV pool each rule leaves on that GPU of a node spread as TP."""
    spec = EXTRAS["budget"]
    model, gpu, tp = (spec.knob(k).default for k in ("model", "gpu", "tp"))
    g = get_gpu(gpu)
    weights = spec.knob("bytes_per_parameter").default
    pools = {b.engine: b.pool for b in budgets_side_by_side(model, g, Parallel(tp=tp), weights)}
    reserve = EXTRAS["capacity"].knob("reserved").default
    return dict(model=model_name(model, get(model).name, lang), gpu=g.name, mib=f"{g.reported_mib:,}",
                reported=f"{g.reported_bytes:,} B", sheet=fmt_bytes(g.memory_bytes, units), tp=tp,
                reserve=f"{reserve:.0%}", runtime=fmt_bytes(RUNTIME_BYTES, units),
                graphs=fmt_bytes(VLLM_GRAPHS_BYTES, units), tokens=f"{vllm_batch(g)[0]:,}",
                margin=f"{float(VLLM_MARGIN_FRACTION):g}", floor=fmt_bytes(VLLM_MARGIN_FLOOR["cuda"], units),
                fraction=f"{float(sglang_fraction(model, g, Parallel(tp=tp)).fraction):g}", vllm=VLLM, sglang=SGLANG,
                theory_pool=fmt_bytes(pools["theory"], units), vllm_pool=fmt_bytes(pools["vllm"], units),
                sglang_pool=fmt_bytes(pools["sglang"], units),
                share=f"{float(SGLANG_STATE_RATIO):g}/{float(1 + SGLANG_STATE_RATIO):g}")


FLOOR_EXAMPLE = "kimi-k2"  # a cache kept whole on every GPU, read whole by each


def _floor_example(v: Reading, gpu, tp: int) -> dict:
    """One decode step of one request to a model whose cache every GPU holds whole: what it reads, one GPU's
    bandwidth, and the least time that takes (core.capacity.read_floor_seconds)."""
    m = get(FLOOR_EXAMPLE)
    p = fitted(m, v.precision)
    seconds = read_floor_seconds(m, v.context, p, gpu.bandwidth_bytes_per_s, 1, tp)
    return dict(whole=model_name(m.id, m.name, v.lang), whole_read=fmt_bytes(reads(m, v.context, p).total, v.units),
                gpu=gpu.name, bw=f"{gpu.bandwidth_bytes_per_s / 1e12:g} TB/s", floor=_duration(seconds),
                ctx=fmt_tokens(v.context))


def _duration(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.3g} µs"


# core's names for an imported config's design (core.config_import), in the reader's language
_DESIGNS = (
    (re.compile(r"parallel hybrid: (?P<attn>.+) beside (?P<state>.+) in every layer"), "by.design.parallel"),
    (re.compile(r"hybrid local/global (?P<attn>.+)"), "by.design.local"),
    (re.compile(r"hybrid (?P<state>.+) \+ (?P<attn>.+)"), "by.design.hybrid"),
    (re.compile(r"sliding-window (?P<attn>.+)"), "by.design.sliding"),
    (re.compile(r"CSA/HCA compressed attention \(DeepSeek-V4\)"), "by.design.v4"),
)


def design_name(design: str, lang: str) -> str:
    """An imported design's name in the reader's language ('hybrid local/global GQA' → 'sliding window + 전체
    GQA'); a plain one (GQA, MLA, 'MLA + DSA indexer') as core names it."""
    for pattern, key in _DESIGNS:
        if found := pattern.fullmatch(design):
            return t(key, lang, **found.groupdict())
    return design


_LAYER_NUMBERS = ("by.col.count", "by.col.layer_token", "by.col.layer_window", "by.col.layer_state")


def _layer_table(rows, v: Reading) -> dict:
    """Every model's layers, alike ones together (core.cost.layer_groups), at the reader's precision."""
    L, cells = v.lang, {k: [] for k in ("col.model", "by.col.kind", "by.col.which", *_LAYER_NUMBERS)}
    for r in rows:
        for g in layer_groups(r.model, v.precision):
            cells["col.model"].append(model_name(r.model.id, r.model.name, L))
            cells["by.col.kind"].append(t("by.shared", L, kind=g.kind) if g.shared else _kind(r.model, g))
            cells["by.col.which"].append(_numbers(g.layers))
            for key, value in zip(_LAYER_NUMBERS, (len(g.layers), g.per_token, g.window, g.state)):
                cells[key].append(value)
    return {t(k, L): column for k, column in cells.items()}


def _kind(model, group) -> str:
    """A group's layer kind; V4.1's CSA2 rows told apart by their mode (Full, Reindex, Reuse) and, for the Full
    layers that store, their stack (encoder, decoder) and ratio m."""
    if group.kind != "CSA2":
        return group.kind
    layers = [model.layers[i] for i in group.layers]
    modes = [mode for mode in ("full", "reindex", "reuse") if any(ly.mode == mode for ly in layers)]
    name = f"{group.kind} {'·'.join(mode.capitalize() for mode in modes)}"
    if modes != ["full"]:
        return name
    stacks, ratios = {ly.stack for ly in layers}, {ly.ratio for ly in layers}
    where = [*(stacks if len(stacks) == 1 and "" not in stacks else ()),
             *(f"m = {m}" for m in ratios if len(ratios) == 1)]
    return f"{name} ({', '.join(where)})" if where else name


def _numbers(layers: tuple[int, ...]) -> str:
    """Layer indices, runs shortened: '0–2, 4, 6–9'; every other layer (or every k-th) from a to b as
    'a, a+k, …, b' where a run of four or more has one step."""
    runs, i = [], 0
    while i < len(layers):
        j = i + 1
        step = layers[j] - layers[i] if j < len(layers) else 1
        while j + 1 < len(layers) and layers[j + 1] - layers[j] == step:
            j += 1
        if j < len(layers) and (step == 1 or j - i >= 3):  # a run: i … j
            first, last = layers[i], layers[j]
            runs.append(f"{first}–{last}" if step == 1 else f"{first}, {first + step}, …, {last}")
            i = j + 1
        else:
            runs.append(f"{layers[i]}")
            i += 1
    return ", ".join(runs)


_ENGINE_NUMBERS = ("col.eng.theory_token", "col.eng.vllm_token", "col.eng.sglang_token")
_ENGINE_SIZES = ("by.eng.theory_at", "by.eng.vllm_at", "by.eng.sglang_at")


def _engine_table(rows, v: Reading) -> dict:
    """The theory beside what each engine allocates (core.engines, its defaults): per token of a long context,
    and one request at the reader's context; empty where an engine does not serve the model."""
    L, size = v.lang, _sizes(v)
    cells = {k: [] for k in ("col.model", *_ENGINE_NUMBERS, *_ENGINE_SIZES)}
    for r in rows:
        cells["col.model"].append(model_name(r.model.id, r.model.name, L))
        cells["col.eng.theory_token"].append(exact(r.storage.total))
        cells["by.eng.theory_at"].append(size(r.cache.total))
        for engine, a in _allocated(r.model, v).items():
            served = not isinstance(a, EngineError)
            cells[f"col.eng.{engine}_token"].append(exact(a.per_token) if served else None)
            cells[f"by.eng.{engine}_at"].append(size(int(a.charge) if served else None))
    return {t(k, L): column for k, column in cells.items()}


def _rules_table(rows, v: Reading) -> dict:
    """Every way an engine departs from the theory for the chosen models, each with the file and lines that say
    so: those that hold for every model once, then each model's own; where an engine does not serve a model, why."""
    L, cells = v.lang, {k: [] for k in ("col.model_engine", "col.rule")}

    def add(who: str, engine: str, text: str) -> None:
        cells["col.model_engine"].append(f"{who} · {t(f'eng.{engine}', L)}")
        cells["col.rule"].append(text)

    found = {r.model: _allocated(r.model, v) for r in rows}
    for engine in ENGINES[1:]:
        shown = {rule.id: rule for a in found.values() if not isinstance(a[engine], EngineError)
                 for rule in a[engine].rules if rule.id in GENERAL_RULES}
        for rule in shown.values():
            add(t("by.every", L), engine, _rule(rule, L))
    for model, allocated in found.items():
        for engine, a in allocated.items():
            if isinstance(a, EngineError):
                add(model_name(model.id, model.name, L), engine, t(f"by.none.{a.why}", L))
                continue
            for rule in a.rules:
                if rule.id not in GENERAL_RULES:
                    add(model_name(model.id, model.name, L), engine, _rule(rule, L))
    return {t(k, L): column for k, column in cells.items()}


def _rule(rule, lang: str) -> str:
    return f"{t(f'eng.rule.{rule.engine}.{rule.id}', lang, **dict(rule.fields))} — {rule.source}"


def _allocated(model, v: Reading) -> dict:
    """Each engine's allocation at the reader's context and precision, or why it does not serve the model."""
    out = {}
    for engine in ENGINES[1:]:
        try:
            out[engine] = allocation(model, v.context, fitted(model, v.precision), engine)
        except EngineError as e:
            out[engine] = e
    return out
