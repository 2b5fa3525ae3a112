"""Article B: token-axis compression (B1–B4)."""

from __future__ import annotations

from core.mechanisms.token_axis import read_plan, summarize
from figures import FIGURES
from i18n import t

from ..blocks import Ask, Chart, Heading, Metrics, Reading, Text, Title
from .common import Blocks, controls


def token_axis(v: Reading) -> Blocks:
    """Article B: token-axis compression, B1–B4 in article order."""
    L = v.lang
    yield Title(t("tb.title", L))
    yield Text(t("tb.intro", L), "caption")
    yield Heading(t("tb.b1", L))
    yield Chart("B1", (yield from controls("B1", "rows", "components", "group", lang=L)), "content")
    yield Heading(t("tb.b2", L))
    yield Text(t("tb.b2.help", L), "caption")
    matrices = yield from controls("B2", "H", "W_u", "W_s", lang=L)
    if None not in matrices.values():  # a matrix that does not parse says so by its control
        try:
            summarize(matrices["H"], matrices["W_u"], matrices["W_s"])
        except ValueError as e:  # shapes that do not fit together, e.g. W_u with the wrong number of rows
            yield Text(t("tb.error", L, e=e), "error")
        else:
            yield Chart("B2", matrices, "content")
    yield Heading(t("tb.b3", L))
    b3 = yield from controls("B3", "position", "group", "window", lang=L)
    yield Chart("B3", b3, "content")
    yield Heading(t("tb.b4", L))
    b4 = FIGURES["B4"]
    position, groups, topk = yield Ask((b4.knob("position"), b4.knob("groups"), b4.knob("topk")))
    plans = [(g, read_plan(position, g, b3["window"], topk=k)) for g, k in ((groups[0], topk), (groups[1], None))]
    yield Metrics(tuple((t("tb.m.stored", L, g=g), f"{plan.stored} / {plan.read}") for g, plan in plans))
    yield Chart("B4", dict(position=position, groups=groups, topk=topk, window=b3["window"], lang=L), "content")
