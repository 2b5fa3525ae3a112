"""V3.2 · DSA: the bars with V3.2 highlighted (A7), what the lightning indexer makes (A8),
the score that picks tokens (A9), and MLA that keeps probability only on them (A10)."""

import streamlit as st

import ui
from core import ALL_BF16, storage_per_token
from core.indexer import selected_count
from core.units import fmt_exact
from figures.i18n import t

v = ui.view()
L = v.lang

s = ui.generation_header("v3.2", "dsa", ("storage", "read", "key_share"))
growth = storage_per_token("v3.2", ALL_BF16).total / storage_per_token("v3", ALL_BF16).total - 1
st.info(t("dsa.note", L, g=f"{growth:.0%}", a=fmt_exact(storage_per_token("v3.2", ALL_BF16).total),
          b=fmt_exact(storage_per_token("v3", ALL_BF16).total)))
ui.generation_chart("A7")

st.header(t("dsa.indexer", L))
ui.chart("A8", lang=L, width="content")

st.header(t("dsa.pick", L))
c = st.columns(3)
tokens = c[0].slider("T", 2, 10, 6, key="T", bind="query-params", help=t("ctl.tokens", L))
topk = c[1].slider("k", 1, 12, 3, key="k", bind="query-params", help=t("ctl.topk", L))
seed = c[2].number_input(t("ctl.seed", L), 0, 9999, 0, key="seed", bind="query-params")
st.caption(t("dsa.rows", L, k=topk, T=tokens, n=selected_count(tokens, topk)))
ui.chart("A9", tokens=tokens, topk=topk, seed=seed, lang=L, width="content")
ui.chart("A10", tokens=tokens, topk=topk, seed=seed, lang=L, width="content")
