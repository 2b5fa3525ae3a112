"""V4-Flash · CSA/HCA: the bars with V4-Flash highlighted (A11), the layer mix from the spec,
HCA (A12–A15) and CSA (A16–A19) as computed by small seeded runs."""

import streamlit as st

import ui
from core import get
from core.units import fmt_bytes
from figures import FIGURES
from i18n import t

v = ui.view()
L = v.lang
model = get("v4-flash")


def reads(s, v) -> None:
    st.markdown(t("v4.mix", L, n=model.n_layers, mix=" + ".join(f"{n} {k}" for k, n in model.layer_counts.items()),
                  kv=fmt_bytes(s.read.kv, v.units), key=fmt_bytes(s.read.index_key, v.units)))


ui.generation_top(model.id, "v4", ("storage", "ratio", "local", "read"), "A11", notes=reads, csa=model.ratio("CSA"),
                  hca=model.ratio("HCA"))

st.header(t("v4.hca", L, m=model.ratio("HCA")))
ui.chart("A12", lang=L, width="content")
c = st.columns(2)
ratio, seed = ui.control(FIGURES["A13"].knob("ratio"), c[0]), ui.control(FIGURES["A13"].knob("seed"), c[1])
ui.chart("A13", ratio=ratio, seed=seed, lang=L, width="content")

st.subheader(t("v4.visible", L))
c = st.columns(2)
step, window = ui.control(FIGURES["A14"].knob("t_"), c[0]), ui.control(FIGURES["A14"].knob("window"), c[1])
ui.chart("A14", t_=step, ratio=ratio, window=window, lang=L, width="content")

st.subheader(t("v4.sink", L))
sink = ui.control(FIGURES["A15"].knob("sink"))
ui.chart("A15", sink=sink, seed=seed, lang=L, width="content")

st.header(t("v4.csa", L))
ui.chart("A16", lang=L, width="content")
ui.chart("A17", ratio=ratio, seed=seed, lang=L, width="content")
c = st.columns(2)
query, topk = ui.control(FIGURES["A18"].knob("t_"), c[0]), ui.control(FIGURES["A18"].knob("topk"), c[1])
ui.chart("A18", t_=query, ratio=ratio, topk=topk, seed=seed, lang=L, width="content")
ui.chart("A19", t_=query, ratio=ratio, topk=topk, window=window, lang=L, width="content")
