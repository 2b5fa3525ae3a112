"""V4.1-Flash · CSA2/CED: layers share global KV (A20–A27)."""

from __future__ import annotations

from core import get
from core.summary import Summary
from core.units import fmt_bytes
from i18n import t

from ..blocks import Chart, Heading, Reading, Text
from .common import Blocks, controls, generation_top


def v41_flash(v: Reading) -> Blocks:
    """The bars with V4.1-Flash highlighted (A20), CSA2 (A21, A22), layer sharing (A23, A24), the
    hierarchical indexer (A25), CED (A26, A27), and what was reduced."""
    L = v.lang
    model = get("v4.1-flash")

    def reads(s: Summary, v: Reading) -> Blocks:
        yield Text(t("v41.reads", L, kv=fmt_bytes(s.read.kv, v.units), main=fmt_bytes(s.read.main_kv, v.units),
                     local=fmt_bytes(s.read.local_kv, v.units), key=fmt_bytes(s.read.index_key, v.units),
                     n=model.n_global))

    s = yield from generation_top(model.id, "v41", ("storage", "ratio", "local", "read"), "A20", notes=reads)
    yield Heading(t("v41.csa2", L))
    yield Chart("A21", (yield from controls("A21", "ratio", "seed", lang=L)), "content")
    yield Chart("A22", dict(lang=L), "content")
    yield Heading(t("v41.sharing", L))
    yield Chart("A23", dict(lang=L), "content")
    yield Chart("A24", dict(lang=L))
    yield Heading(t("v41.hier", L))
    yield Chart("A25", (yield from controls("A25", "tokens", "pool_blocks", "topk", "seed", lang=L)), "content")
    yield Heading(t("v41.ced", L))
    yield Chart("A26", dict(lang=L), "content")
    yield Chart("A27", (yield from controls("A27", "prompt", "window", lang=L)), "content")
    yield Chart("ced-ratio", dict(lang=L))
    yield Heading(t("v41.remains", L))
    yield Chart("factors", dict(lang=L))
    # the article rounds the storage ratio to two significant digits: "1/4,400"
    yield Text(t("v41.remains.cap", L, w=model.window, r=f"{round(s.ratio, -2):,.0f}"), "caption")
