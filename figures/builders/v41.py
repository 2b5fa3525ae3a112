"""V4.1-Flash figures A21–A27 and the closing factor chart: CSA2, layer sharing (Full /
Reindex / Reuse), the layer layout, the hierarchical indexer and CED prefill.

A24 and the factor chart are drawn straight from the model specs (core.mechanisms.sharing,
core.factors); the others from small seeded runs or the shared matrix renderer.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from core import get
from core.mechanisms import (
    CompressDims,
    compare_csa_csa2,
    executed_cells,
    executed_ratio,
    global_kv_source,
    hierarchical_indexer,
    kv_groups,
    layer_roles,
    pool_positions_max,
    prefill_grid,
    selection_groups,
    v41_layer_split,
)
from i18n import t

from ..charts.layer_strip import MODE_COLOURS, Brackets, Group, Layer, LayerStrip, Mode, Stack
from ..made import Chart
from ..matrix import Box, Diagram, Op
from ..style import MUTED, ROLE_COLOURS, heading
from .mla import sym


def build_a24(*, model: str = "v4.1-flash", lang: str = "ko") -> LayerStrip:
    """Every layer in order, coloured by mode; KV groups and selection groups as brackets. On a
    phone's column the layers wrap into rows (fewer to a row where larger text needs wider cells),
    their brackets broken with them."""
    roles = layer_roles(model)
    spec = get(model)
    stores = [r.index + 1 for r in roles if r.stores_global]
    facts = t("a24.facts", lang, n=len(stores), layers=", ".join(map(str, stores)),
              csa2=sum(r.kind == "CSA2" for r in roles), k=spec.index_topk,
              full=sum(r.label == "Full" and r.stack == "decoder" for r in roles),
              reindex=sum(r.label == "Reindex" for r in roles))
    return LayerStrip(
        t("a24.title", lang, m=spec.name, n=len(roles)), facts, _a24_records(roles),
        modes=tuple(Mode(m, t(f"a24.mode.{m}", lang), t(f"a24.short.{m}", lang)) for m in MODE_COLOURS),
        layers=tuple(Layer(r.index, r.label, r.ratio if r.kind == "CSA2" else None, r.stores_global,
                           _layer_hover(r, spec, lang)) for r in roles),
        brackets=(_brackets(kv_groups(model), "a24.kv", "main_kv", lang),
                  _brackets(selection_groups(model), "a24.sel", "index_key", lang)),
        stacks=_stacks(spec, lang) if any(r.stack for r in roles) else ())


def _brackets(groups, key: str, role: str, lang: str) -> Brackets:
    return Brackets(t(key, lang), role, tuple(Group(g.first, g.last, t("a24.from", lang, n=g.owner + 1),
                                                    f"← {g.owner + 1}") for g in groups))


def _stacks(spec, lang: str) -> tuple[Stack, Stack]:
    """A causal encoder–decoder's encoder and decoder."""
    enc, dec, _ = v41_layer_split(spec)
    return Stack(0, enc, t("a24.encoder", lang, n=enc)), Stack(enc, dec, t("a24.decoder", lang, n=dec))


def _a24_records(roles) -> tuple[dict, ...]:
    return tuple({"layer": r.index + 1, "stack": r.stack or None, "kind": r.label, "ratio": r.ratio,
                  "kv_from": None if r.kv_from is None else r.kv_from + 1,
                  "selection_from": None if r.sel_from is None else r.sel_from + 1,
                  "stores_global_kv": r.stores_global, "stores_index_key": r.stores_index_key,
                  "windowed": r.windowed} for r in roles)


def _layer_hover(r, spec, lang: str) -> str:
    parts = [t("a24.h.layer", lang, i=r.index + 1, stack=r.stack or "—", kind=r.kind,
               m=f" m = {r.ratio}" if r.kind == "CSA2" else "", mode=r.label)]
    if r.stores_global:
        parts.append(t("a24.h.stores", lang))
    if r.kv_from is not None and r.kv_from != r.index:
        parts.append(t("a24.h.kv", lang, n=r.kv_from + 1))
    if r.sel_from is not None and r.sel_from != r.index:
        parts.append(t("a24.h.sel", lang, n=r.sel_from + 1))
    if r.kind == "CSA2":
        parts.append(t("a24.h.reads", lang, k=spec.index_topk, w=spec.window))
    elif r.windowed:
        parts.append(t("a24.h.window", lang, w=spec.window))
    return "<br>".join(parts)


def build_a23(*, lang: str = "ko") -> Diagram:
    """Full makes KV + index key and selects; Reindex borrows KV + key and re-selects; Reuse borrows both."""
    spec = get("v4.1-flash")
    k, w, c, d = spec.index_topk, spec.window, spec.dims.head_dim, spec.dims.index_head_dim
    main = Box(t("a23.main", lang), ("N/m", c), "kv", cached=True)
    key = Box(t("a23.key", lang), ("N/m", d), "index", cached=True)
    sel = Box(t("a23.sel", lang), (1, k), "index")
    lanes = (
        (Box("X", ("T", "D")), Op("→", t("a23.compressor", lang)), main, Op("+"), key,
         Op("→", t("a23.own", lang)), sel),
        (Box(t("a23.main.b", lang), ("N/m", c), "kv"), Op("+"), Box(t("a23.key.b", lang), ("N/m", d), "index"),
         Op("→", t("a23.own", lang)), sel),
        (Box(t("a23.main.b", lang), ("N/m", c), "kv"), Op("+"), Box(t("a23.sel.b", lang), (1, k), "index")),
        (Box(t("a23.rows", lang, k=k), (k, c), "kv"), Op("+"), Box(t("a23.win", lang, w=w), (w, c), "local",
                                                                     cached=True),
         Op("→", t("a23.attn", lang)), Box(t("a23.out", lang), ("T", "D"))),
    )
    return Diagram(
        t("a23.title", lang), lanes,
        lane_labels=(t("a23.full", lang), t("a23.reindex", lang), t("a23.reuse", lang), t("a23.all", lang)),
        captions=(t("a23.cap", lang),), lang=lang, subtitle=t("a23.sub", lang),
        size_order=(1, d, c, w, k, "N/m", "D", "T"))


def build_a26(*, lang: str = "ko") -> Diagram:
    """CED: the decoder's global KV comes from the encoder's final output; each decoder layer
    makes its own query and local KV and reads chosen global entries + its local KV."""
    spec = get("v4.1-flash")
    c, d = spec.dims.head_dim, spec.dims.index_head_dim
    source = global_kv_source(spec)
    lanes = (
        (Box("X", ("T", "D")), Op("→", t("a26.encoder", lang, n=v41_layer_split(spec).encoder_layers)),
         Box("H<sup>L/2</sup>", ("T", "D")), Op("→", t("a26.maker", lang, n=source.maker + 1)),
         Box(t("a23.main", lang), ("T", c), "kv", cached=True), Op("+"),
         Box(t("a23.key", lang), ("T", d), "index", cached=True)),
        (Box(t("a26.input", lang), ("T", "D")), Op("→"), Box("Query", ("T", "n<sub>h</sub>·c")), Op("+"),
         Box("local KV", ("T", c), "local", cached=True)),
        (Box("Query", ("T", "n<sub>h</sub>·c")), Op("×"), Box(t("a26.chosen", lang), ("k", c), "kv"), Op("+"),
         Box("local KV", ("T", c), "local"), Op("→", "attention"), Box(t("a23.out", lang), ("T", "D"))),
    )
    return Diagram(
        t("a26.title", lang), lanes,
        lane_labels=(t("a26.l1", lang), t("a26.l2", lang), t("a26.l3", lang)),
        captions=(t("a26.cap", lang),), lang=lang, subtitle=t("a26.sub", lang),
        size_order=("k", d, c, "D", "n<sub>h</sub>·c", "T"))


def build_a22(*, lang: str = "ko") -> Diagram:
    """CSA makes main KV and index key with two overlapping compressors; CSA2 with one, the key
    projected from the main KV (after RMSNorm, before RoPE)."""
    dims = get("v4.1-flash").dims
    c, d = dims.head_dim, dims.index_head_dim
    lanes = (
        (Box("X", ("T", "D")), Op("→", t("a22.overlap", lang)), Box(sym("C", "Comp"), ("N<sub>c</sub>", c), "kv")),
        (Box("X", ("T", "D")), Op("→", t("a22.overlap", lang)), Box(sym("K", "IComp"), ("N<sub>c</sub>", d),
                                                                     "index")),
        (Box("X", ("T", "D")), Op("→", t("a22.plain", lang)), Box(sym("C", "Comp") + " " + t("a22.prerope", lang),
                                                                   ("N<sub>c</sub>", c), "kv"),
         Op("×"), Box(sym("W", "IK"), (c, d), "weight"), Op("→", "RMSNorm"),
         Box(t("a23.key", lang), ("N<sub>c</sub>", d), "index")),
    )
    return Diagram(
        t("a22.title", lang), lanes, lane_labels=(t("a22.csa", lang), "", t("a22.csa2", lang)),
        captions=(t("a22.cap", lang),), subtitle=t("a22.sub", lang),
        size_order=(d, c, "N<sub>c</sub>", "D", "T"), lang=lang)




# --- seeded runs: A21, A25, A27 ------------------------------------------------------------

SPAN_PALETTE = ("#ffffff", "#c7dbf7", "#fcdcae")  # empty, previous segment (a), own segment (b)


def _span_box(title: str, spans, tokens: int, ratio: int, *, overlap: bool, lang: str) -> Box:
    grid = np.zeros((len(spans), tokens), dtype=int)
    for e, toks in enumerate(spans):
        for s in toks:
            grid[e, s] = 2 if not overlap or s >= e * ratio else 1
    cells = tuple(tuple({0: "", 1: "a", 2: "b" if overlap else str(e)}[v] for v in row) for e, row in enumerate(grid))
    return Box(title, (len(spans), tokens), values=grid, cells=cells, palette=SPAN_PALETTE,
               row_labels=tuple(t("a21.row", lang, e=e) for e in range(len(spans))),
               col_labels=tuple(str(s) for s in range(tokens)))


def _csa2_ratios() -> str:
    """'encoder m = 2, decoder m = 1', from the V4.1-Flash schedule."""
    spec = get("v4.1-flash")
    return ", ".join(f"{stack} m = {spec.ratio('CSA2', stack)}" for stack in ("encoder", "decoder"))


def build_a21(*, ratio: int = 4, seed: int = 0, lang: str = "ko") -> Diagram:
    """CSA vs CSA2 for the same input and m: spans per entry and the softmax of entry 1."""
    cmp = compare_csa_csa2(CompressDims(tokens=3 * ratio, ratio=ratio), seed)
    T, c = 3 * ratio, cmp.csa.dims.head_dim
    lanes = (
        (_span_box(t("a21.spans", lang), cmp.csa_spans, T, ratio, overlap=True, lang=lang),
         Box(t("a21.w", lang, n=cmp.csa_softmax_size), (cmp.csa_softmax_size, c), "score", values=cmp.csa_weights,
             row_labels=tuple(f"t{s}" for s in cmp.csa_span))),
        (_span_box(t("a21.spans", lang), cmp.csa2_spans, T, ratio, overlap=False, lang=lang),
         Box(t("a21.w", lang, n=cmp.csa2_softmax_size), (cmp.csa2_softmax_size, c), "score",
             values=cmp.csa2_weights, row_labels=tuple(f"t{s}" for s in cmp.csa2_span))),
    )
    return Diagram(
        t("a21.title", lang), lanes,
        lane_labels=(t("a21.csa", lang, n=2 * ratio, s=len(cmp.csa_shared)), t("a21.csa2", lang, m=ratio)),
        captions=(t("a21.cap", lang, r=_csa2_ratios()),), subtitle=t("a21.sub", lang, m=ratio, seed=seed), lang=lang)


def build_a25(*, tokens: int = 24, block: int = 8, pool_blocks: int = 2, topk: int = 4, seed: int = 5,
              lang: str = "ko") -> Diagram:
    """The decoder's hierarchical indexer for one query: Full scores all, pools top blocks
    (newest pinned), Reindex re-picks inside the pool, Reuse reuses."""
    run = hierarchical_indexer(tokens, block=block, pool_blocks=pool_blocks, topk=topk, seed=seed)
    n = run.query + 1
    cols = tuple(str(s) if s % block == 0 else "" for s in range(n))
    in_pool = np.isin(np.arange(n), run.pool_positions).astype(int)
    pool_cells = tuple(tuple("●" if v else "" for v in in_pool) for _ in [0])
    sel = run.selections.astype(int) * np.array([2 if m == "reuse" else 1 for m in run.modes])[:, None]
    sel_cells = tuple(tuple("✓" if v else "" for v in row) for row in sel)
    lanes = (
        (Box(t("a25.full", lang), (1, n), "index", values=run.full_scores[None, :], col_labels=cols, fmt="{:.1f}"),),
        (Box(t("a25.blocks", lang, b=block), (1, len(run.block_scores)), "index", values=run.block_scores[None, :],
             fmt="{:.1f}", col_labels=tuple(f"b{b}" for b in range(len(run.block_scores)))),
         Op("→", t("a25.pool.op", lang, p=pool_blocks)),
         Box(t("a25.pool", lang), (1, n), values=in_pool[None, :], cells=pool_cells,
             palette=("#ffffff", "#fbe5e5"), col_labels=cols)),
        (Box(t("a25.sel", lang), (len(run.modes), n), values=sel, cells=sel_cells,
             palette=("#ffffff", "#c7dbf7", "#e5e7eb"), col_labels=cols,
             row_labels=tuple(f"{i + 1}: {m.capitalize()}" for i, m in enumerate(run.modes))),),
    )
    outside = sorted(set(run.full_topk.tolist()) - set(run.pool_positions.tolist()))
    return Diagram(
        t("a25.title", lang), lanes, lane_labels=(t("a25.l1", lang), t("a25.l2", lang), t("a25.l3", lang)),
        captions=(t("a25.cap", lang, newest=run.newest_block, out=", ".join(map(str, outside)) or "—"),
                  _pool_caption(lang)),
        subtitle=t("a25.sub", lang, t=run.query, k=topk, seed=seed), lang=lang)


def _pool_caption(lang: str) -> str:
    spec = get("v4.1-flash")
    return t("a25.real", lang, b=f"{spec.pool_blocks:,}", s=spec.pool_block_size, p=f"{pool_positions_max(spec):,}",
             k=spec.index_topk)


def build_a27(*, prompt: int = 8, window: int = 2, encoder_layers: int = 2, decoder_layers: int = 2,
              lang: str = "ko") -> Diagram:
    """CED prefill with bounded replay: which (position, layer) cells run."""
    grid = prefill_grid(prompt, encoder_layers, decoder_layers, window)[::-1]  # top layer first
    names = [f"dec {i}" for i in range(decoder_layers, 0, -1)] + [f"enc {i}" for i in range(encoder_layers, 0, -1)]
    cells = tuple(tuple({0: t("a27.skip", lang), 1: "✓", 2: "✓"}[int(v)] for v in row) for row in grid)
    done = executed_cells(prompt, encoder_layers, decoder_layers, window)
    lanes = ((Box(t("a27.grid", lang), (len(names), prompt), values=grid, cells=cells,
                  palette=("#f3f4f6", "#c7dbf7", "#fcdcae"), row_labels=tuple(names),
                  col_labels=tuple(f"p{s}" for s in range(prompt))),),)
    return Diagram(
        t("a27.title", lang), lanes,
        captions=(t("a27.count", lang, e=done, a=prompt * (encoder_layers + decoder_layers),
                    r=f"{executed_ratio(prompt, encoder_layers, decoder_layers, window):.0%}"), t("a27.cap", lang)),
        subtitle=t("a27.sub", lang, w=window), lang=lang)


def build_ced_ratio(*, lang: str = "ko", max_prompt: int = 1 << 20) -> Chart:
    """Executed-cell ratio of CED prefill against prompt length, for V4.1-Flash's layer split."""
    split = v41_layer_split()
    p = np.unique(np.geomspace(1, max_prompt, 200).astype(np.int64))
    r = executed_ratio(p, split.encoder_layers, split.decoder_layers, split.window)
    limit = split.encoder_layers / (split.encoder_layers + split.decoder_layers)
    fig = go.Figure(go.Scatter(x=p, y=r, mode="lines", line=dict(color=ROLE_COLOURS["main_kv"], width=2.5),
                               hovertemplate="prompt %{x:,}: %{y:.1%}<extra></extra>"))
    fig.add_hline(y=limit, line=dict(color=MUTED, dash="dot"))
    said = t("ced.title", lang), t("ced.sub", lang, e=split.encoder_layers, d=split.decoder_layers, w=split.window)
    fig.update_layout(
        template="kv_atlas", height=360, margin=dict(l=10, r=20, t=80, b=10), showlegend=False,
        title=heading(*said),
        xaxis=dict(type="log", title=dict(text=t("ced.x", lang)), exponentformat="SI"),
        yaxis=dict(title=dict(text=t("ced.y", lang)), tickformat=".0%", range=[0, 1.05]))
    return Chart(fig, tuple({"prompt": int(x), "executed_ratio": float(y)} for x, y in zip(p, r)), *said)
