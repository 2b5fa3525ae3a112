"""The Overview: figure A1 (storage and reads), the numbers per model, the local/global crossover."""

from __future__ import annotations

from core import get
from core.summary import summarise
from core.units import fmt_ratio
from figures import FIGURES
from i18n import model_name, t

from ..blocks import Ask, Chart, Heading, Part, Reading, Table, Text, Title
from .common import Blocks, article_title, metrics


def overview(v: Reading) -> Blocks:
    """Figure A1 (storage and reads), the numbers per model, the local/global crossover."""
    L = v.lang
    a1 = FIGURES["A1"]
    yield Title(article_title(L))
    yield Text(t("ov.intro", L), "caption")
    models, highlight = yield Ask((a1.knob("models"), a1.knob("highlight")), widths=(3, 1))
    if not models:
        yield Text(t("ov.empty", L), "info")
        return
    models = tuple(dict.fromkeys(m for m in (*a1.knob("models").choices, *models) if m in models))  # catalogue order
    highlight = highlight if highlight in models else None

    def numbers(v: Reading) -> Blocks:
        """What the context moves: the highlighted model's numbers, A1, the table and its CSV."""
        rows = [summarise(m, v.context, v.precision) for m in models]
        s = next(r for r in rows if r.model.id == (highlight or models[-1]))
        yield metrics(s, v, ("storage", "cache", "read"))
        yield Chart("A1", dict(context=v.context, precision=v.precision, models=models, highlight=highlight, lang=L,
                               units=v.units))
        yield Heading(t("ov.table", L))
        columns = {
            t("col.model", L): [model_name(r.model.id, r.model.name, L) for r in rows],
            t("col.storage", L): [r.storage.total for r in rows],
            t("col.local", L): [r.local_kv for r in rows],
            t("col.cache", L): [r.cache.total for r in rows],
            t("col.read_kv", L): [r.read.kv for r in rows],
            t("col.read_key", L): [r.read.index_key for r in rows],
            t("col.read", L): [r.read.total for r in rows],
            t("col.ratio", L): [fmt_ratio(r.ratio) for r in rows],
            # a model without local KV has no crossover
            t("col.crossover", L): [f"{r.crossover_tokens:,}" if r.crossover_tokens else "—" for r in rows],
        }
        yield Table(columns, numbers=tuple(columns)[1:7], name=t("ov.table", L),
                    download=(t("ov.csv", L), f"kv-atlas-{v.context}-{v.precision.preset}.csv"))

    yield Part("overview-numbers", numbers)
    local = tuple(m for m in models if get(m).n_windowed)  # the models with local KV
    if local:
        # context=None: no "current N" line. The chart sits outside the part a context step
        # reruns, so a line there would go stale.
        yield Chart("crossover", dict(models=local, precision=v.precision, context=None, lang=L, units=v.units))
        yield Text(t("ov.crossover.note", L, w=get(local[0]).window), "caption")
