"""V3.2 · DSA: the lightning indexer picks the positions read (A7–A10)."""

from __future__ import annotations

from core import ALL_BF16, storage_per_token
from core.mechanisms.indexer import selected_count
from core.units import fmt_exact
from i18n import t

from ..blocks import Chart, Heading, Reading, Text
from .common import Blocks, controls, generation_top


def v32_dsa(v: Reading) -> Blocks:
    """The bars with V3.2 highlighted (A7), what the lightning indexer makes (A8), the score that
    picks tokens (A9), and MLA that keeps probability only on them (A10)."""
    L = v.lang

    def note(*_) -> Blocks:
        bf16 = {m: storage_per_token(m, ALL_BF16).total for m in ("v3.2", "v3")}
        yield Text(t("dsa.note", L, g=f"{bf16['v3.2'] / bf16['v3'] - 1:.0%}", a=fmt_exact(bf16["v3.2"]),
                     b=fmt_exact(bf16["v3"])), "info")

    yield from generation_top("v3.2", "dsa", ("storage", "read", "key_share"), "A7", notes=note)
    yield Heading(t("dsa.indexer", L))
    yield Chart("A8", dict(lang=L), "content")
    yield Heading(t("dsa.pick", L))
    knobs = yield from controls("A9", "tokens", "topk", "seed", lang=L)
    yield Text(t("dsa.rows", L, k=knobs["topk"], T=knobs["tokens"], n=selected_count(knobs["tokens"], knobs["topk"])),
               "caption")
    yield Chart("A9", knobs, "content")
    yield Chart("A10", knobs, "content")
