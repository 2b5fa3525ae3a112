"""The RoPE figure (V2): two vectors turned by their positions score by their distance alone, and a
content key turned by RoPE cannot be absorbed into the query (core.mechanisms.rope).

A matrix diagram: ① q turned by t against k turned by s, one number on each diagonal; ② q turned
by the distance t − s against k as it is, the same numbers once each; ③ one MLA head's content
score with its key turned; ④ the same with one absorbed query per row, right only at s = 0.
Scores are drawn for s ≤ t, the pairs a query reads.
"""

from __future__ import annotations

import math

import numpy as np

from core.mechanisms import run_rope, turns
from i18n import t

from ..matrix import Box, Diagram, Op
from .mla import sym


def _causal(values: np.ndarray, fmt: str = "{:.2f}") -> dict:
    """A score box's values for s ≤ t, the cells above the diagonal left empty."""
    keep = np.tri(len(values), dtype=bool)
    shown = np.where(keep, values, np.nan)
    cells = tuple(tuple(fmt.format(v).replace("-", "−") if k else "" for v, k in zip(row, mask))
                  for row, mask in zip(values, keep))
    return dict(values=shown, cells=cells)


def build_rope(*, seed: int = 0, tokens: int = 6, lang: str = "ko") -> Diagram:
    """RoPE on a small seeded run: the score of two turned vectors depends on t − s only, and a
    turned content key leaves no single absorbed query."""
    run = run_rope(tokens, seed)
    T, d = run.tokens, run.width
    dk, rkv = run.turned_queries.shape[1], run.Q_hat.shape[1]
    pos = tuple(str(i) for i in range(T))
    score = dict(row_labels=pos, col_labels=pos)
    lanes = (
        (Box("RoPE(q, t)", (T, d)), Op("×"), Box("RoPE(k, s)<sup>T</sup>", (d, T), "kv"), Op("="),
         Box("S", (T, T), "score", **_causal(run.S), **score)),
        (Box("RoPE(q, t − s)", (T, d)), Op("×"), Box("k<sup>T</sup>", (d, 1), "kv"), Op("="),
         Box(t("rope.by_distance", lang), (T, 1), "score", values=run.by_distance[:, None],
             row_labels=tuple(f"t − s = {i}" for i in range(T)))),
        (Box(f"RoPE({sym('Q', 'C', 'h')}, t)", (T, dk)), Op("×"),
         Box(f"RoPE({sym('C', 'KV')}{sym('W', 'UK', 'h')}, s)<sup>T</sup>", (dk, T), "kv",
             note=t("rope.turned_keys", lang)), Op("="),
         Box(sym("S", "C", "h"), (T, T), "score", **_causal(run.S_turned), **score)),
        (Box("Q̂<sub>h</sub>", (T, rkv), note=t("rope.qhat", lang)), Op("×"),
         Box(sym("C", "KV", t_=True), (rkv, T), "kv", cached=True), Op("="),
         Box("Q̂<sub>h</sub>(C<sup>KV</sup>)<sup>T</sup>", (T, T), "score", **_causal(run.S_absorbed), **score)),
    )
    last = T - 1
    return Diagram(
        t("rope.title", lang), lanes,
        lane_labels=(t("rope.l1", lang), t("rope.l2", lang), t("rope.l3", lang), t("rope.l4", lang)),
        captions=(
            t("rope.cap.dist", lang, t=last, s=last - 1, v=f"{run.S[last, last - 1]:.2f}".replace("-", "−"),
              d=f"{run.distance_error:.1e}"),
            t("rope.cap.absorb", lang, d=f"{run.absorbed_error:.2f}"),
        ),
        lang=lang,
        subtitle=t("rope.sub", lang, w=d, deg=f"{math.degrees(turns(d)[0]):.0f}", seed=seed))
