"""Article B: token-axis compression, B1–B4 in article order."""

import streamlit as st

import ui
from core.token_axis import ARTICLE_H, ARTICLE_W_S, ARTICLE_W_U, read_plan
from figures.i18n import t

v = ui.view()
L = v.lang

st.title(t("tb.title", L))
st.caption(t("tb.intro", L))

st.header(t("tb.b1", L))
c = st.columns(3)
rows = c[0].slider(t("tb.rows", L), 2, 16, 8, key="rows", bind="query-params")
components = c[1].slider(t("tb.components", L), 2, 8, 4, step=2, key="comp", bind="query-params")
group = c[2].slider(t("tb.group", L), 1, 4, 2, key="g", bind="query-params")
ui.chart("B1", rows=rows, components=components, group=group, lang=L, width="content")

st.header(t("tb.b2", L))
st.caption(t("tb.b2.help", L))


c = st.columns(3)
texts = {name: c[i].text_input(name, ui.format_matrix(default), key=key)
         for i, (name, default, key) in enumerate((("H", ARTICLE_H, "H"), ("W_u", ARTICLE_W_U, "Wu"),
                                                   ("W_s", ARTICLE_W_S, "Ws")))}
try:
    H, W_u, W_s = (tuple(map(tuple, ui.parse_matrix(texts[n], n))) for n in ("H", "W_u", "W_s"))
    ui.chart("B2", H=H, W_u=W_u, W_s=W_s, lang=L, width="content")
except ValueError as e:
    st.error(t("tb.error", L, e=e))

st.header(t("tb.b3", L))
c = st.columns(3)
position = c[0].slider(t("tb.position", L), 0, 24, 6, key="p", bind="query-params")
g3 = c[1].slider(t("tb.group", L), 1, 4, 2, key="g3", bind="query-params")
window = c[2].slider(t("tb.window", L), 1, 6, 3, key="w", bind="query-params")
ui.chart("B3", position=position, group=g3, window=window, lang=L, width="content")

st.header(t("tb.b4", L))
c = st.columns(4)
p4 = c[0].slider(t("tb.position", L), 1, 32, 16, key="p4", bind="query-params")
small = c[1].slider(t("tb.group", L) + " ①", 1, 8, 2, key="g1", bind="query-params")
large = c[2].slider(t("tb.group", L) + " ②", 1, 8, 4, key="g2", bind="query-params")
topk = c[3].slider(t("tb.k", L), 1, 8, 2, key="k", bind="query-params")
m = st.columns(2)
for col, g, k in ((m[0], small, topk), (m[1], large, None)):
    plan = read_plan(p4, g, window, topk=k)
    col.metric(t("tb.m.stored", L, g=g), f"{plan.stored} / {plan.read}")
ui.chart("B4", position=p4, groups=(small, large), topk=topk, window=window, lang=L, width="content")
