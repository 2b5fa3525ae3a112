"""Which entries token t reads in a V4 layer (figures A14 and A19).

Token t reads the compressed entries whose block is complete at t, entries
0 … ⌊(t+1)/m⌋ − 1 (HCA: all of them; CSA: the top-k of them by the indexer's score), then
the local KV of the recent window, positions max(0, t − window + 1) … t (itself included).
A source token can sit both in a compressed entry and in a window row: the two are
different entries. Nothing read holds a token after t.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import int_at_least
from ..registry import get
from .compression import CSARun, HCARun, entry_count
from .ops import top_k

ARTICLE_WINDOW = get("v4-flash").window  # 128 recent positions of local KV
ARTICLE_TOPK = get("v4-flash").index_topk  # 512 compressed entries a CSA layer reads

KINDS = ("compressed", "window")


@dataclass(frozen=True, kw_only=True)
class Row:
    """One row token t reads: a compressed entry or one local-KV (window) position."""

    kind: str  # "compressed" | "window"
    index: int  # entry number (compressed) or token position (window)
    sources: tuple[int, ...]  # the source tokens the row holds
    position: int  # its RoPE position: the block/segment start, or the token itself


def visible_rows(t: int, ratio: int, window: int, *, overlap: bool = False, topk: int | None = None,
                 scores=None) -> tuple[Row, ...]:
    """The rows token t reads, compressed entries (in entry order) then window positions.

    overlap=False: HCA's blocks, entry i holds tokens i·m … (i+1)m − 1.
    overlap=True: CSA's spans, entry i holds (i−1)m … (i+1)m − 1 (clipped at 0).
    topk with scores [≥ complete entries]: only the top-k complete entries by score
    (ties to the lower entry), else all complete entries.
    """
    t, m, window = int_at_least("t", t, 0), int_at_least("ratio", ratio), int_at_least("window", window)
    if (topk is None) != (scores is None):
        raise ValueError("topk and scores go together (top-k needs the indexer's scores)")
    n = entry_count(t + 1, m)
    chosen = range(n)
    if topk is not None:
        scores = np.asarray(scores, dtype=np.float64)
        if scores.ndim != 1 or scores.shape[0] < n:
            raise ValueError(f"scores must be one score per entry, at least {n} at t = {t}; got shape {scores.shape}")
        chosen = np.flatnonzero(top_k(scores[:n], n, topk))
    rows = []
    for i in chosen:
        i = int(i)
        first = max(0, (i - 1) * m) if overlap else i * m
        rows.append(Row(kind="compressed", index=i, sources=tuple(range(first, (i + 1) * m)), position=i * m))
    for s in range(max(0, t - window + 1), t + 1):
        rows.append(Row(kind="window", index=s, sources=(s,), position=s))
    assert all(max(r.sources) <= t for r in rows), f"a row read at t = {t} holds a later token"
    return tuple(rows)


def read_grid(rows, t: int) -> np.ndarray:
    """[len(rows), t + 1] ints: 1 where the row holds that source token, else 0."""
    grid = np.zeros((len(rows), t + 1), dtype=np.int64)
    for r, row in enumerate(rows):
        grid[r, list(row.sources)] = 1
    return grid


def gather(run: HCARun | CSARun, t: int, window: int, *, topk: int | None = None,
           scores=None) -> tuple[np.ndarray, np.ndarray, tuple[Row, ...]]:
    """What attention reads at t from a compression run: E [N, c] (its visible entries,
    then E^win rows), their RoPE positions [N] and the rows. A CSARun uses CSA spans."""
    if not 0 <= t < run.dims.tokens:
        raise ValueError(f"t must be in 0..{run.dims.tokens - 1}, got {t}")
    rows = visible_rows(t, run.dims.ratio, window, overlap=isinstance(run, CSARun), topk=topk, scores=scores)
    E = np.stack([run.entries[r.index] if r.kind == "compressed" else run.E_win[r.index] for r in rows])
    return E, np.array([r.position for r in rows], dtype=np.int64), rows
