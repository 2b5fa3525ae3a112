"""Export: chosen figures × formats as one zip, or the chosen figures as a talk deck (.pptx), in
the current look and language.

One build (zip or deck) at a time per server process (a reader who clicks while another builds
sees that they wait), a request is capped at MAX_FILES, and the zip is written to disk as it is
built. The download is handed over as bytes: see the note at `offer`."""

import streamlit as st

import ui
from figures import FIGURES, deck, ordered_ids
from figures.export import BUILD_LOCK, FORMATS, IMAGE_FORMATS, MAX_FILES, SLIDE_SIZES, files, image_browser, write_zip
from figures.knobs import CONTEXT, PRECISION, UNITS
from i18n import t

v = ui.view()
L = v.lang
PARAMS = {**CONTEXT.dump(v.context), **PRECISION.dump(v.precision), **UNITS.dump(v.units)}


def offer(label: str, data: bytes, name: str, mime: str, key: str | None = None) -> None:
    # Bytes, not a deferred callable: Streamlit 1.67 keeps a callable's output unreferenced, so
    # any two script runs elsewhere in the process delete it before a slow click arrives.
    st.download_button(label, data=data, file_name=name, mime=mime, on_click="ignore", key=key)


def progress_bar(total: int):
    bar = st.progress(0.0)
    return lambda n, name: bar.progress(n / total, text=f"{n}/{total} · {name}")


def build_zip(ids: list[str]) -> None:
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
        step = progress_bar(total)
        with BUILD_LOCK:
            path, failed = write_zip(files(ids, formats, lang=L, theme=v.theme, font_scale=v.font_scale, params=PARAMS,
                                           size={"width": width, "height": height, "scale": scale}), step)
        if failed:
            st.warning(t("ex.failed", L, n=len(failed), which="; ".join(failed)))
        data = path.read_bytes()
        path.unlink(missing_ok=True)
        offer(t("ex.download", L, n=total - len(failed)), data, "kv-atlas-figures.zip", "application/zip")


def build_deck(ids: list[str]) -> None:
    st.caption(t("ex.deck.intro", L))
    size = st.radio(t("ex.deck.size", L), SLIDE_SIZES, key="ex_deck_size", horizontal=True,
                    format_func=lambda name: "{} × {}".format(*SLIDE_SIZES[name]))
    if not ids:
        st.info(t("ex.empty", L))
    elif len(ids) > MAX_FILES:  # a picture per slide, capped as the zip's files are
        st.warning(t("ex.cap", L, n=len(ids), cap=MAX_FILES))
    elif not image_browser():
        st.warning(t("app.noimages", L))
    elif st.button(t("ex.deck.build", L), type="primary", key="ex_deck_build"):
        if BUILD_LOCK.locked():
            st.info(t("ex.waiting", L))
        step = progress_bar(len(ids))
        with BUILD_LOCK:
            data, failed = deck.build(ids, lang=L, theme=v.theme, font_scale=v.font_scale, params=PARAMS, size=size,
                                      progress=step)
        if failed:
            st.warning(t("ex.failed", L, n=len(failed), which="; ".join(failed)))
        offer(t("ex.deck.download", L, n=1 + len(ids) - len(failed)), data, "kv-atlas-talk.pptx", deck.MIME,
              key="ex_deck_download")


st.title(t("ex.title", L))
st.caption(t("ex.intro", L, theme=v.theme, fs=v.font_scale, lang=L))
ids = st.multiselect(t("ex.figures", L), ordered_ids(), default=ordered_ids(), key="ex_ids",
                     format_func=lambda fid: f"{fid} · {FIGURES[fid].title(L)}")
kind = st.radio(t("ex.kind", L), ("zip", "deck"), key="ex_kind", horizontal=True,
                format_func=lambda k: t(f"ex.kind.{k}", L))
(build_deck if kind == "deck" else build_zip)(ids)
