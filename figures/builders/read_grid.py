"""Which source token each row a compressed-attention step reads holds (V4's CSA/HCA, article
B's summaries): a matrix box for figures/builders/v4.py and figures/builders/token_axis.py, from core's rows."""

from __future__ import annotations

import numpy as np

from core.mechanisms import read_grid

from ..matrix import Box

# Categories of a read grid: which kind of row holds a source token.
COMPRESSED, WINDOW, SKIPPED = 1, 2, 3  # 0: no row holds it
GRID_PALETTE = ("#ffffff", "#c7dbf7", "#fcdcae", "#e5e7eb")


def read_grid_box(title: str, rows, t_: int, *, skipped=(), names=("C", "w")) -> Box:
    """Rows read at t (compressed entries, then window positions) × source tokens 0…t, each
    cell named after the entry that holds the token; `skipped` rows are complete but unread."""
    all_rows = sorted([*rows, *skipped], key=lambda r: (r.kind != "compressed", r.index))
    kinds = np.array([SKIPPED if r in skipped else COMPRESSED if r.kind == "compressed" else WINDOW
                      for r in all_rows], dtype=int)
    grid = read_grid(all_rows, t_) * kinds[:, None]
    names_of = [f"{names[0] if r.kind == 'compressed' else names[1]}{r.index}" for r in all_rows]
    cells = tuple(tuple(name if held else "" for held in row) for name, row in zip(names_of, grid))
    labels = tuple(f"{name} [{min(r.sources)}–{max(r.sources)}]" if len(r.sources) > 1 else f"{name} [{r.sources[0]}]"
                   for name, r in zip(names_of, all_rows))
    return Box(title, (len(all_rows), t_ + 1), values=grid, cells=cells, palette=GRID_PALETTE, row_labels=labels,
               col_labels=tuple(str(s) for s in range(t_ + 1)))
