"""V4-Flash · CSA/HCA: the bars with V4-Flash highlighted (A11), the layer mix from the spec,
HCA (A12–A15) and CSA (A16–A19) as computed by small seeded runs."""

from collections import Counter

import streamlit as st

import ui
from core import crossover_tokens, get
from core.units import fmt_bytes
from figures.i18n import t

v = ui.view()
L = v.lang
model = get("v4-flash")

s = ui.generation_header("v4-flash", "v4", ("storage", "ratio", "local", "read"))
kinds = Counter(ly.kind for ly in model.layers)
st.markdown(t("v4.mix", L, n=model.n_layers, mix=" + ".join(f"{kinds[k]} {k}" for k in ("SWA", "CSA", "HCA")),
              kv=fmt_bytes(s.read.kv, v.units), key=fmt_bytes(s.read.index_key, v.units)))
st.info(t("v4.crossover", L, n=f"{crossover_tokens(model, v.precision):,}", local=fmt_bytes(s.local_kv, v.units)))
ui.generation_chart("A11")

st.header(t("v4.hca", L))
ui.chart("A12", lang=L, width="content")
c = st.columns(2)
ratio = c[0].slider("m′", 1, 8, 4, key="m", bind="query-params", help=t("v4.ctl.m", L))
seed = c[1].number_input(t("ctl.seed", L), 0, 9999, 0, key="seed", bind="query-params")
ui.chart("A13", ratio=ratio, seed=seed, lang=L, width="content")

st.subheader(t("v4.visible", L))
c = st.columns(2)
step = c[0].slider("t", 0, 30, 6, key="t", bind="query-params", help=t("v4.ctl.t", L))
window = c[1].slider(t("v4.ctl.window", L), 1, 8, 4, key="win", bind="query-params")
ui.chart("A14", t_=step, ratio=ratio, window=window, lang=L, width="content")

st.subheader(t("v4.sink", L))
sink = st.slider(t("v4.ctl.sink", L), -4.0, 4.0, 0.0, 0.5, key="sink", bind="query-params")
ui.chart("A15", sink=sink, seed=seed, lang=L, width="content")

st.header(t("v4.csa", L))
ui.chart("A16", lang=L, width="content")
ui.chart("A17", ratio=ratio, seed=seed, lang=L, width="content")
c = st.columns(2)
query = c[0].slider(t("v4.ctl.query", L), 0, 30, 11, key="tq", bind="query-params")
topk = c[1].slider("k", 1, 8, 2, key="k", bind="query-params", help=t("v4.ctl.k", L))
ui.chart("A18", t_=query, ratio=ratio, topk=topk, seed=seed, lang=L, width="content")
ui.chart("A19", t_=query, ratio=ratio, topk=topk, window=window, lang=L, width="content")
