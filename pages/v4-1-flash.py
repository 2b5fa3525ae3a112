"""V4.1-Flash · CSA2/CED: the bars with V4.1-Flash highlighted (A20), CSA2 (A21, A22), layer
sharing (A23, A24), the hierarchical indexer (A25), CED (A26, A27), and what was reduced."""

import streamlit as st

import ui
from core import get
from core.units import fmt_bytes
from i18n import t

v = ui.view()
L = v.lang
model = get("v4.1-flash")


def reads(s, v) -> None:
    st.markdown(t("v41.reads", L, kv=fmt_bytes(s.read.kv, v.units), main=fmt_bytes(s.read.main_kv, v.units),
                  local=fmt_bytes(s.read.local_kv, v.units), key=fmt_bytes(s.read.index_key, v.units),
                  n=model.n_global))


s = ui.generation_top(model.id, "v41", ("storage", "ratio", "local", "read"), "A20", notes=reads)

st.header(t("v41.csa2", L))
ui.chart("A21", width="content", **ui.controls("A21", "ratio", "seed"))
ui.chart("A22", lang=L, width="content")

st.header(t("v41.sharing", L))
ui.chart("A23", lang=L, width="content")
ui.chart("A24", lang=L)

st.header(t("v41.hier", L))
ui.chart("A25", width="content", **ui.controls("A25", "tokens", "pool_blocks", "topk", "seed"))

st.header(t("v41.ced", L))
ui.chart("A26", lang=L, width="content")
ui.chart("A27", width="content", **ui.controls("A27", "prompt", "window"))
ui.chart("ced-ratio", lang=L)

st.header(t("v41.remains", L))
ui.chart("factors", lang=L)
# the article rounds the storage ratio to two significant digits: "1/4,400"
st.caption(t("v41.remains.cap", L, w=model.window, r=f"{round(s.ratio, -2):,.0f}"))
