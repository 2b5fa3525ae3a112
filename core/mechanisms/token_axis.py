"""Article B: token-axis compression. The worked summary vector (B2) and what a query at
position t stores and reads when positions are summarised in groups (B3, B4).

Visibility comes from core.mechanisms.visibility (the same rule as A14): a summary exists once its
group is complete, ⌊(t+1)/m⌋ of them at position t, plus the recent window of positions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .compression import entry_count
from .ops import softmax
from .visibility import Row, visible_rows

# B2's worked example: h0 = [1, 0], h1 = [0, 1]; W_u rows [2, 0], [0, 4]; W_s rows [ln 3, 0], [0, ln 3].
ARTICLE_H = ((1.0, 0.0), (0.0, 1.0))
ARTICLE_W_U = ((2.0, 0.0), (0.0, 4.0))
ARTICLE_W_S = ((math.log(3), 0.0), (0.0, math.log(3)))
# B4's seeded indexer scores pick b1 and b5 among 8 summaries, as the article's example does.
ARTICLE_B4_SEED = 19
_STREAM = 0xB4


@dataclass(frozen=True, kw_only=True)
class SummaryRun:
    """One summary vector from n positions: U = H W_u, S = H W_s, A = softmax of S over the
    positions (per component, column-wise), c = Σ_positions U ⊙ A."""

    H: np.ndarray  # [n, d]
    W_u: np.ndarray  # [d, d′]  content projection
    W_s: np.ndarray  # [d, d′]  score projection
    U: np.ndarray  # [n, d′]
    S: np.ndarray  # [n, d′]
    A: np.ndarray  # [n, d′]   each column sums to 1
    c: np.ndarray  # [d′]


def run_summary(H, W_u, W_s) -> SummaryRun:
    H, W_u, W_s = (np.asarray(x, dtype=np.float64) for x in (H, W_u, W_s))
    for name, x in (("H", H), ("W_u", W_u), ("W_s", W_s)):
        if x.ndim != 2 or 0 in x.shape:
            raise ValueError(f"{name} must be a non-empty matrix")
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name} must hold finite numbers")
    if W_u.shape[0] != H.shape[1] or W_s.shape[0] != H.shape[1]:
        raise ValueError(f"W_u and W_s need {H.shape[1]} rows (one per component of H), "
                         f"got {W_u.shape[0]} and {W_s.shape[0]}")
    if W_u.shape != W_s.shape:
        raise ValueError(f"W_u and W_s must have the same shape, got {W_u.shape} and {W_s.shape}")
    U, S = H @ W_u, H @ W_s
    A = softmax(S, axis=0)
    return SummaryRun(H=H, W_u=W_u, W_s=W_s, U=U, S=S, A=A, c=(U * A).sum(axis=0))


def summary_scores(n: int, seed: int = ARTICLE_B4_SEED) -> np.ndarray:
    """Seeded indexer scores for n summaries (a stand-in for a trained indexer)."""
    return np.random.default_rng((seed, _STREAM)).standard_normal(n)


@dataclass(frozen=True, kw_only=True)
class ReadPlan:
    position: int
    group: int
    window: int
    topk: int | None
    stored: int  # complete summaries at this position: ⌊(t+1)/m⌋
    rows: tuple[Row, ...]  # what the query reads: chosen (or all) summaries, then the window

    @property
    def read(self) -> int:
        return len(self.rows)

    @property
    def summaries_read(self) -> int:
        return sum(r.kind == "compressed" for r in self.rows)


def read_plan(position: int, group: int, window: int, *, topk: int | None = None,
              seed: int = ARTICLE_B4_SEED) -> ReadPlan:
    """What position t stores and reads: summaries of complete groups (all, or the indexer's
    top-k), then the recent `window` positions including t."""
    stored = entry_count(position + 1, group)
    scores = summary_scores(max(stored, 1), seed) if topk is not None else None
    rows = visible_rows(position, group, window, topk=topk, scores=scores)
    return ReadPlan(position=position, group=group, window=window, topk=topk, stored=stored, rows=rows)
