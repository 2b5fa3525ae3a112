"""Article B figures B1–B4: width vs token-axis compression, the summary vector worked out,
completed summaries + recent positions, and compression combined with an indexer."""

from __future__ import annotations

import numpy as np

from core.mechanisms import ARTICLE_H, ARTICLE_W_S, ARTICLE_W_U, read_plan, run_summary
from i18n import t

from ..made import Incompatible
from ..matrix import Box, Diagram, Op
from .read_grid import GRID_PALETTE, read_grid_box


def _grid(title: str, rows: int, cols: int, labels, colour: int, role: str = "act") -> Box:
    return Box(title, (rows, cols), role, values=np.full((rows, cols), colour), palette=GRID_PALETTE[:3],
               cells=tuple(tuple("" for _ in range(cols)) for _ in range(rows)), row_labels=tuple(labels))


def build_b1(*, rows: int = 8, components: int = 4, group: int = 2, lang: str = "ko") -> Diagram:
    """Same start, two different reductions: fewer components per position vs fewer positions."""
    if rows < 1 or components < 2 or group < 1:
        raise Incompatible("need at least 1 row, 2 components and a group of 1")
    p = [f"p{i}" for i in range(rows)]
    n = rows // group
    merged = ["·".join(p[b * group:(b + 1) * group]) for b in range(n)]
    lanes = (
        (_grid(t("b1.in", lang), rows, components, p, 1), Op("→", t("b1.width", lang)),
         _grid(t("b1.narrow", lang), rows, components // 2, p, 1)),
        (_grid(t("b1.in", lang), rows, components, p, 1), Op("→", t("b1.tokens", lang, g=group)),
         _grid(t("b1.summary", lang), n, components, [f"b{b} = {m}" for b, m in enumerate(merged)], 2)),
    )
    return Diagram(
        t("b1.title", lang), lanes,
        lane_labels=(t("b1.left", lang, r=rows, c=components // 2), t("b1.right", lang, r=n, c=components)),
        captions=(t("b1.cap", lang),), subtitle=t("b1.sub", lang), lang=lang)


def build_b2(*, H=ARTICLE_H, W_u=ARTICLE_W_U, W_s=ARTICLE_W_S, lang: str = "ko") -> Diagram:
    """Two projections of the same positions, a softmax over positions per component, a weighted sum."""
    try:
        run = run_summary(H, W_u, W_s)
    except ValueError as e:  # the reader's matrices, whose shapes the run checks, do not go together
        raise Incompatible(str(e)) from e
    n, d = run.U.shape
    pos = tuple(f"h{i}" for i in range(n))
    lanes = (
        (Box("H", run.H.shape, values=run.H, row_labels=pos), Op("×"),
         Box(sym_sub("W", "u"), run.W_u.shape, "weight", values=run.W_u), Op("="),
         Box("U", (n, d), "kv", values=run.U, row_labels=pos)),
        (Box("H", run.H.shape, values=run.H, row_labels=pos), Op("×"),
         Box(sym_sub("W", "s"), run.W_s.shape, "weight", values=run.W_s), Op("="),
         Box("S", (n, d), "score", values=run.S, row_labels=pos), Op("→", t("b2.softmax", lang)),
         Box("A", (n, d), "score", values=run.A, row_labels=pos)),
        (Box("U", (n, d), "kv", values=run.U, row_labels=pos), Op("⊙"), Box("A", (n, d), "score", values=run.A),
         Op("→", t("b2.sum", lang)), Box(sym_sub("b", "0"), (1, d), "kv", values=run.c[None, :])),
    )
    return Diagram(
        t("b2.title", lang), lanes,
        lane_labels=(t("b2.l1", lang), t("b2.l2", lang), t("b2.l3", lang)),
        captions=(t("b2.cap", lang, c=", ".join(f"{v:g}" for v in np.round(run.c, 6))),),
        subtitle=t("b2.sub", lang), lang=lang)


def sym_sub(base: str, sub: str) -> str:
    return f"{base}<sub>{sub}</sub>"


def build_b3(*, position: int = 6, group: int = 2, window: int = 3, lang: str = "ko") -> Diagram:
    """What q_t reads: completed summaries (all of them) + the recent positions, at t and t + group."""
    lanes = []
    pending = read_plan(position, group, window).stored  # the next summary would reach into the future at q_t
    for tq in (position, position + group):
        plan = read_plan(tq, group, window)
        lanes.append((read_grid_box(t("b3.box", lang, t=tq, s=plan.summaries_read, w=plan.read - plan.summaries_read),
                                    plan.rows, tq, names=("b", "p")),))
    return Diagram(
        t("b3.title", lang), tuple(lanes), lane_labels=(f"q{position}", f"q{position + group}"),
        captions=(t("b3.cap", lang, b=pending, g=group), t("b3.legend", lang)),
        subtitle=t("b3.sub", lang, g=group, w=window), lang=lang)


def build_b4(*, position: int = 16, groups: tuple[int, int] = (2, 4), topk: int = 2, window: int = 3,
             lang: str = "ko") -> Diagram:
    """Two paths at one position: small groups + an indexer's top-k, or larger groups all read."""
    (g1, g2) = groups
    left = read_plan(position, g1, window, topk=topk)
    right = read_plan(position, g2, window)
    every = read_plan(position, g1, window)
    skipped = tuple(r for r in every.rows if r.kind == "compressed" and r not in left.rows)
    lanes = (
        (read_grid_box(t("b4.box", lang, s=left.stored, r=left.read), left.rows, position, skipped=skipped,
                       names=("b", "p")),),
        (read_grid_box(t("b4.box", lang, s=right.stored, r=right.read), right.rows, position, names=("b", "p")),),
    )
    return Diagram(
        t("b4.title", lang), lanes,
        lane_labels=(t("b4.left", lang, g=g1, n=left.stored, k=topk), t("b4.right", lang, g=g2, n=right.stored)),
        captions=(t("b4.cap", lang), t("b3.legend", lang)), subtitle=t("b4.sub", lang, t=position, w=window),
        lang=lang)
