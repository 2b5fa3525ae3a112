"""Beyond the article: any model's KV cache (open presets and a config.json of your own), how
many requests fit on a GPU node, the decode read floor, and why other sources' numbers differ."""

import pandas as pd
import streamlit as st

import ui
from core import get
from core.config_import import ConfigError, import_config, read_config
from core.open_models import OPEN_IMPORTS
from core.summary import summarise
from core.units import fmt_tokens
from core.variants import SGLANG_PAGE_TOKENS, VARIANTS
from figures import EXTRAS
from figures.reconcile import variant_name
from i18n import model_name, t

v = ui.view()
L = v.lang
capacity = EXTRAS["capacity"]

st.title(t("by.title", L))
st.caption(t("by.intro", L))

# --- a config.json of your own ------------------------------------------------------------


def config_name(raw: bytes, file_name: str) -> str:
    """What to call an imported model: its file's name, else the config's own path, else "custom"."""
    if file_name:
        return file_name.removesuffix(".json")[:60]
    try:
        path = read_config(raw).get("_name_or_path")
    except ConfigError:
        return "custom"  # the import that follows says what is wrong
    return str(path).rstrip("/").rsplit("/", 1)[-1][:60] if path else "custom"


imported = ui.imported_models()
with st.expander(t("by.import", L), expanded=bool(imported)):
    c = st.columns(2)
    upload = c[0].file_uploader(t("by.upload", L), type=["json"], key="cfg_file")
    pasted = c[1].text_area(t("by.paste", L), key="cfg_text", height=120)
    raw = upload.getvalue() if upload else pasted.encode() if pasted.strip() else None
    if raw:
        try:
            found = import_config(raw, name=config_name(raw, upload.name if upload else ""))
        except ConfigError as e:
            st.error(t("by.bad", L, e=e))
        else:
            ui.remember_import(found)
            st.success(t("by.detected", L, name=found.model.name, design=found.design))
            st.dataframe(pd.DataFrame(
                [(t("by.used", L), k, str(val)) for k, val in found.used.items()]
                + [(t("by.defaulted", L), k, f"{val} ({src})") for k, (val, src) in found.defaulted.items()]
                + [(t("by.ignored", L), k, "") for k in found.ignored], columns=["", "field", "value"]),
                hide_index=True, width="stretch")
            for note in found.notes:
                st.caption(note)

# --- models -------------------------------------------------------------------------------
models = ui.model_picker(capacity.knob("models"))
if not models:
    st.info(t("ov.empty", L))
    st.stop()


def design(model_id: str) -> str:
    found = imported.get(model_id) or OPEN_IMPORTS.get(model_id)
    return found.design if found else " + ".join(get(model_id).layer_counts)


st.header(t("by.table", L, n=fmt_tokens(v.context)))
rows = [summarise(m, v.context, v.precision) for m in models]
st.dataframe(pd.DataFrame({
    t("col.model", L): [model_name(r.model.id, r.model.name, L) for r in rows],
    t("col.design", L): [design(r.model.id) for r in rows],
    t("col.params", L): [f"{r.model.parameters / 1e9:,.1f} B" if r.model.parameters else "—" for r in rows],
    t("col.storage", L): [r.storage.total for r in rows],
    t("col.local", L): [r.local_kv for r in rows],
    t("col.cache", L): [r.cache.total for r in rows],
    t("col.read", L): [r.read.total for r in rows],
}), hide_index=True, width="stretch",
    column_config={c: st.column_config.NumberColumn(format="localized") for c in
                   (t("col.storage", L), t("col.local", L), t("col.cache", L), t("col.read", L))})
ui.chart("A1", context=v.context, precision=v.precision, models=models, highlight=None, lang=L, units=v.units)

# --- a GPU node ---------------------------------------------------------------------------
st.header(t("by.planner", L))
c = st.columns(4)
gpu = ui.control(capacity.knob("gpu"), c[0])
custom = {"memory_gb": capacity.knob("memory_gb").default, "bandwidth_tb": capacity.knob("bandwidth_tb").default}
if gpu == "custom":
    custom = {name: ui.control(capacity.knob(name), col) for name, col in zip(custom, c[1:3])}
tp = ui.control(capacity.knob("tp"), c[3])
c = st.columns(3)
node = dict(gpu=gpu, tp=tp, **custom)
plan = {n: ui.control(capacity.knob(n), col) for n, col in zip(("bytes_per_parameter", "reserved", "block"), c)}
ui.chart("capacity", models=models, context=v.context, precision=v.precision, lang=L, units=v.units, **node, **plan)

st.header(t("by.floor", L))
batch = ui.control(EXTRAS["read-floor"].knob("batch"))
ui.chart("read-floor", models=models, precision=v.precision, batch=batch, lang=L, **node)

# --- why other numbers --------------------------------------------------------------------
st.header(t("by.rec", L))
st.caption(t("by.rec.intro", L))
on = []
for vid, variant in VARIANTS.items():
    c = st.columns([1, 3])
    if c[0].toggle(variant_name(vid, L), key=f"var-{vid}", bind="query-params"):
        on.append(vid)
    c[1].caption(t(f"var.{vid}.desc", L, page=SGLANG_PAGE_TOKENS))
    # not in the caption: Streamlit draws a caption's links at 60 % too, under 3:1 on white
    c[1].markdown(f":small[{t('rec.source', L)}: {variant.source}]")
if on:
    ui.chart("reconciliation", variants=tuple(on), context=v.context, lang=L, units=v.units)
else:
    st.info(t("by.rec.none", L))
