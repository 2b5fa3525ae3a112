"""V3.2 · DSA: the bars with V3.2 highlighted (A7), what the lightning indexer makes (A8),
the score that picks tokens (A9), and MLA that keeps probability only on them (A10)."""

import streamlit as st

import ui
from core import ALL_BF16, storage_per_token
from core.mechanisms.indexer import selected_count
from core.units import fmt_exact
from i18n import t

v = ui.view()
L = v.lang


def note(*_) -> None:
    bf16 = {m: storage_per_token(m, ALL_BF16).total for m in ("v3.2", "v3")}
    st.info(t("dsa.note", L, g=f"{bf16['v3.2'] / bf16['v3'] - 1:.0%}", a=fmt_exact(bf16["v3.2"]),
              b=fmt_exact(bf16["v3"])))


ui.generation_top("v3.2", "dsa", ("storage", "read", "key_share"), "A7", notes=note)

st.header(t("dsa.indexer", L))
ui.chart("A8", lang=L, width="content")

st.header(t("dsa.pick", L))
knobs = ui.controls("A9", "tokens", "topk", "seed")
st.caption(t("dsa.rows", L, k=knobs["topk"], T=knobs["tokens"], n=selected_count(knobs["tokens"], knobs["topk"])))
ui.chart("A9", width="content", **knobs)
ui.chart("A10", width="content", **knobs)
