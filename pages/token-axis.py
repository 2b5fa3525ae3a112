"""Article B: token-axis compression, B1–B4 in article order."""

import streamlit as st

import ui
from core.mechanisms.token_axis import read_plan
from figures import FIGURES
from i18n import t

v = ui.view()
L = v.lang

st.title(t("tb.title", L))
st.caption(t("tb.intro", L))

st.header(t("tb.b1", L))
ui.chart("B1", width="content", **ui.controls("B1", "rows", "components", "group"))

st.header(t("tb.b2", L))
st.caption(t("tb.b2.help", L))
matrices = ui.controls("B2", "H", "W_u", "W_s")
if None not in matrices.values():
    try:
        ui.chart("B2", width="content", **matrices)
    except ValueError as e:  # shapes that do not fit together, e.g. W_u with the wrong number of rows
        st.error(t("tb.error", L, e=e))

st.header(t("tb.b3", L))
b3 = ui.controls("B3", "position", "group", "window")
ui.chart("B3", width="content", **b3)

st.header(t("tb.b4", L))
b4 = FIGURES["B4"]
c = st.columns(4)
position = ui.control(b4.knob("position"), c[0])
groups = ui.control(b4.knob("groups"), c[1:3])
topk = ui.control(b4.knob("topk"), c[3])
m = st.columns(2)
for col, g, k in ((m[0], groups[0], topk), (m[1], groups[1], None)):
    plan = read_plan(position, g, b3["window"], topk=k)
    col.metric(t("tb.m.stored", L, g=g), f"{plan.stored} / {plan.read}")
ui.chart("B4", position=position, groups=groups, topk=topk, window=b3["window"], lang=L, width="content")
