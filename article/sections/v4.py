"""V4-Flash · CSA/HCA: compression along the token axis (A11–A19)."""

from __future__ import annotations

from core import get
from core.summary import Summary
from core.units import fmt_bytes
from figures import FIGURES
from i18n import t

from ..blocks import Ask, Chart, Heading, Reading, Text
from .common import Blocks, generation_top


def v4_flash(v: Reading) -> Blocks:
    """The bars with V4-Flash highlighted (A11), the layer mix from the spec, HCA (A12–A15) and
    CSA (A16–A19) as computed by small seeded runs."""
    L = v.lang
    model = get("v4-flash")

    def reads(s: Summary, v: Reading) -> Blocks:
        yield Text(t("v4.mix", L, n=model.n_layers, mix=" + ".join(f"{n} {k}" for k, n in model.layer_counts.items()),
                     kv=fmt_bytes(s.read.kv, v.units), key=fmt_bytes(s.read.index_key, v.units)))

    yield from generation_top(model.id, "v4", ("storage", "ratio", "local", "read"), "A11", notes=reads,
                              csa=model.ratio("CSA"), hca=model.ratio("HCA"))
    yield Heading(t("v4.hca", L, m=model.ratio("HCA")))
    yield Chart("A12", dict(lang=L), "content")
    ratio, seed = yield Ask((FIGURES["A13"].knob("ratio"), FIGURES["A13"].knob("seed")))
    yield Chart("A13", dict(ratio=ratio, seed=seed, lang=L), "content")
    yield Heading(t("v4.visible", L), 3)
    step, window = yield Ask((FIGURES["A14"].knob("t_"), FIGURES["A14"].knob("window")))
    yield Chart("A14", dict(t_=step, ratio=ratio, window=window, lang=L), "content")
    yield Heading(t("v4.sink", L), 3)
    sink, = yield Ask((FIGURES["A15"].knob("sink"),))
    yield Chart("A15", dict(sink=sink, seed=seed, lang=L), "content")
    yield Heading(t("v4.csa", L))
    yield Chart("A16", dict(lang=L), "content")
    yield Chart("A17", dict(ratio=ratio, seed=seed, lang=L), "content")
    query, topk = yield Ask((FIGURES["A18"].knob("t_"), FIGURES["A18"].knob("topk")))
    yield Chart("A18", dict(t_=query, ratio=ratio, topk=topk, seed=seed, lang=L), "content")
    yield Chart("A19", dict(t_=query, ratio=ratio, topk=topk, window=window, lang=L), "content")
