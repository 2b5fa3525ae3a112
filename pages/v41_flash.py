"""V4.1-Flash · CSA2/CED: the bars with V4.1-Flash highlighted (A20), CSA2 (A21, A22), layer
sharing (A23, A24), the hierarchical indexer (A25), CED (A26, A27), and what was reduced."""

import streamlit as st

import ui
from core import crossover_tokens, get
from core.sharing import layer_roles
from core.units import fmt_bytes
from figures.i18n import t

v = ui.view()
L = v.lang
model = get("v4.1-flash")

s = ui.generation_header(model.id, "v41", ("storage", "ratio", "local", "read"))
roles = layer_roles(model)
st.markdown(t("v41.reads", L, kv=fmt_bytes(s.read.kv, v.units), main=fmt_bytes(s.read.main_kv, v.units),
              local=fmt_bytes(s.read.local_kv, v.units), key=fmt_bytes(s.read.index_key, v.units),
              n=sum(r.stores_global for r in roles)))
st.info(t("v4.crossover", L, n=f"{crossover_tokens(model, v.precision):,}", local=fmt_bytes(s.local_kv, v.units)))
ui.generation_chart("A20")

st.header(t("v41.csa2", L))
c = st.columns(2)
ratio = c[0].slider("m", 1, 8, 4, key="m", bind="query-params", help=t("v41.ctl.m", L))
seed = c[1].number_input(t("ctl.seed", L), 0, 9999, 0, key="seed", bind="query-params")
ui.chart("A21", ratio=ratio, seed=seed, lang=L, width="content")
ui.chart("A22", lang=L, width="content")

st.header(t("v41.sharing", L))
ui.chart("A23", lang=L, width="content")
ui.chart("A24", lang=L)

st.header(t("v41.hier", L))
c = st.columns(4)
tokens = c[0].slider(t("v41.ctl.tokens", L), 8, 40, 24, key="T", bind="query-params")
pool = c[1].slider(t("v41.ctl.pool", L), 1, 5, 2, key="pool", bind="query-params")
topk = c[2].slider("k", 1, 12, 4, key="k", bind="query-params")
# seed 5 shows Full's own top-k reaching outside the pool, as the article notes
hseed = c[3].number_input(t("ctl.seed", L), 0, 9999, 5, key="hseed", bind="query-params")
ui.chart("A25", tokens=tokens, pool_blocks=pool, topk=topk, seed=hseed, lang=L, width="content")

st.header(t("v41.ced", L))
ui.chart("A26", lang=L, width="content")
c = st.columns(2)
prompt = c[0].slider(t("v41.ctl.prompt", L), 1, 16, 8, key="prompt", bind="query-params")
window = c[1].slider(t("v4.ctl.window", L), 1, 8, 2, key="win", bind="query-params")
ui.chart("A27", prompt=prompt, window=window, lang=L, width="content")
ui.chart("ced-ratio", lang=L)

st.header(t("v41.remains", L))
ui.chart("factors", lang=L)
st.caption(t("v41.remains.cap", L))
