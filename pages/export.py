"""Export: chosen figures × formats, in the current look and language, as one zip.

One zip is built at a time per server process (a reader who clicks while another builds sees
that they wait), a request is capped at MAX_FILES, and the zip is written to disk as it is
built: the session keeps its path, and the bytes are read when the download is clicked."""

import streamlit as st

import ui
from figures import FIGURES, ordered_ids
from figures.export import BUILD_LOCK, FORMATS, IMAGE_FORMATS, MAX_FILES, files, image_browser, write_zip
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
total = len(ids) * len(formats)

if not total:
    st.info(t("ex.empty", L))
elif total > MAX_FILES:
    st.warning(t("ex.cap", L, n=total, cap=MAX_FILES))
elif set(formats) & set(IMAGE_FORMATS) and not image_browser():
    st.warning(t("app.noimages", L))
elif st.button(t("ex.build", L), type="primary"):
    if BUILD_LOCK.locked():
        st.info(t("ex.waiting", L))
    bar = st.progress(0.0)
    params = {**CONTEXT.dump(v.context), **PRECISION.dump(v.precision), **UNITS.dump(v.units)}
    with BUILD_LOCK:
        path, failed = write_zip(files(ids, formats, lang=L, theme=v.theme, font_scale=v.font_scale, params=params,
                                       size={"width": width, "height": height, "scale": scale}),
                                 lambda n, name: bar.progress(n / total, text=f"{n}/{total} · {name}"))
    if failed:
        st.warning(t("ex.failed", L, n=len(failed), which="; ".join(failed)))
    # Bytes, not a deferred callable: Streamlit 1.67 keeps a callable's output unreferenced, so
    # any two script runs elsewhere in the process delete it before a slow click arrives.
    data = path.read_bytes()
    path.unlink(missing_ok=True)
    st.download_button(t("ex.download", L, n=total - len(failed)), data=data,
                       file_name="kv-atlas-figures.zip", mime="application/zip", on_click="ignore")
