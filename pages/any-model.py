"""Beyond the article: any model's KV cache (open presets and a config.json of your own), how
many requests fit on a GPU node, the decode read floor, and why other sources' numbers differ
(article/sections/ describes it; the config import and the variant toggles are the app's own)."""

import pandas as pd
import streamlit as st

import ui
from article import HF_EXAMPLE, design_name, variant_source
from core import SGLANG_PAGE_TOKENS, VARIANTS, ConfigError, fmt_bytes, import_config, read_config
from figures import variant_name
from i18n import t

L = ui.view().lang


def config_name(raw: bytes, file_name: str) -> str:
    """What to call an imported model: its file's name, else the config's own path, else "custom"."""
    if file_name:
        return file_name.removesuffix(".json")[:60]
    try:
        path = read_config(raw).get("_name_or_path")
    except ConfigError:
        return "custom"  # the import that follows says what is wrong
    return str(path).rstrip("/").rsplit("/", 1)[-1][:60] if path else "custom"


def import_panel() -> dict:
    """A model by its Hugging Face id (the link's hf=), or a config.json of your own, uploaded or pasted: read, and
    kept for this session; returns the session's imported configs."""
    from_hub()
    with st.expander(t("by.import", L), expanded=bool(ui.imported_models())):
        read_config_json()
    return ui.imported_models()


def from_hub() -> None:
    """A model id typed or linked (?hf=org/name@revision): its config and safetensors headers from the Hub, the model
    added to the session's imports and, on a link's first visit, to the models compared below."""
    text = st.text_input(t("by.hf", L), key=ui.HF_KEY, bind="query-params", help=t("by.hf.help", L),
                         placeholder=HF_EXAMPLE)
    if not text.strip():
        return
    try:
        with st.spinner(t("by.hf.fetching", L, id=text.strip())):
            found, imported, model_id = ui.fetch_model(text)
    except ui.HUB_FAILURES as e:
        st.error(ui.hub_failure(e, L))
        return
    ui.select_model(model_id)
    weights = t("by.hf.weights", L, p=f"{found.parameters:,}", b=fmt_bytes(found.weights_bytes)) \
        if found.parameters else t("by.hf.noweights", L)
    st.success(t("by.hf.found", L, name=found.name, design=design_name(imported.design, L), weights=weights))


def read_config_json() -> None:
    """An uploaded or pasted config.json read, shown, and kept for this session."""
    c = st.columns(2)
    upload = c[0].file_uploader(t("by.upload", L), type=["json"], key="cfg_file")
    pasted = c[1].text_area(t("by.paste", L), key="cfg_text", height=120)
    raw = upload.getvalue() if upload else pasted.encode() if pasted.strip() else None
    if not raw:
        return
    name = config_name(raw, upload.name if upload else "")
    try:
        found = import_config(raw, name=name)
    except ConfigError as e:
        st.error(t("by.bad", L, e=e))
        return
    # MTP layers hold KV only while speculative decoding runs them: off unless asked
    if found.draft and st.checkbox(t("by.mtp", L, n=found.draft), key="cfg_mtp"):
        found = import_config(raw, name=f"{name} + MTP", mtp=True)
    ui.remember_import(found)
    st.success(t("by.detected", L, name=found.model.name, design=design_name(found.design, L)))
    # a table, not a grid (whose toolbar speaks English); a field's name as code
    st.table(pd.DataFrame(
        [(t("by.used", L), f"`{k}`", str(val)) for k, val in found.used.items()]
        + [(t("by.defaulted", L), f"`{k}`", f"{val} ({src})") for k, (val, src) in found.defaulted.items()]
        + [(t("by.ignored", L), f"`{k}`", "") for k in found.ignored],
        columns=[t("by.col.status", L), t("by.col.field", L), t("app.import.value", L)]),
        hide_index=True, alt=t("by.fields", L))
    for note in found.notes:
        st.caption(note)


def variant_toggles() -> tuple:
    """A toggle per other source's way of counting, with what it counts and where it comes from."""
    on = []
    for vid in VARIANTS:
        c = st.columns([1, 3])
        if c[0].toggle(variant_name(vid, L), key=f"var-{vid}", bind="query-params"):
            on.append(vid)
        c[1].caption(t(f"var.{vid}.desc", L, page=SGLANG_PAGE_TOKENS))
        # not in the caption: Streamlit draws a caption's links at 60 % too, under 3:1 on white
        c[1].markdown(f":small[{t('rec.source', L)}: {variant_source(vid, L)}]")
    return tuple(on)


ui.show("any-model", import_panel=import_panel, variant_toggles=variant_toggles)
