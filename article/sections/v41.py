"""V4.1-Flash · CSA2/CED: layers share global KV (A20–A27), its prose in article/prose/<lang>/v4-1-flash.md.

Every number the prose quotes is read here from the specs and core: the layer layout from the
schedule (core.mechanisms.sharing), the byte sums from core.cost (article/derive.py)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import groupby

from core import (
    ALL_BF16,
    BF16,
    E2M1,
    E4M3,
    Summary,
    crossover_tokens,
    fitted,
    fmt_bytes,
    fmt_exact,
    fmt_ratio,
    fmt_tokens,
    get,
    local_kv,
    read_terms,
    role_layouts,
    storage_per_token,
    storing,
)
from core.mechanisms import (
    CompressDims,
    compare_csa_csa2,
    global_kv_source,
    layer_modes,
    layer_roles,
    selection_groups,
    v41_layer_split,
)
from i18n import t

from ..blocks import Chart, Part, Reading
from ..derive import entry_sum, entry_terms, factor, num, per_token_sum, read_sum
from ..prose import passage
from ..sources import SOURCES
from .common import Blocks, controls, generation_top

SLUG = "v4-1-flash"
MODEL = "v4.1-flash"


def v41_flash(v: Reading) -> Blocks:
    """What V4.1 set out to fix and the bars (A20), CSA2 (A21, A22), layer sharing (A23, A24), the
    hierarchical indexer (A25), CED (A26, A27, the executed-cell ratio), the cost counted from the
    spec, what was reduced (the factor chart), and the sources."""
    L = v.lang
    model = get(MODEL)
    layout = _layout()
    split = v41_layer_split(model)
    dims = model.dims

    def top(s: Summary, v: Reading) -> Blocks:
        v4 = get("v4-flash")
        storing = Counter(ly.kind for ly in v4.layers if ly.stores_global)
        mix = " + ".join(t("v41.mix", L, kind=k, n=n) for k, n in storing.items())  # 'CSA 21층 + HCA 20층'
        yield from passage(
            SLUG, "top", L, v4_global=v4.n_global, v4_mix=mix, n_global=model.n_global, n_layers=model.n_layers,
            n_borrow=layout["enc_csa2"] + layout["dec_csa2"] - model.n_global, n_swa=layout["enc_swa"],
            enc=split.encoder_layers, dec=split.decoder_layers,
            storage=fmt_exact(s.storage.total), ratio=fmt_ratio(s.ratio), context=fmt_tokens(v.context),
            read=fmt_bytes(s.read.total, v.units), share=f"{s.key_share:.0%}")

    s = yield from generation_top(model.id, "v41", ("storage", "ratio", "local", "read"), "A20", notes=top,
                                  n=model.n_global)

    # CSA2: compression without overlap (A21), the index key from the main KV (A22)
    enc_m, dec_m = model.ratio("CSA2", "encoder"), model.ratio("CSA2", "decoder")
    yield from passage(SLUG, "csa2", L, enc_m=enc_m, dec_m=dec_m, v4_csa_m=get("v4-flash").ratio("CSA"))
    a21 = yield from controls("A21", "ratio", "seed", lang=L)
    yield Chart("A21", a21, "content")
    shown = compare_csa_csa2(CompressDims(tokens=3 * a21["ratio"], ratio=a21["ratio"]), a21["seed"])  # as A21
    yield from passage(SLUG, "csa2-read", L, m=shown.csa2_softmax_size, csa_rows=shown.csa_softmax_size)
    yield from passage(SLUG, "csa2-try", L)  # the app's: the comparison m and the seed
    yield from passage(SLUG, "index-key", L, c=dims.head_dim, d=dims.index_head_dim)
    yield Chart("A22", dict(lang=L), "content")
    yield from passage(SLUG, "index-key-read", L)

    # layer sharing: the three modes (A23) and the layout counted from the schedule (A24)
    yield from passage(SLUG, "modes", L, k=model.index_topk, w=model.window)
    yield Chart("A23", dict(lang=L), "content")
    yield from passage(SLUG, "modes-read", L)
    yield from passage(SLUG, "layout", L, n_layers=model.n_layers, n_global=model.n_global,
                       n_windowed=model.n_windowed, enc=split.encoder_layers, dec=split.decoder_layers,
                       enc_m=enc_m, dec_m=dec_m, **layout)
    yield Chart("A24", dict(lang=L))
    yield from passage(SLUG, "layout-read", L, dec=split.decoder_layers, dec_sel=layout["dec_sel"],
                       dec_reindex=layout["dec_reindex"])

    # the decoder's hierarchical indexer (A25)
    # Full's top k always lies in the pool when the pool's blocks besides the newest outnumber k: each
    # of them holds an entry ranked ahead of any entry outside (core.mechanisms.hierarchical)
    assert model.pool_blocks - 1 >= model.index_topk, "the prose says Full's choice always lies in the pool"
    yield from passage(SLUG, "hier", L, dec_m=dec_m, block=model.pool_block_size, k=model.index_topk,
                       pool_blocks=num(model.pool_blocks), pool=num(model.pool), others=num(model.pool_blocks - 1))
    a25 = yield from controls("A25", "tokens", "pool_blocks", "topk", "seed", lang=L)
    yield Chart("A25", a25, "content")
    yield from passage(SLUG, "hier-read", L, modes=", ".join(m.capitalize() for m in layer_modes()),
                       fig_pool=a25["pool_blocks"], fig_k=a25["topk"])
    yield from passage(SLUG, "hier-try", L)  # the app's: positions, pool blocks, k, seed

    # CED (A26), its prefill with bounded replay (A27) and the share of cells it runs
    source = global_kv_source(model)
    yield from passage(SLUG, "ced", L, n_layers=model.n_layers, enc=split.encoder_layers, dec=split.decoder_layers,
                       maker=source.maker + 1, readers=len(source.readers))
    yield Chart("A26", dict(lang=L), "content")
    yield from passage(SLUG, "ced-read", L)
    yield from passage(SLUG, "replay", L, w=split.window, n_layers=model.n_layers)
    yield Chart("A27", (yield from controls("A27", "prompt", "window", lang=L)), "content")
    yield from passage(SLUG, "replay-read", L)
    yield from passage(SLUG, "replay-try", L)  # the app's: prompt length and window
    yield Chart("ced-ratio", dict(lang=L))
    yield from passage(SLUG, "ced-ratio-read", L, enc=split.encoder_layers, dec=split.decoder_layers,
                       n_layers=model.n_layers, w=split.window,
                       limit=f"{split.encoder_layers / (split.encoder_layers + split.decoder_layers):.0%}")

    # the cost, counted from the spec: storage (the precision moves it), reads (the context too)
    yield from passage(SLUG, "cost", L, **_storage(v), c=dims.head_dim, d=dims.index_head_dim, enc_m=enc_m,
                       dec_m=dec_m, enc_full=layout["enc_full"], dec_full=layout["dec_full"])
    yield from passage(SLUG, "local", L, **_local(v))
    yield Part("v41-reads", lambda v: passage(SLUG, "reads", v.lang, **_reads(v, layout, enc_m)))

    # what each generation reduced (the factor chart), what remains, the sources
    element = {f"{name}_b": num(Fraction(d.bits, 8)) for name, d in (("bf16", BF16), ("fp8", E4M3), ("fp4", E2M1))}
    yield from passage(SLUG, "factors", L, **_factors(), **element, enc_m=enc_m, dec_m=dec_m)
    yield Chart("factors", dict(lang=L))
    # the article rounds the storage ratio to two significant digits: "1/4,400"
    ratio = f"{float(f'{s.ratio:.2g}'):,.0f}"
    yield Part("v41-remains", lambda v: passage(SLUG, "remains", v.lang, **_remains(v, layout, enc_m), r=ratio))
    deployed = role_layouts(model)
    yield from passage(SLUG, "sources", L, total=fmt_exact(storage_per_token(model).total), config=model.source,
                       **SOURCES,
                       fp4_main=entry_sum(deployed["main_kv"]), fp4_key=entry_sum(deployed["index_key"]))


def _layout() -> dict:
    """The layer layout as the prose counts it, read off the schedule: each mode per stack, the
    pattern of selection groups ('3 × [Full, Reuse×5]'), the decoder's selection groups."""
    roles = layer_roles(MODEL)

    def count(stack: str, label: str) -> int:
        return sum(r.stack == stack and r.label == label for r in roles)

    def pattern(stack: str) -> str:
        groups = [g for g in selection_groups(MODEL) if roles[g.first].stack == stack]
        shapes = [f"[{roles[g.owner].label}" + (f", Reuse×{g.size - 1}]" if g.size > 1 else "]") for g in groups]
        runs = [(shape, len(list(run))) for shape, run in groupby(shapes)]
        return " + ".join(f"{n} × {shape}" if n > 1 else shape for shape, n in runs)

    csa2 = {stack: sum(r.stack == stack and r.kind == "CSA2" for r in roles) for stack in ("encoder", "decoder")}
    return dict(
        enc_swa=count("encoder", "SWA"), enc_csa2=csa2["encoder"], enc_full=count("encoder", "Full"),
        enc_reuse=count("encoder", "Reuse"), enc_pattern=pattern("encoder"), dec_csa2=csa2["decoder"],
        dec_full=count("decoder", "Full"), dec_reindex=count("decoder", "Reindex"),
        dec_reuse=count("decoder", "Reuse"), dec_pattern=pattern("decoder"),
        dec_sel=sum(roles[g.first].stack == "decoder" for g in selection_groups(MODEL)))


def _storage(v: Reading) -> dict:
    """Per-token storage: all BF16 against V4-Flash's total (derived on its page), and at the reader's
    precision term by term."""
    p = fitted(MODEL, v.precision)  # a format V4.1 does not offer leaves its deployed one
    bf16, v4_bf16 = (storage_per_token(m, ALL_BF16).total for m in (MODEL, "v4-flash"))
    v4 = get("v4-flash")
    made = role_layouts(MODEL, p)
    return dict(
        bf16_sum=per_token_sum(MODEL, ALL_BF16), v4_bf16=fmt_exact(v4_bf16),
        bf16_share=f"{bf16 / v4_bf16:.0%}", v4_csa_m=v4.ratio("CSA"), v4_global=v4.n_global,
        n_global=get(MODEL).n_global,
        main_terms=entry_terms(made["main_kv"], v.lang), key_terms=entry_terms(made["index_key"], v.lang),
        per_token=per_token_sum(MODEL, p))


def _local(v: Reading) -> dict:
    """The local KV every windowed layer keeps, and where the global KV overtakes it."""
    model = get(MODEL)
    p = fitted(MODEL, v.precision)
    entry = role_layouts(MODEL, p)["local_kv"]
    return dict(n_windowed=model.n_windowed, w=model.window, c=model.dims.head_dim,
                local_terms=entry_terms(entry, v.lang), local_b=f"{entry.nbytes:,}",
                local_total=fmt_bytes(local_kv(MODEL, p), v.units), total=fmt_exact(storage_per_token(MODEL, p).total),
                cross=f"{crossover_tokens(MODEL, p):,}")


def _reads(v: Reading, layout: dict, enc_m: int) -> dict:
    """One decode step at the reader's context, term by term (core.cost.read_terms)."""
    model = get(MODEL)
    terms = read_terms(MODEL, v.context, v.precision)

    def written(role: str) -> str:
        return read_sum((r for r in terms if r.role == role), v.units)

    total = {role: sum(r.total for r in terms if r.role == role) for role in ("main_kv", "index_key", "local_kv")}
    read = sum(total.values())
    return dict(
        context=fmt_tokens(v.context), n=f"{v.context:,}", n_csa2=layout["enc_csa2"] + layout["dec_csa2"],
        k=model.index_topk, enc_csa2=layout["enc_csa2"], dec_csa2=layout["dec_csa2"], main_sum=written("main_kv"),
        n_windowed=model.n_windowed, local_sum=written("local_kv"),
        kv=fmt_bytes(total["main_kv"] + total["local_kv"], v.units), enc_full=layout["enc_full"], enc_m=enc_m,
        dec_full=layout["dec_full"], dec_reindex=layout["dec_reindex"], pool=num(model.pool),
        key_sum=written("index_key"), read=fmt_bytes(read, v.units), share=f"{total['index_key'] / read:.0%}")


def _remains(v: Reading, layout: dict, enc_m: int) -> dict:
    """What is left after five generations, at the reader's view: the fixed local KV, and what the
    Full layers' scans of every index key read at the context (core.cost.read_terms), their share."""
    model = get(MODEL)
    terms = read_terms(MODEL, v.context, v.precision)
    # the Full layers' index-key terms: a count of Full layers at their ratio, each reading N ÷ m keys
    full = Counter(ly.ratio for ly in model.layers if ly.kind == "CSA2" and ly.mode == "full")
    scans = [r for r in terms if r.role == "index_key" and full.get(r.ratio) == r.layers
             and r.entries == v.context // r.ratio]
    assert sum(r.layers for r in scans) == sum(full.values()), "a Full layer's scan is not among the read terms"
    scan, read = sum(r.total for r in scans), sum(r.total for r in terms)
    return dict(
        w=model.window, local=fmt_bytes(local_kv(model, fitted(model, v.precision)), v.units),
        v4_csa_l=get("v4-flash").count(lambda ly: ly.kind == "CSA"), n_full=sum(full.values()),
        enc_full=layout["enc_full"], dec_full=layout["dec_full"], enc_m=enc_m, context=fmt_tokens(v.context),
        scan=fmt_bytes(scan, v.units), read=fmt_bytes(read, v.units), scan_share=f"{scan / read:.0%}")


def _factors() -> dict:
    """What each generation changed, in the numbers its storing layers really have (core.factors,
    deployed formats, as the factors chart draws them): values per entry, bytes per value, m, layers."""
    mha, v2, v32 = (storing(m)[0] for m in ("mha", "v2", "v3.2"))
    v4 = {k.kind: k for k in storing("v4-flash")}
    v41 = storing("v4.1-flash")
    return dict(mha_w=f"{mha.width:,}", v2_w=f"{v2.width:,}", v32_w=f"{v32.width:,}",
                v32_b=factor(float(v32.bytes_per_value), 3), v4_csa_m=v4["CSA"].ratio, v4_csa_l=v4["CSA"].layers,
                v4_hca_m=v4["HCA"].ratio, v4_hca_l=v4["HCA"].layers, v41_l=sum(k.layers for k in v41),
                v41_b=factor(float(v41[0].bytes_per_value), 3))
