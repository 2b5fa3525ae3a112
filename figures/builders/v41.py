"""V4.1-Flash figures A21–A27 and the closing factor chart: CSA2, layer sharing (Full /
Reindex / Reuse), the layer layout, the hierarchical indexer and CED prefill.

A24 and the factor chart are drawn straight from the model specs (core.mechanisms.sharing,
core.factors); the others from small seeded runs or the shared matrix renderer.
"""

from __future__ import annotations

from itertools import groupby

import numpy as np
import plotly.graph_objects as go

from core import get
from core.mechanisms.ced import executed_cells, executed_ratio, global_kv_source, prefill_grid, v41_layer_split
from core.mechanisms.compression import CompressDims
from core.mechanisms.csa2 import compare_csa_csa2
from core.mechanisms.hierarchical import hierarchical_indexer, pool_positions_max
from core.mechanisms.sharing import kv_groups, layer_roles, selection_groups
from i18n import t

from ..canvas import LINE, NATIVE, SCREEN_TEXT, SUP_FOOT, Canvas, legend_rows, title_at_top, title_top
from ..contrast import ink_on
from ..made import Chart
from ..matrix import Box, Diagram, Op
from ..style import MUTED, ON_FILL, ROLE_COLOURS, TEMPLATE, heading
from ..text import text_px
from .mla import sym

MODE_COLOURS = {"SWA": "#d1d5db", "Full": ROLE_COLOURS["main_kv"], "Reindex": ROLE_COLOURS["index_key"],
                "Reuse": "#bcd3f5"}
PHONE_LAYERS = 10  # A24's layers to a row on a phone's column
A24_BLOCK = 4.8  # y units a row of layers takes, with its brackets
A24_ROW_PX = 210  # px a further row of layers adds
A24_UNIT_PX = 48  # px a y unit takes on a phone's column, at the reader's text size 1


def build_a24(*, model: str = "v4.1-flash", lang: str = "ko", canvas: Canvas = NATIVE) -> Chart:
    """Every layer in order, coloured by mode; KV groups and selection groups as brackets. On a
    phone's column the layers wrap into rows (fewer to a row where larger text needs wider cells),
    their brackets broken with them."""
    roles = layer_roles(model)
    spec = get(model)
    n = len(roles)
    scale = canvas.text
    # one row of every layer where its cells hold their names at the reader's text size; else (a phone) rows of a few
    wide = not canvas.narrow and (canvas.text == 1 or _phone_layers(n, lang, canvas, 130 * canvas.text) >= n)
    per = n if wide else _phone_layers(n, lang, canvas)
    rows = -(-n // per)

    def at(i: int) -> tuple[float, float]:  # layer i's left edge and its row's offset
        return i % per, -(i // per) * A24_BLOCK

    shapes, notes, hover_x, hover_y, hover_text = [], [], [], [], []
    for r in roles:
        x, dy = at(r.index)
        shapes.append(dict(type="rect", x0=x + 0.06, x1=x + 0.94, y0=dy, y1=dy + 1,
                           fillcolor=MODE_COLOURS[r.label], line=dict(width=0)))
        notes.append(dict(x=x + 0.5, y=dy + 0.5, text=t(f"a24.short.{r.label}", lang), showarrow=False,
                          font=dict(size=11, color=ink_on(MODE_COLOURS[r.label])), name=ON_FILL))
        notes.append(dict(x=x + 0.5, y=dy - 0.22, text=f"{r.index + 1}", showarrow=False,
                          font=dict(size=9, color=MUTED)))
        if r.stores_global:
            notes.append(dict(x=x + 0.5, y=dy + (1.62 if wide else 1.8), text="★", showarrow=False,
                              font=dict(size=16, color=ROLE_COLOURS["main_kv"])))
        hover_x.append(x + 0.5)
        hover_y.append(dy + 0.5)
        hover_text.append(_layer_hover(r, spec, lang))
    # the ratio once over each run of CSA2 layers alike in a row ("m2" over every layer ran together)
    for (_, ratio), run in groupby(roles, key=lambda r: (r.index // per, r.ratio if r.kind == "CSA2" else None)):
        if ratio is not None:
            run = list(run)
            (x0, dy), (x1, _) = at(run[0].index), at(run[-1].index)
            notes.append(dict(x=(x0 + x1 + 1) / 2, y=dy + 1.2, text=f"m = {ratio}", showarrow=False,
                              font=dict(size=9, color=MUTED)))
    unit = _a24_unit(per, canvas)  # px a layer's slot is wide, where the canvas says (None natively)
    for y, groups, key in ((-0.75, kv_groups(model), "a24.kv"), (-1.45, selection_groups(model), "a24.sel")):
        colour = ROLE_COLOURS["main_kv"] if key == "a24.kv" else ROLE_COLOURS["index_key"]
        labels = []
        for g in groups:
            parts = [(max(g.first, row * per), min(g.last, row * per + per - 1))
                     for row in range(g.first // per, g.last // per + 1)]
            for first, last in parts:
                (x0, dy), (x1, _) = at(first), at(last)
                shapes.append(dict(type="path", path=f"M {x0 + 0.1},{dy + y + 0.18} L {x0 + 0.1},{dy + y} "
                                                     f"L {x1 + 0.9},{dy + y} L {x1 + 0.9},{dy + y + 0.18}",
                                   line=dict(color=colour, width=1.6)))
            if g.size > 1:  # labelled on its longest part
                first, last = max(parts, key=lambda fl: fl[1] - fl[0])
                (x0, dy), (x1, _) = at(first), at(last)
                labels.append(((x0 + x1 + 1) / 2, dy + y - 0.08, g.owner + 1))
        # where larger text would run the labels of a row into one another, they name the layer alone
        long = unit is None or _labels_fit([(x, row, t("a24.from", lang, n=k)) for x, row, k in labels], unit,
                                           SCREEN_TEXT * scale, per)
        for x, row, k in labels:
            notes.append(dict(x=x, y=row, yanchor="top", showarrow=False, font=dict(size=9, color=colour),
                              text=t("a24.from", lang, n=k) if long else f"← {k}"))
        if wide:  # the brackets' names left of them
            notes.append(dict(x=0, xref="paper", y=y, xanchor="right", xshift=-6, showarrow=False, text=t(key, lang),
                              font=dict(size=11, color=colour)))
    if not wide:  # under the last row: side by side where they fit, else one under the other
        names = [f"⌐ {t(key, lang)}" for key in ("a24.kv", "a24.sel")]
        apart = unit is None or (text_px(names[0], 11 * scale) + 12 < unit * per / 2 and
                                 text_px(names[1], 11 * scale) < unit * (per / 2 + 0.2))
        for i, (name, key) in enumerate(zip(names, ("a24.kv", "a24.sel"))):
            under = -(rows - 1) * A24_BLOCK - 2.3 - (0 if apart else 0.4 * i)
            notes.append(dict(x=i * per / 2 if apart else 0, y=under,
                              xanchor="left", showarrow=False, text=name,
                              font=dict(size=11, color=ROLE_COLOURS["main_kv" if key == "a24.kv" else "index_key"])))
    else:
        apart = True
    if any(r.stack for r in roles):  # a causal encoder–decoder: mark the split
        enc, dec, _ = v41_layer_split(spec)
        x, dy = at(enc) if enc < n else (per, -(rows - 1) * A24_BLOCK)
        shapes.append(dict(type="line", x0=x, x1=x, y0=dy - 1.9, y1=dy + 2.3,
                           line=dict(color=MUTED, dash="dot", width=2)))
        for first, key, count in ((0, "a24.encoder", enc), (enc, "a24.decoder", dec)):
            (x0, dy), (x1, _) = at(first), at(min(first + count, (first // per + 1) * per) - 1)
            text, centre = t(key, lang, n=count), (x0 + x1 + 1) / 2
            if unit is not None:  # over its layers, as far in as keeps it on the plot
                half = text_px(text, 13 * scale) / 2 / unit
                centre = min(max(centre, half - 0.2), per + 0.2 - half)
            notes.append(dict(x=centre, y=dy + 2.25, text=text, showarrow=False, font=dict(size=13)))
    stores = [r.index + 1 for r in roles if r.stores_global]
    facts = t("a24.facts", lang, n=len(stores), layers=", ".join(map(str, stores)),
              csa2=sum(r.kind == "CSA2" for r in roles), k=spec.index_topk,
              full=sum(r.label == "Full" and r.stack == "decoder" for r in roles),
              reindex=sum(r.label == "Reindex" for r in roles))
    legend = [go.Scatter(x=[None], y=[None], mode="markers", name=t(f"a24.mode.{m}", lang),
                         marker=dict(symbol="square", size=12, color=c)) for m, c in MODE_COLOURS.items()]
    hover = go.Scatter(x=hover_x, y=hover_y, mode="markers", marker=dict(size=18, opacity=0),
                       hovertext=hover_text, hoverinfo="text", showlegend=False)
    fig = go.Figure(data=[*legend, hover])
    bottom = -1.95 - (rows - 1) * A24_BLOCK - (0 if wide else 0.7 if apart else 1.1)
    said = t("a24.title", lang, m=spec.name, n=n), facts
    title = heading(*said)
    if canvas.screen_width:  # a page column: room over the plot for the title and the legend at its text size
        size = TEMPLATE.layout.title.font.size * scale
        lines = title["text"].count("<br>")
        room = canvas.screen_width - (130 if wide else 20)
        top = title_top(size) + LINE * size * lines + SUP_FOOT * size + 12 + \
            legend_rows([tr.name for tr in legend], room, TEMPLATE.layout.font.size * scale) * \
            LINE * TEMPLATE.layout.font.size * scale + 10
        top = max(top, 110) if wide else top  # as at 1× at least: the legend beside the title's last line
        height = top + (2.45 - bottom) * (A24_UNIT_PX if not wide else 64) * scale + 10
        title = title_at_top(title, height, size)
    else:
        top, height = 110, 400 + (rows - 1) * A24_ROW_PX + (0 if wide else 30)
    fig.update_layout(
        template="kv_atlas", title=title,
        shapes=shapes, annotations=notes, height=height,
        margin=dict(l=110 * scale if wide else 10, r=20 if wide else 10, t=top, b=10),
        xaxis=dict(visible=False, range=[-0.2, per + 0.2]), yaxis=dict(visible=False, range=[bottom, 2.45]),
        legend=dict(orientation="h", x=1, xanchor="right", y=1.02, yanchor="bottom") if wide else
        dict(orientation="h", x=0, y=1, yanchor="bottom"), hovermode="closest")
    records = tuple({"layer": r.index + 1, "stack": r.stack or None, "kind": r.label, "ratio": r.ratio,
                     "kv_from": None if r.kv_from is None else r.kv_from + 1,
                     "selection_from": None if r.sel_from is None else r.sel_from + 1,
                     "stores_global_kv": r.stores_global, "stores_index_key": r.stores_index_key,
                     "windowed": r.windowed} for r in roles)
    return Chart(fig, records, *said)


def _phone_layers(n: int, lang: str, canvas: Canvas, margin: float = 20) -> int:
    """How many of A24's layers a row holds on a page column (`margin` px beside the plot): n where all
    fit, else PHONE_LAYERS, or fewer where a cell would be narrower than its names and numbers at the
    reader's text size."""
    size = SCREEN_TEXT * canvas.text  # the cells' texts (9 and 11 px) at the screen's floor, scaled
    inside = max(text_px(t(f"a24.short.{m}", lang), size) for m in MODE_COLOURS)  # on the cell
    over = max(text_px(x, size) for x in ("m8", str(n)))  # over and under it, a slot's width apart
    for per in (n, PHONE_LAYERS, 8, 6, 5, 4):
        slot = (canvas.screen_width - margin) / (per + 0.4)
        if 0.88 * slot >= inside + 4 and slot >= over + 3:
            return per
    return 4


def _a24_unit(per: int, canvas: Canvas) -> float | None:
    """px a layer's slot takes across a page column (the plot's width over the layers a row holds)."""
    if not canvas.screen_width:
        return None
    margin = 130 * canvas.text if not canvas.narrow else 20
    return (canvas.screen_width - margin) / (per + 0.4)


def _labels_fit(labels: list[tuple[float, float, str]], unit: float, size: float, per: int) -> bool:
    """Whether bracket labels (x centre in layer slots, row, text) clear one another and the plot's edges
    at `size` px, `unit` px to a slot."""
    boxes = sorted(((row, x * unit - w / 2, x * unit + w / 2) for x, row, text in labels
                    for w in [text_px(text, size) + 0.3 * size]))
    for (row, _, x1), (other, y0, _) in zip(boxes, boxes[1:]):
        if row == other and y0 < x1:
            return False
    return all(x0 >= -0.2 * unit and x1 <= (per + 0.2) * unit for _, x0, x1 in boxes)


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


def build_a23(*, lang: str = "ko", canvas: Canvas = NATIVE) -> Diagram:
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


def build_a26(*, lang: str = "ko", canvas: Canvas = NATIVE) -> Diagram:
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


def build_a22(*, lang: str = "ko", canvas: Canvas = NATIVE) -> Diagram:
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


def build_a21(*, ratio: int = 4, seed: int = 0, lang: str = "ko", canvas: Canvas = NATIVE) -> Diagram:
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
              lang: str = "ko", canvas: Canvas = NATIVE) -> Diagram:
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
              lang: str = "ko", canvas: Canvas = NATIVE) -> Diagram:
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


def build_ced_ratio(*, lang: str = "ko", max_prompt: int = 1 << 20, canvas: Canvas = NATIVE) -> Chart:
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
