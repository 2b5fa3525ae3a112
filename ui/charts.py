"""Charts on a page: a figure built (and serialised) once per set of knobs and look, shown
exactly as it exports, with its downloads and a link that shows it alone."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import plotly.io as pio
import streamlit as st

from core import Model, imported_id
from figures import (
    FIGURES,
    FONT_SCALE,
    LANG,
    PLAYS,
    SLIDE_SIZES,
    SPECS,
    THEME,
    Built,
    Canvas,
    animated,
    at_step,
    description,
    narrow,
    plotly_config,
    steps,
)
from i18n import t
from publish import IMAGE_FORMATS, figure_file, image_browser

from .hub import HF_KEY, linked
from .plot import plot
from .state import View, view

# An imported model comes as its Model (ui.state.as_models), which Streamlit cannot hash: it is keyed by its id
# and a digest of its spec (core.imported_id), so the same spec is one entry whichever session asks.
MODEL_KEY = {Model: lambda m: (m.id, imported_id(m))}


# Figures (≈ 0.2–1.2 MB each) serve only downloads and a first serialisation; their JSON is
# what every run needs, so that cache is the large one. Every figure is kept twice: as shown, as downloaded.
@st.cache_resource(max_entries=2 * len(SPECS), show_spinner=False, hash_funcs=MODEL_KEY)
def figure(figure_id: str, theme: str = "light", font_scale: float = 1.0, column: int | None = None,
           **knobs) -> Built:
    """Build a registered figure once per distinct set of knobs, look, text size and column width
    (None: the figure's own sizes, as downloads draw it). On a column the text size is part of the
    layout (the figure is built for `Canvas(column, font_scale)`: titles broken, margins, labels and
    diagrams laid out for the larger text) and the look only colours it; natively the look scales
    its text. Figures are shared, not copied: nothing downstream mutates them (the plot component
    only serialises)."""
    return SPECS[figure_id].build(knobs, Canvas(column=column, font_scale=font_scale, theme=theme))


@st.cache_resource(max_entries=500, show_spinner=False, hash_funcs=MODEL_KEY)
def figure_json(figure_id: str, theme: str = "light", font_scale: float = 1.0, column: int | None = None,
                **knobs) -> str:
    """The figure's JSON, serialised once per set of knobs, look and column width."""
    return pio.to_json(figure(figure_id, theme, font_scale, column, **knobs).figure, validate=False)


@st.cache_resource(max_entries=500, show_spinner=False, hash_funcs=MODEL_KEY)
def alternative(figure_id: str, theme: str = "light", font_scale: float = 1.0, column: int | None = None,
                **knobs) -> tuple[str, str]:
    """The chart's text alternative, from the figure the page shows: its title (the accessible
    name) and a description with the numbers core computed (figures/describe.py), in its language."""
    built = figure(figure_id, theme, font_scale, column, **knobs)
    lang = knobs.get("lang", SPECS[figure_id].defaults.get("lang", LANG.default))
    return built.title, description(built, lang, knobs.get("units", "decimal"), knobs.get("models") or ())


# A figure's animation: every step's build, a few MB while building (seconds for the largest);
# kept as JSON (0.1–1.1 MB). Its frames do not depend on the stepped knob's value within the play
# range, so a step of that knob redraws the built animation at another step (≈ 10 ms).
@st.cache_resource(max_entries=2 * len(PLAYS), show_spinner=False, hash_funcs=MODEL_KEY)
def _animation(figure_id: str, theme: str = "light", font_scale: float = 1.0, column: int | None = None,
               **knobs) -> str:
    # on a column the steps are built for the text size (the look then only colours them)
    return pio.to_json(animated(figure_id, Canvas(column=column, font_scale=font_scale, theme=theme), **knobs),
                       validate=False)


@st.cache_resource(max_entries=2 * len(PLAYS), show_spinner=False, hash_funcs=MODEL_KEY)
def animation(figure_id: str, theme: str = "light", font_scale: float = 1.0, column: int | None = None,
              **knobs) -> str:
    """A figure with a play control, a frame per step (figures/animation.py), as JSON, built
    once per set of knobs, look and column width and shown at the knobs' own step."""
    play = SPECS[figure_id].play
    value = knobs.get(play.knob, SPECS[figure_id].defaults[play.knob])
    if not play.lo <= value <= play.hi:  # a wider range: frames of its own
        return _animation(figure_id, theme, font_scale, column, **knobs)
    frames = json.loads(_animation(figure_id, theme, font_scale, column, **{**knobs, play.knob: play.lo}))
    return pio.to_json(at_step(frames, value), validate=False)


def chart(figure_id: str, *, width: str = "stretch", **knobs) -> None:
    """Show a figure exactly as it exports (our template, not Streamlit's theme), updated in
    place when its knobs change, with its ▶ Play toggle and downloads. Matrix diagrams pass
    width="content": their size is part of the drawing."""
    draw(figure_id, knobs, view(), width=width)


def draw(figure_id: str, knobs: dict, v: View, *, width: str = "stretch", tools: bool = True) -> None:
    """The one way a chart is drawn: the figure built for the view's column (`figure`), in the
    plot component. With `tools` (a page), a figure with a play control shows its animation while
    its toggle is on, and the downloads follow; without (a figure-only view), the figure alone."""
    config = {**plotly_config(figure_id), "responsive": True}
    if narrow(v.canvas):  # on a phone plotly's toolbar sits over the title; ⤓ stays
        config["displayModeBar"] = False
    label, described = alternative(figure_id, v.theme, v.font_scale, v.canvas, **knobs)
    if tools and play_toggle(figure_id, knobs.get("lang", v.lang)):
        plot(animation(figure_id, v.theme, v.font_scale, v.canvas, **knobs), key=f"play-{figure_id}", config=config,
             width=width, label=label, description=described)
    else:
        plot(figure_json(figure_id, v.theme, v.font_scale, v.canvas, **knobs), key=f"chart-{figure_id}", config=config,
             width=width, label=label, description=described)
    if tools:
        downloads(figure_id, knobs)


def play_toggle(figure_id: str, lang: str) -> bool:
    """The "▶ Play" toggle of a figure whose story is a sequence (off: the static figure, as fast
    as any other; on: its animation, built once)."""
    s = SPECS[figure_id]
    if s.play is None:
        return False
    knob, shown = s.knob(s.play.knob), steps(s)
    return st.toggle(t("app.play", lang, k=t(knob.label, lang), lo=shown.start, hi=shown[-1]),
                     help=t("app.play.help", lang), key=f"toggle-play-{figure_id}")


def figure_link(figure_id: str, knobs: dict) -> str:
    """A relative link that shows this figure alone with these knobs and the current look,
    written through the registry (the keys the page's own controls use)."""
    v = view()
    lang = knobs.get("lang", v.lang)
    spec = SPECS[figure_id]
    params = {"figure": figure_id, LANG.key: lang, **spec.dump({**knobs, "lang": spec.defaults.get("lang")}, lang),
              **THEME.dump(v.theme), **FONT_SCALE.dump(v.font_scale)}
    if linked() and {"model", "models"} & set(spec.defaults):  # the fetched model the link's figure may show
        params[HF_KEY] = linked()
    return "?" + urlencode(params, doseq=True)


def download_files(figure_id: str) -> tuple[tuple[str, str, str, dict, str], ...]:
    """(button label, format, MIME type, image size, file name) of a chart's downloads."""
    pngs = tuple((f"PNG {w}×{h}", "png", "image/png", {"width": w, "height": h}, f"kv-atlas-{figure_id}-{name}.png")
                 for name, (w, h) in SLIDE_SIZES.items())
    return (("SVG", "svg", "image/svg+xml", {}, f"kv-atlas-{figure_id}.svg"), *pngs,
            ("HTML", "html", "text/html", {}, f"kv-atlas-{figure_id}.html"),
            ("CSV", "csv", "text/csv", {}, f"kv-atlas-{figure_id}.csv"))


def file_bytes(built: Built, figure_id: str, knobs: dict, fmt: str, size: dict, theme: str,
               font_scale: float) -> bytes:
    """A download's bytes, written as every export writes them (publish.export.figure_file), from
    the figure and animation this page already built. The look comes as arguments: Streamlit
    calls a download's callable on another thread, where this session's state is not to be had."""
    played = json.loads(animation(figure_id, theme, font_scale, **knobs)) if fmt == "html" and figure_id in PLAYS \
        else None
    return figure_file(figure_id, fmt, knobs, theme=theme, font_scale=font_scale, size=size, screen=built,
                       animation=played)


def downloads(figure_id: str, knobs: dict) -> None:
    """SVG / slide PNG / interactive HTML / numbers. The popover's buttons exist only while it
    is open (opening it reruns the page, or the fragment it is in), so a slider step or a page
    load does not pay for seven elements per chart; files are rendered only when clicked."""
    v = view()
    lang = knobs.get("lang", v.lang)
    popover = st.popover(t("app.download", lang), width="content", key=f"dl-{figure_id}", on_change="rerun")
    if not popover.open:
        return
    built = figure(figure_id, v.theme, v.font_scale, **knobs)  # looked up only while open
    with popover:
        images = bool(image_browser())
        if not images:
            st.caption(t("app.noimages", lang))
        for label, fmt, mime, size, name in download_files(figure_id):
            if fmt in IMAGE_FORMATS and not images:
                continue
            st.download_button(label, data=lambda fmt=fmt, size=size: file_bytes(built, figure_id, knobs, fmt, size,
                                                                                 v.theme, v.font_scale),
                               file_name=name, mime=mime, key=f"dl-{name}", on_click="ignore")
        if figure_id in FIGURES:
            st.caption(t("app.link", lang))
            st.code(figure_link(figure_id, knobs), language=None)
