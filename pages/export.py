"""Export: chosen figures × formats as one zip, or the chosen figures as a talk deck (.pptx), in
the current look and language.

One build (zip or deck) at a time per server process (a reader who clicks while another builds
sees that they wait), a request is capped at MAX_FILES, and the zip is written to disk as it is
built. The download is handed over as bytes: see the note at `offer`."""

import streamlit as st

import ui
from figures import CONTEXT, FIGURES, PRECISION, SLIDE_SIZES, UNITS, ordered_ids
from i18n import t
from publish import (
    BUILD_LOCK,
    DECK_MIME,
    DECK_SIZE,
    FORMATS,
    IMAGE_FORMATS,
    MAX_FILES,
    files,
    image_browser,
    make_deck,
    write_zip,
)

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


def ready(n: int, images: bool) -> bool:
    """Whether a build of `n` files can start; if not, the page says why."""
    if not n:
        st.info(t("ex.empty", L))
    elif n > MAX_FILES:
        st.warning(t("ex.cap", L, n=n, cap=MAX_FILES))
    elif images and not image_browser():
        st.warning(t("app.noimages", L))
    else:
        return True
    return False


def run(n: int, make) -> tuple[bytes, list[str]]:
    """`make(progress)` → (bytes, failures), one build at a time per process, with a progress bar
    over `n` files; the failures are shown."""
    if BUILD_LOCK.locked():
        st.info(t("ex.waiting", L))
    step = progress_bar(n)
    with BUILD_LOCK:
        data, failed = make(step)
    if failed:
        st.warning(t("ex.failed", L, n=len(failed), which="; ".join(failed)))
    return data, failed


def zipped(items, progress) -> tuple[bytes, list[str]]:
    path, failed = write_zip(items, progress)
    data = path.read_bytes()
    path.unlink(missing_ok=True)
    return data, failed


def build_zip(ids: list[str]) -> None:
    formats = st.multiselect(t("ex.formats", L), FORMATS, default=["svg", "png"], key="ex_fmt",
                             placeholder=t("app.choose", L))
    c = st.columns(3)
    width = c[0].number_input(t("ex.width", L), 320, 3840, 1920, 10, key="ex_w")
    height = c[1].number_input(t("ex.height", L), 240, 2160, 1080, 10, key="ex_h")
    scale = c[2].number_input(t("ex.scale", L), 0.5, 4.0, 1.0, 0.5, key="ex_s")
    n = len(ids) * len(formats)
    if ready(n, bool(set(formats) & set(IMAGE_FORMATS))) and st.button(t("ex.build", L), type="primary"):
        size = {"width": width, "height": height, "scale": scale}
        data, failed = run(n, lambda step: zipped(files(ids, formats, lang=L, theme=v.theme, font_scale=v.font_scale,
                                                        params=PARAMS, size=size), step))
        offer(t("ex.download", L, n=n - len(failed)), data, "kv-atlas-figures.zip", "application/zip")


def build_deck(ids: list[str]) -> None:
    st.caption(t("ex.deck.intro", L))
    size = st.radio(t("ex.deck.size", L), SLIDE_SIZES, index=list(SLIDE_SIZES).index(DECK_SIZE),
                    key="ex_deck_size", horizontal=True, format_func=lambda name: "{} × {}".format(*SLIDE_SIZES[name]))
    # a picture per slide; at most every figure, so under the zip's cap
    if ready(len(ids), True) and st.button(t("ex.deck.build", L), type="primary", key="ex_deck_build"):
        data, failed = run(len(ids), lambda step: make_deck(ids, lang=L, theme=v.theme, font_scale=v.font_scale,
                                                             params=PARAMS, size=size, progress=step))
        offer(t("ex.deck.download", L, n=1 + len(ids) - len(failed)), data, "kv-atlas-talk.pptx", DECK_MIME,
              key="ex_deck_download")


st.title(t("ex.title", L))
st.caption(t("ex.intro", L, theme=v.theme, fs=v.font_scale, lang=L))
ids = st.multiselect(t("ex.figures", L), ordered_ids(), default=ordered_ids(), key="ex_ids",
                     format_func=lambda fid: f"{fid} · {FIGURES[fid].title(L)}", placeholder=t("app.choose", L))
kind = st.radio(t("ex.kind", L), ("zip", "deck"), key="ex_kind", horizontal=True,
                format_func=lambda k: t(f"ex.kind.{k}", L))
(build_deck if kind == "deck" else build_zip)(ids)
