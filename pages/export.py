"""Export: chosen figures × formats, in the current look and language, as one zip."""

import streamlit as st

import ui
from figures import FIGURES, ordered_ids
from figures.export import FORMATS, files, zip_bytes
from figures.knobs import CONTEXT, PRECISION, UNITS
from i18n import t

v = ui.view()
L = v.lang

st.title(t("ex.title", L))
st.caption(t("ex.intro", L, theme=v.theme, fs=v.font_scale, lang=L))
ids = st.multiselect(t("ex.figures", L), ordered_ids(), default=ordered_ids(), key="ex_ids",
                     format_func=lambda fid: f"{fid} · {FIGURES[fid].title(L)}")
formats = st.multiselect(t("ex.formats", L), FORMATS, default=["svg", "png"], key="ex_fmt")
c = st.columns(3)
width = c[0].number_input(t("ex.width", L), 320, 3840, 1920, 10, key="ex_w")
height = c[1].number_input(t("ex.height", L), 240, 2160, 1080, 10, key="ex_h")
scale = c[2].number_input(t("ex.scale", L), 0.5, 4.0, 1.0, 0.5, key="ex_s")

if not ids or not formats:
    st.info(t("ex.empty", L))
elif st.button(t("ex.build", L), type="primary"):
    bar = st.progress(0.0)
    entries, failed, total = [], [], len(ids) * len(formats)
    for n, (fid, name, data) in enumerate(
            files(ids, formats, lang=L, theme=v.theme, font_scale=v.font_scale,
                  params={**CONTEXT.dump(v.context), **PRECISION.dump(v.precision), **UNITS.dump(v.units)},
                  size={"width": width, "height": height, "scale": scale}), 1):
        (failed.append(f"{fid}: {data}") if isinstance(data, Exception) else entries.append((name, data)))
        bar.progress(n / total, text=f"{n}/{total} · {name}")
    if failed:
        st.warning(t("ex.failed", L, n=len(failed), which="; ".join(failed)))
    st.download_button(t("ex.download", L, n=len(entries)), zip_bytes(entries), file_name="kv-atlas-figures.zip",
                       mime="application/zip", on_click="ignore")
