"""V4-Flash figures A12–A19: HCA and CSA branches, making compressed entries, which entries
token t reads, and attention over shared K = V entries with a sink.

A12/A16 are structural (entry width c from the V4-Flash spec); the others run small seeded
mechanisms from core (compression, visibility, sink_attention, csa_indexer).
"""

from __future__ import annotations

import numpy as np

from core import get
from core.mechanisms import (
    NEWEST_SKIPPED_SEED,
    CompressDims,
    SinkDims,
    csa_compress,
    gather,
    hca_compress,
    run_csa_indexer,
    shared_kv_attention,
    visible_rows,
)
from i18n import t

from ..matrix import Box, Diagram, Op
from .mla import sym
from .read_grid import COMPRESSED, GRID_PALETTE, WINDOW, read_grid_box


def _entry_width() -> int:
    """c: the width of one V4-Flash entry, from the spec when a figure is built."""
    return get("v4-flash").dims.head_dim


def _sizes() -> tuple:
    """Symbolic sizes from small to large (V4-Flash: c < d_c < D < n_h·c), for box widths."""
    c = _entry_width()
    return ("k", c, f"2×{c}", "d<sub>c</sub>", "n<sub>I</sub>·d<sub>I</sub>", "D", "n<sub>h</sub>·c", "T")


def _query_lane(lang: str):
    return (Box("X", ("T", "D")), Op("×"), Box(sym("W", "DQ"), ("D", "d<sub>c</sub>"), "weight"), Op("="),
            Box(sym("c", "Q"), ("T", "d<sub>c</sub>")), Op("×"),
            Box(sym("W", "UQ"), ("d<sub>c</sub>", "n<sub>h</sub>·c"), "weight"), Op("="),
            Box("Q", ("T", "n<sub>h</sub>·c")))


def build_a12(*, lang: str = "ko") -> Diagram:
    """HCA's branches from X: the query, the uncompressed local KV, and the candidates C and
    scores Z that compression pools."""
    c = _entry_width()
    lanes = (
        _query_lane(lang),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "KV", "win"), ("D", c), "weight"), Op("→", "RMSNorm"),
         Box(sym("E", "win"), ("T", c), "local", cached=True, note=t("a12.win", lang))),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "KV", "comp"), ("D", c), "weight"), Op("="),
         Box("C", ("T", c), "kv", note=t("a12.cand", lang))),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "Z"), ("D", c), "weight"), Op("="),
         Box("Z", ("T", c), note=t("a12.z", lang))),
    )
    return Diagram(
        t("a12.title", lang), lanes,
        lane_labels=(t("a12.q", lang), t("a12.local", lang), t("a12.comp", lang), ""),
        captions=(t("a12.cap", lang, c=c), t("mx.width", lang)), lang=lang,
        subtitle=t("a12.sub", lang), size_order=_sizes())


def build_a16(*, lang: str = "ko") -> Diagram:
    """CSA's branches: as HCA's, with double-width a|b compression weights and an indexer fed
    by the shared c^Q."""
    c = _entry_width()
    lanes = (
        _query_lane(lang),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "KV", "win"), ("D", c), "weight"), Op("→", "RMSNorm"),
         Box(sym("E", "win"), ("T", c), "local", cached=True)),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "KV", "comp") + " a|b", ("D", f"2×{c}"), "weight"), Op("="),
         Box("C<sub>a</sub> | C<sub>b</sub>", ("T", f"2×{c}"), "kv", note=t("a16.halves", lang))),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "Z") + " a|b", ("D", f"2×{c}"), "weight"), Op("="),
         Box("Z<sub>a</sub> | Z<sub>b</sub>", ("T", f"2×{c}"))),
        (Box(sym("c", "Q"), ("T", "d<sub>c</sub>")), Op("×"),
         Box(sym("W", "IUQ"), ("d<sub>c</sub>", "n<sub>I</sub>·d<sub>I</sub>"), "weight"), Op("="),
         Box(sym("q", "I"), ("T", "n<sub>I</sub>·d<sub>I</sub>"), "index"),
         Op("→", t("a16.score", lang)), Box(t("a16.blocks", lang), ("T", "k"), "index")),
    )
    return Diagram(
        t("a16.title", lang), lanes,
        lane_labels=(t("a12.q", lang), t("a12.local", lang), t("a16.comp", lang), "", t("a16.idx", lang)),
        captions=(t("a16.cap", lang, m=get("v4-flash").ratio("CSA")), t("mx.width", lang)),
        lang=lang,
        subtitle=t("a16.sub", lang), size_order=_sizes())


# --- mechanism runs -----------------------------------------------------------------------



def build_a13(*, ratio: int = 4, seed: int = 0, lang: str = "ko") -> Diagram:
    """One HCA entry from a segment of m′ tokens: Z + B → softmax over tokens → Σ A⊙C → RMSNorm → RoPE."""
    run = hca_compress(CompressDims(tokens=3 * ratio, ratio=ratio), seed)
    b = 1  # the second block: its RoPE position (= its first token) is not 0
    rows = slice(b * ratio, (b + 1) * ratio)
    tok = tuple(f"t{s}" for s in range(b * ratio, (b + 1) * ratio))
    m, c = ratio, run.dims.head_dim
    S = Box(sym("A", sub="i"), (m, c), "score", values=run.weights[b], row_labels=tok)
    lanes = (
        (Box("Z<sub>i</sub>", (m, c), values=run.Z[rows], row_labels=tok), Op("+"),
         Box("B", (m, c), "weight", values=run.B, note=t("a13.bias", lang)),
         Op("→", t("a13.softmax", lang)), S),
        (S, Op("⊙"), Box(sym("C", sub="i"), (m, c), "kv", values=run.C[rows]),
         Op("→", t("a13.sum", lang)), Box(sym("u", sub="i"), (1, c), values=run.pooled[b : b + 1]),
         Op("→", t("a13.norm", lang)), Box(t("a13.entry", lang), (1, c), "kv", cached=True,
                                            values=run.entries[b : b + 1],
                                            note=t("a13.rope", lang, r=run.dims.rope_dim, p=run.positions[b]))),
        (Box(sym("E", "win"), (m, c), "local", values=run.E_win[rows], row_labels=tok, cached=True,
             note=t("a13.win", lang)),),
    )
    return Diagram(
        t("a13.title", lang, m=m), lanes,
        lane_labels=(t("a13.l1", lang), t("a13.l2", lang), t("a13.l3", lang)),
        captions=(t("a13.cap", lang, m=get("v4-flash").ratio("HCA")),),
        lang=lang, subtitle=t("a13.sub", lang, m=m, seed=seed))



def build_a14(*, t_: int = 6, ratio: int = 4, window: int = 4, lang: str = "ko") -> Diagram:
    """What token t reads: complete compressed entries + the recent window, at t and t + 1."""
    lanes = []
    for step in (t_, t_ + 1):
        rows = visible_rows(step, ratio, window)
        n_comp = sum(r.kind == "compressed" for r in rows)
        lanes.append((read_grid_box(t("a14.box", lang, t=step, n=len(rows), c=n_comp, w=len(rows) - n_comp), rows,
                                step),))
    return Diagram(
        t("a14.title", lang), tuple(lanes), lane_labels=(f"t = {t_}", f"t = {t_ + 1}"),
        captions=(t("a14.cap", lang, m=ratio, w=window), t("a14.legend", lang)),
        subtitle=t("a14.sub", lang, m=ratio, w=window), lang=lang)


def build_a15(*, sink: float = 0.0, t_: int = 7, seed: int = 0, lang: str = "ko") -> Diagram:
    """Attention of token t over shared K = V entries with a per-head sink, inverse RoPE, grouped output."""
    hca = hca_compress(CompressDims(tokens=max(12, t_ + 1)), seed)
    E, pos, rows = gather(hca, t_, window=4)
    run = shared_kv_attention(E, pos, t_, dims=SinkDims(head_dim=hca.dims.head_dim), sink=sink, seed=seed)
    H, N, c, g = run.dims.n_heads, len(rows), run.dims.head_dim, run.dims.n_groups
    names = tuple(f"C{r.index}" if r.kind == "compressed" else f"w{r.index}" for r in rows)
    heads = tuple(f"h{h}" for h in range(H))
    P = np.column_stack([run.P, run.sink_mass])
    P_box = Box("P | sink", (H, f"{N}+1"), "score", values=P, row_labels=heads, col_labels=(*names, "sink"))
    lanes = (
        (Box("Q", (H, c), values=run.Q, row_labels=heads, note=t("a15.q", lang, t=t_)), Op("×"),
         Box("E<sup>T</sup>", (c, N), "kv", values=run.E.T, col_labels=names), Op("÷", f"√{c}"), Op("="),
         Box("S", (H, N), "score", values=run.S, row_labels=heads)),
        (Box("S", (H, N), "score", values=run.S, row_labels=heads), Op("→", t("a15.softmax", lang)), P_box),
        (Box("P", (H, N), "score", values=run.P, row_labels=heads), Op("×"),
         Box("E", (N, c), "kv", values=run.E, row_labels=names), Op("="), Box("O", (H, c), values=run.O),
         Op("→", t("a15.unrot", lang, t=t_)), Box("O′", (H, c), values=run.O_unrot)),
        (Box("O′ → " + t("a15.groups", lang, g=g), (g, run.dims.group_dim), values=run.O_groups), Op("×"),
         Box(sym("W", "O,a", "g"), (run.dims.group_dim, run.dims.o_lora_rank), "weight"), Op("="),
         Box(sym("Z", "a"), (g, run.dims.o_lora_rank), values=run.Z_a)),
        (Box(sym("Z", "a"), (g, run.dims.o_lora_rank), values=run.Z_a), Op("→", "concat"), Op("×"),
         Box(sym("W", "O,b"), (g * run.dims.o_lora_rank, run.dims.hidden), "weight"), Op("="),
         Box("y", (1, run.dims.hidden), values=run.y[None, :])),
    )
    mass = float(np.mean(run.sink_mass))
    return Diagram(
        t("a15.title", lang), lanes,
        lane_labels=(t("a15.l1", lang), t("a15.l2", lang), t("a15.l3", lang), t("a15.l4", lang),
                     t("a15.l5", lang)),
        captions=(t("a15.mass", lang, z=f"{sink:+.1f}", m=f"{mass:.0%}"), t("a15.cap", lang)),
        subtitle=t("a15.sub", lang, t=t_, n=N), lang=lang)


def build_a17(*, ratio: int = 4, seed: int = 0, lang: str = "ko") -> Diagram:
    """One CSA entry from 2m rows: the previous segment's a-half + its own b-half, one softmax."""
    run = csa_compress(CompressDims(tokens=3 * ratio, ratio=ratio), seed)
    i, m, c = 1, ratio, run.dims.head_dim
    labels = tuple(("a" if j < m else "b") + f" t{s}" for j, s in enumerate(run.row_tokens[i]))
    S = Box(sym("A", sub=str(i)), (2 * m, c), "score", values=run.weights[i], row_labels=labels)
    spans = np.zeros((run.n_entries, run.dims.tokens), dtype=int)
    for e, toks in enumerate(run.row_tokens):
        for j, s in enumerate(toks):
            if s >= 0:
                spans[e, s] = COMPRESSED if j < m else WINDOW
    lanes = (
        (Box("Z", (2 * m, c), values=run.Z_biased[i] - run.B, row_labels=labels), Op("+"),
         Box("B", (2 * m, c), "weight", values=run.B, note=t("a17.bias", lang)),
         Op("→", t("a17.softmax", lang, n=2 * m)), S),
        (S, Op("⊙"), Box("C", (2 * m, c), "kv", values=run.C_rows[i]),
         Op("→", t("a13.sum", lang)), Box("u", (1, c), values=run.pooled[i : i + 1]),
         Op("→", t("a13.norm", lang)), Box(t("a13.entry", lang), (1, c), "kv", cached=True,
                                            values=run.entries[i : i + 1],
                                            note=t("a13.rope", lang, r=run.dims.rope_dim, p=run.positions[i]))),
        (Box(t("a17.spans", lang), (run.n_entries, run.dims.tokens), values=spans,
             cells=tuple(tuple("a" if v == COMPRESSED else "b" if v == WINDOW else "" for v in row) for row in spans),
             palette=GRID_PALETTE, row_labels=tuple(t("a17.row", lang, e=e) for e in range(run.n_entries)),
             col_labels=tuple(str(s) for s in range(run.dims.tokens))),),
    )
    return Diagram(
        t("a17.title", lang), lanes, lane_labels=(t("a17.l1", lang, m=m), t("a13.l2", lang), t("a17.l3", lang)),
        captions=(t("a17.cap", lang, m=m),), lang=lang,
        subtitle=t("a17.sub", lang, m=m, seed=seed))


def _csa_scores(t_: int, ratio: int, topk: int, seed: int):
    return run_csa_indexer(CompressDims(tokens=max(3 * ratio, t_ + 1), ratio=ratio), topk=topk, seed=seed)


def build_a18(*, t_: int = 11, ratio: int = 4, topk: int = 2, seed: int = 0, lang: str = "ko") -> Diagram:
    """The CSA indexer: its own compressed keys, I[t, s] over completed blocks, top-k block numbers."""
    run = _csa_scores(t_, ratio, topk, seed)
    T, n = run.dims.tokens, run.K_icomp.shape[0]
    blocks = tuple(f"s{s} [{min(src)}–{max(src)}]" for s, src in enumerate(run.sources))
    chosen = np.where(run.selected, 1, 0)
    lanes = (
        (Box(sym("K", "IComp"), (n, run.index_dim), "index", values=run.K_icomp, row_labels=blocks,
             cached=True),),
        (Box("I", (T, n), "score", values=run.I, row_labels=tuple(f"t{q}" for q in range(T)),
             col_labels=tuple(f"s{s}" for s in range(n))),
         Op("→", f"top-{topk}"),
         Box(t("a18.chosen", lang), (T, n), values=chosen, palette=(GRID_PALETTE[0], GRID_PALETTE[1]),
             cells=tuple(tuple(f"s{s}" if v else "" for s, v in enumerate(row)) for row in chosen),
             col_labels=tuple(f"s{s}" for s in range(n)))),
    )
    picked = ", ".join(str(s) for s in np.flatnonzero(run.selected[t_]))
    return Diagram(
        t("a18.title", lang), lanes, lane_labels=(t("a18.l1", lang, m=ratio), t("a18.l2", lang)),
        captions=(t("a18.formula", lang), t("a18.cap", lang, t=t_, s=picked or "—")),
        lang=lang, subtitle=t("a18.sub", lang, seed=seed))


def build_a19(*, t_: int = 11, ratio: int = 4, topk: int = 2, window: int = 4, seed: int = NEWEST_SKIPPED_SEED,
              lang: str = "ko") -> Diagram:
    """What t actually reads: the indexer's top-k of the complete entries + the recent window.
    The default seed is one where the newest complete entry is not chosen."""
    run = _csa_scores(t_, ratio, topk, seed)
    scores = run.I[t_]
    every = visible_rows(t_, ratio, window, overlap=True)
    read = visible_rows(t_, ratio, window, overlap=True, topk=topk, scores=scores)
    skipped = tuple(r for r in every if r.kind == "compressed" and r not in read)
    n_complete = sum(r.kind == "compressed" for r in every)
    box = read_grid_box(t("a19.box", lang, t=t_, n=len(read)), read, t_, skipped=skipped)
    lanes = (
        (Box(t("a19.scores", lang), (1, n_complete), "index", values=scores[None, :n_complete],
             col_labels=tuple(f"C{s}" for s in range(n_complete))),
         Op("→", f"top-{topk}"), box),
    )
    return Diagram(
        t("a19.title", lang), lanes, lane_labels=(t("a19.l1", lang, c=n_complete, k=min(topk, n_complete)),),
        captions=(t("a19.cap", lang), t("a14.legend", lang)),
        subtitle=t("a19.sub", lang, t=t_, m=ratio, k=topk, w=window, seed=seed), lang=lang)
