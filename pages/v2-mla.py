"""V2 · MLA: the bars with V2 highlighted (A2), the three paths (A3), the two scores (A4),
the computation orders that avoid expanding keys and values (A5, A6), and their cost."""

import streamlit as st

import ui
from core.mechanisms.mla import MLADims, content_score_orders, output_orders, run_mla
from i18n import t

v = ui.view()
L = v.lang

ui.generation_top("v2", "v2", ("storage", "ratio", "read"), "A2")

st.header(t("v2.paths", L))
ui.chart("A3", lang=L, width="content")
ui.chart("A4", lang=L, width="content")

st.header(t("v2.absorb", L))
st.caption(t("v2.absorb.intro", L))
knobs = ui.controls("A5", "seed", "tokens", "kv_lora_rank", "qk_nope_head_dim", "calc")

run = run_mla(MLADims(tokens=knobs["tokens"], kv_lora_rank=knobs["kv_lora_rank"],
                      qk_nope_head_dim=knobs["qk_nope_head_dim"]), knobs["seed"])
calc = knobs["calc"]
d1, d2 = st.columns(2)
d1.metric(t("v2.m.score_diff", L, p=calc.upper()), f"{content_score_orders(run, 0, calc).max_abs_diff:.1e}")
d2.metric(t("v2.m.out_diff", L, p=calc.upper()), f"{output_orders(run, 0, calc).max_abs_diff:.1e}")
ui.chart("A5", width="content", **knobs)
ui.chart("A6", width="content", **knobs)

st.header(t("v2.cost", L))
st.caption(t("v2.cost.intro", L))
ui.chart("mla-cost", lang=L)
