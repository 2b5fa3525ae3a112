"""The view a reader chose: the sidebar's controls, and any page control, drawn from the
registry's knobs and bound to the URL, so a copied link reproduces the view.

A value that arrives by URL is read through its knob before the widget sees it: clamped
into range or replaced by the default, with a short note at the top of the page, the URL
rewritten to what is shown (Streamlit seeds widgets from the URL it was opened with, so
a rewrite takes one rerun).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

from core import Precision, register
from figures import (
    CONTEXT,
    EXTRAS,
    FONT_SCALE,
    LANG,
    PRECISION,
    THEME,
    UNITS,
    ChoiceKnob,
    FloatKnob,
    IntKnob,
    Invalid,
    Knob,
    MatrixKnob,
    TupleKnob,
    help_fields,
    narrow,
)
from i18n import DEFAULT_LANG, t

from .column import column_width, current

QP = "query-params"
_CHECKED, _NOTES = "_url_checked", "_url_notes"
_VIEW = "_view"
_PARTS, _DRAWN = "_context_parts", "_context_parts_drawn"  # this run's; the last completed run's
N_LINE = "n-line"  # the sidebar's "N = …" line: a fragment of its own, so a context step redraws it
PHONE_ROW = "phone-controls"  # the container of the context and the preset at the top of a phone's page
_RELABEL = "_relabel"  # the keys of controls whose choices are shown in the page's language


@dataclass(frozen=True)
class View:
    lang: str = DEFAULT_LANG
    context: int = CONTEXT.default
    precision: Precision = Precision()
    units: str = UNITS.default
    theme: str = THEME.default
    font_scale: float = FONT_SCALE.default
    canvas: int | None = None  # the width class of the page's column (figures/canvas.py); None: the builders' own


def language() -> str:
    """The language of this run, before the sidebar draws its control (page titles need it):
    the control's state, else the link's value read through its knob."""
    chosen = st.session_state.get(LANG.key)
    return chosen if chosen in LANG.choices else LANG.read(_given(LANG))[0]


def sidebar() -> View:
    """Render the shared controls and return the view they select. On a phone's column the
    context and the precision preset sit at the top of the page instead (`_phone_row`: kept there
    while the page scrolls): the same widgets under the same keys, so links and the
    context's fragments work alike."""
    sb = st.sidebar
    st.session_state[_RELABEL] = set()  # this run's choice controls (`control` adds them)
    lang = control(LANG, sb, lang=language(), on_change=_relabel)
    canvas = current()
    top, shown = (_phone_row(lang), "collapsed") if narrow(canvas) else (sb, "visible")
    st.session_state[_PARTS] = []  # the page registers what the context alone moves (follows_context)
    context = control(CONTEXT, top, lang=lang, on_change=_context_moved, label_visibility=shown)
    with sb:
        _n_line()
    preset, *roles = PRECISION.parts
    preset = control(preset, top, lang=lang, label_visibility=shown)
    with sb.expander(t("app.override", lang)):
        st.caption(t("app.override.help", lang))
        overrides = [control(r, lang=lang) for r in roles]
    units = control(UNITS, sb, lang=lang)
    with sb.expander(t("app.look", lang)):
        theme, font_scale = control(THEME, lang=lang), control(FONT_SCALE, lang=lang)
    precision = Precision(preset, *(None if o == "auto" else o for o in overrides))
    column_width(sb)  # mounts the measurer; the canvas was read first, to place the controls
    v = View(lang, context, precision, units, theme, font_scale, canvas)
    st.session_state[_VIEW] = v
    return v


# A phone's row of controls stays under Streamlit's top bar while the page scrolls (its top padding,
# room for the slider's value, tucked under the bar's lower 0.75rem, where the bar draws nothing),
# on the page's own background so a chart passes under it unseen.
# (Streamlit wraps the row in a layout wrapper of its own height: the wrapper is what sticks.)
_PHONE_CSS = """<style>[data-testid="stLayoutWrapper"]:has(> .st-key-{key}){{position:sticky;top:3rem;
z-index:99;background:{bg};padding:.9rem 0 .25rem;border-bottom:1px solid rgba(128,128,128,.3)}}</style>"""


def _phone_row(lang: str):
    """The row at the top of a phone's page that holds the context and the preset, their labels in a
    line over it (scrolled away with the page; the row's controls keep theirs for assistive technology)."""
    dark = st.context.theme.type == "dark"
    st.html(_PHONE_CSS.format(key=PHONE_ROW, bg="#0e1117" if dark else st.get_option("theme.backgroundColor")))
    st.caption(f"{t(CONTEXT.label, lang)} · {t(PRECISION.label, lang)}")
    return st.container(key=PHONE_ROW, horizontal=True, gap="small")


def _relabel() -> None:
    """The language control's callback. A choice control shows its choices in the page's language,
    and Streamlit keeps a choice by the text it shows: each choice control drawn last run is handed
    its value again, so it keeps it in the new language instead of falling back to its default."""
    for key in st.session_state.get(_RELABEL, ()):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


@st.fragment(key=N_LINE)
def _n_line() -> None:
    st.caption(f"N = {st.session_state[CONTEXT.key]:,}")


def follows_context(key: str):
    """Decorator for the part of a page that the context slider moves (nothing else on the
    page may depend on the context): a slider step reruns that part and the sidebar's N line,
    not the whole page. A page that does not draw it (it stopped earlier) reruns whole."""
    def wrap(func):
        part = st.fragment(func, key=key)

        @functools.wraps(func)
        def draw(*args, **kwargs):
            st.session_state.setdefault(_PARTS, []).append(key)
            return part(*args, **kwargs)
        return draw
    return wrap


def _context_moved() -> None:
    """The context slider's callback: the view follows, and only the parts that follow the context
    rerun, if the last completed run drew them on this page with every other control as it is now.
    Otherwise (another control changed in the same request, a page switch, a run cut short by
    this step) the page reruns whole: a part's surroundings would be stale."""
    st.session_state[_VIEW] = replace(st.session_state.get(_VIEW, View()), context=st.session_state[CONTEXT.key])
    page, parts, others = st.session_state.get(_DRAWN, (None, (), None))
    if parts and page == _page() and others == _others():
        st.rerun([N_LINE, *parts])


def _page() -> str | None:
    ctx = get_script_run_ctx()
    return ctx and ctx.page_script_hash


def _others() -> dict:
    """Every control's value but the context's (our own state keys start with "_")."""
    return {k: st.session_state[k] for k in st.session_state if not str(k).startswith("_") and k != CONTEXT.key}


def view() -> View:
    """The view chosen in the sidebar this run (defaults when a page runs on its own)."""
    if _outside_router():
        # Until some session's app.py has called st.navigation, a fresh process serves pages/
        # the old way: it ran this page itself. Leave that mode and rerun; app.py routes to the
        # same page (its file is named as its URL, which is how the old mode found it).
        PagesManager.uses_pages_directory = False
        st.rerun()
    return st.session_state.get(_VIEW, View())


def _outside_router() -> bool:
    """Whether Streamlit's pages/-folder mode ran this page instead of app.py: that mode lists the
    main script itself among the pages; app.py's st.navigation lists only the pages. (A page that
    AppTest runs on its own has no pages/ folder beside it; a fragment's rerun runs no script.)"""
    ctx = get_script_run_ctx()
    if ctx is None or ctx.fragment_ids_this_run:
        return False
    main = Path(ctx.pages_manager.main_script_path).resolve()
    listed = {Path(p["script_path"]).resolve() for p in ctx.pages_manager.get_pages().values() if p.get("script_path")}
    return (main.parent / "pages").is_dir() and main in listed


def with_imports(knob: Knob) -> Knob:
    """A knob that takes imported models (`imports`) with the models this session imported among its choices."""
    if isinstance(knob, ChoiceKnob) and knob.imports:
        return replace(knob, choices=(*knob.choices, *imported_models()), imports=False)
    return knob


def control(knob: Knob, where=None, *, lang: str | None = None, on_change=None, label_visibility: str = "visible"):
    """The widget for a knob (its label, range and default from the registry), bound to
    the URL under the knob's key; returns its value. A tuple knob takes one container per
    part; a matrix knob returns None (with an error shown) while its text does not parse."""
    lang = lang or view().lang
    knob = with_imports(knob)
    if isinstance(knob, TupleKnob):
        places = where or [None] * len(knob.parts)
        return tuple(control(replace(p, default=d), w, lang=lang)
                     for p, d, w in zip(knob.parts, knob.default, places))
    _tidy_url(knob, lang)
    if isinstance(knob, ChoiceKnob) and knob is not LANG:
        st.session_state.setdefault(_RELABEL, set()).add(knob.key)
    label = t(knob.label, lang) if knob.label else knob.name
    kw = dict(key=knob.key, bind=QP, on_change=on_change, label_visibility=label_visibility,
              help=t(knob.help, lang, **help_fields()) if knob.help else None)
    widget = knob.widget or WIDGET_OF_KIND[type(knob)]
    return WIDGETS[widget](knob, where or st, label, kw, lang)


def _number(knob, where, label: str, kw: dict, lang: str):
    kind = int if isinstance(knob, IntKnob) else float
    return where.number_input(label, kind(knob.lo), kind(knob.hi), kind(knob.default), kind(knob.step or 1), **kw)


def _slider(knob, where, label: str, kw: dict, lang: str):
    return where.slider(label, knob.lo, knob.hi, knob.default, knob.step, **kw)


def _select_slider(knob, where, label: str, kw: dict, lang: str):
    return where.select_slider(label, _stops(knob, lang), value=knob.default, format_func=_shown(knob, lang), **kw)


def _radio(knob, where, label: str, kw: dict, lang: str):
    return where.radio(label, knob.choices, index=knob.choices.index(knob.default), format_func=_shown(knob, lang),
                       horizontal=True, **kw)


def _select(knob, where, label: str, kw: dict, lang: str):
    options = (None, *knob.choices) if knob.nullable else knob.choices
    return where.selectbox(label, options, index=options.index(knob.default), format_func=_shown(knob, lang),
                           placeholder=t("app.choose", lang), **kw)


def _multiselect(knob, where, label: str, kw: dict, lang: str):
    # a value set in the session (select_model) stands for the default: both at once is Streamlit's warning
    default = None if kw["key"] in st.session_state else list(knob.default)
    return tuple(where.multiselect(label, knob.choices, default=default, format_func=_shown(knob, lang),
                                   placeholder=t("app.choose", lang), **kw))


def _matrix(knob: Knob, where, label: str, kw: dict, lang: str):
    text = where.text_input(label, knob.display(knob.default, lang), **kw)
    try:
        return knob.parse(text)
    except Invalid as e:
        where.error(t("tb.error", lang, e=e))
        return None


def _shown(knob: Knob, lang: str):
    return lambda value: knob.display(value, lang)


# A knob's widget: the one it names (`Knob.widget`), else its kind's.
WIDGETS = {"number": _number, "slider": _slider, "select_slider": _select_slider, "radio": _radio, "select": _select,
           "multiselect": _multiselect, "text": _matrix}
WIDGET_OF_KIND = {IntKnob: "slider", FloatKnob: "slider", ChoiceKnob: "radio", MatrixKnob: "text"}


def _stops(knob: Knob, lang: str) -> list:
    """A select slider's options: a choice knob's choices; a number knob's stops plus a
    linked or chosen value between them."""
    if isinstance(knob, ChoiceKnob):
        return list(knob.choices)
    extra = {st.session_state.get(knob.key), knob.read(_given(knob), lang)[0]}
    return sorted(set(knob.stops) | {x for x in extra if isinstance(x, int)})


def _given(knob: Knob) -> dict:
    """The URL's values for a page control: by its own key and old aliases only."""
    keys = [k for p in (knob.parts or (knob,)) for k in (p.key, *p.aliases)]
    return {k: st.query_params.get_all(k) for k in keys if k in st.query_params}


def _tidy_url(knob: Knob, lang: str) -> None:
    """Once per session and key: read the URL's value through the knob; if what it shows
    differs from what the URL says (out of range, unreadable, an old key), rewrite the
    URL, keep the notes for the top of the page, and rerun so the widget starts from it."""
    checked = st.session_state.setdefault(_CHECKED, set())
    if knob.key in checked:
        return
    checked.add(knob.key)
    given = _given(knob)
    if not given:
        return
    value, notes = knob.read(given, lang)
    tidy = knob.dump(value, lang)
    as_given = {k: v if isinstance(v, list) else [v] for k, v in tidy.items()} == given
    if not notes and (as_given or value == knob.default):  # the widget reads it as is (a default it drops)
        return
    for k in given:
        del st.query_params[k]
    st.query_params.update(tidy)
    st.session_state.setdefault(_NOTES, []).extend(n.text(lang) for n in notes)
    st.rerun()


MAX_IMPORTS = 20  # per session: the newest are kept, so a session's state stays bounded


def imported_models() -> dict:
    """The configs this session imported (model id → core.config_import.Imported). Each is
    registered again on every run: core's registry is bounded and shared by every session."""
    found = st.session_state.setdefault("_imported", {})
    for imported in found.values():
        register(imported.model)
    return found


def remember_import(imported) -> str:
    """Register an imported config and keep it for this session (the oldest beyond
    MAX_IMPORTS is dropped); returns its model id."""
    found = imported_models()
    model_id = register(imported.model)
    found.pop(model_id, None)  # re-importing makes it the newest
    found[model_id] = imported
    while len(found) > MAX_IMPORTS:
        del found[next(iter(found))]
    return model_id


def select_model(model_id: str, key: str = "models") -> None:
    """Add a model to the models compared on the page (the knob under `key`), once: a link that names a model (?hf=)
    shows its row on the first visit, and a reader who then removes it is not overruled."""
    shown = st.session_state.setdefault("_selected_once", set())
    if model_id in shown:
        return
    shown.add(model_id)
    default = EXTRAS["capacity"].knob(key).default
    picked = st.session_state.get(key) or st.query_params.get_all(key) or list(default)
    if model_id not in picked:
        st.session_state[key] = [*picked, model_id]


def url_notes() -> None:
    """Show what was changed in the URL this visit (at the top of the page)."""
    for note in st.session_state.get(_NOTES, []):
        st.warning(note, icon=":material/link:")


def run_completed() -> None:
    """app.py, at the end of a completed run: the URL notes have been shown once, and the parts
    that follow the context are now drawn, on this page, with these controls."""
    st.session_state.pop(_NOTES, None)
    parts = tuple(st.session_state.get(_PARTS, ()))
    st.session_state[_DRAWN] = (_page(), parts, _others() if parts else None)
