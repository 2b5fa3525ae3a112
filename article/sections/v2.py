"""V2 · MLA: a narrower stored vector (A2–A6 and the cost of each computation order)."""

from __future__ import annotations

from core.mechanisms.mla import MLADims, content_score_orders, output_orders, run_mla
from i18n import t

from ..blocks import Chart, Heading, Metrics, Reading, Text
from .common import Blocks, controls, generation_top


def v2_mla(v: Reading) -> Blocks:
    """The bars with V2 highlighted (A2), the three paths (A3), the two scores (A4), the computation
    orders that avoid expanding keys and values (A5, A6), and their cost."""
    L = v.lang
    yield from generation_top("v2", "v2", ("storage", "ratio", "read"), "A2")
    yield Heading(t("v2.paths", L))
    yield Chart("A3", dict(lang=L), "content")
    yield Chart("A4", dict(lang=L), "content")
    yield Heading(t("v2.absorb", L))
    yield Text(t("v2.absorb.intro", L), "caption")
    knobs = yield from controls("A5", "seed", "tokens", "kv_lora_rank", "qk_nope_head_dim", "calc", lang=L)
    run = run_mla(MLADims(tokens=knobs["tokens"], kv_lora_rank=knobs["kv_lora_rank"],
                          qk_nope_head_dim=knobs["qk_nope_head_dim"]), knobs["seed"])
    calc = knobs["calc"]
    yield Metrics(((t("v2.m.score_diff", L, p=calc.upper()), f"{content_score_orders(run, 0, calc).max_abs_diff:.1e}"),
                   (t("v2.m.out_diff", L, p=calc.upper()), f"{output_orders(run, 0, calc).max_abs_diff:.1e}")))
    yield Chart("A5", knobs, "content")
    yield Chart("A6", knobs, "content")
    yield Heading(t("v2.cost", L))
    yield Text(t("v2.cost.intro", L), "caption")
    yield Chart("mla-cost", dict(lang=L))
