"""Overview: figure A1 (storage and reads), the numbers per model, the local/global crossover."""

import pandas as pd
import streamlit as st

import ui
from core import get
from core.summary import summarise
from core.units import fmt_ratio
from figures import FIGURES
from i18n import model_name, t
from publish.catalogue import article_title

v = ui.view()
L = v.lang
a1 = FIGURES["A1"]

st.title(article_title(L))
st.caption(t("ov.intro", L))

c1, c2 = st.columns([3, 1])
models = ui.model_picker(a1.knob("models"), c1)
highlight = ui.control(a1.knob("highlight"), c2)
if not models:
    st.info(t("ov.empty", L))
    st.stop()
models = tuple(m for m in (*a1.knob("models").choices, *ui.imported_models()) if m in models)  # catalogue order
highlight = highlight if highlight in models else None


@ui.follows_context("overview-numbers")
def numbers(models: tuple, highlight: str | None) -> None:
    """What the context moves: the highlighted model's numbers, A1, the table and its CSV."""
    v = ui.view()
    rows = [summarise(m, v.context, v.precision) for m in models]
    s = next(r for r in rows if r.model.id == (highlight or models[-1]))

    ui.metrics(s, v, ("storage", "cache", "read"))
    ui.chart("A1", context=v.context, precision=v.precision, models=models, highlight=highlight, lang=L, units=v.units)

    st.header(t("ov.table", L))
    table = pd.DataFrame({
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
    })
    st.dataframe(table, hide_index=True, width="stretch",
                 column_config={c: st.column_config.NumberColumn(format="localized") for c in table.columns[1:7]})
    st.download_button(t("ov.csv", L), table.to_csv(index=False).encode("utf-8"),
                       file_name=f"kv-atlas-{v.context}-{v.precision.preset}.csv", mime="text/csv")


numbers(models, highlight)

local = tuple(m for m in models if get(m).n_windowed)  # the models with local KV
if local:
    # context=None: no "current N" line. The chart sits outside the fragment a context step
    # reruns, so a line there would go stale.
    ui.chart("crossover", models=local, precision=v.precision, context=None, lang=L, units=v.units)
    st.caption(t("ov.crossover.note", L, w=get(local[0]).window))
