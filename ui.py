"""Streamlit glue shared by the router and the pages: the sidebar controls (bound to the
URL so a copied link reproduces the view), the current view, and chart display."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from core import PRESETS, Precision
from core.summary import Summary
from core.units import UNITS, fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens
from figures import EXTRAS, FIGURES
from figures.i18n import DEFAULT_LANG, LANGS, t
from figures.style import THEMES, apply_look, plotly_config

# 1K … 3M tokens, two steps per octave (K = 1,024); 128K = 131,072 is the article's N.
CONTEXTS = tuple(sorted({int(1024 * f * 2**k) for k in range(12) for f in (1, 1.5)}))
DEFAULT_CONTEXT = 131072
OVERRIDES = ("auto", "bf16", "fp8", "fp4")
FONT_SCALES = (1.0, 1.25, 1.5, 2.0)


@dataclass(frozen=True)
class View:
    lang: str = DEFAULT_LANG
    context: int = DEFAULT_CONTEXT
    precision: Precision = Precision()
    units: str = "decimal"
    theme: str = "light"
    font_scale: float = 1.0


def sidebar() -> View:
    """Render the shared controls and return the view they select."""
    lang = st.session_state.get("lang", DEFAULT_LANG)
    lang = lang if lang in LANGS else DEFAULT_LANG
    sb = st.sidebar
    lang = sb.radio(t("app.lang", lang), LANGS, horizontal=True, key="lang", bind="query-params")
    context = sb.select_slider(t("app.context", lang), CONTEXTS, value=DEFAULT_CONTEXT, format_func=fmt_tokens,
                               help=t("app.context.help", lang), key="ctx", bind="query-params")
    sb.caption(f"N = {context:,}")
    preset = sb.radio(t("app.precision", lang), PRESETS, horizontal=True, help=t("app.precision.help", lang),
                      key="prec", bind="query-params")
    with sb.expander(t("app.override", lang)):
        st.caption(t("app.override.help", lang))
        picks = {role: st.selectbox(t(f"role.{role}", lang), OVERRIDES, format_func=str.upper,
                                    key=key, bind="query-params")
                 for role, key in (("main_kv", "main"), ("index_key", "ikey"), ("local_kv", "local"))}
    units = sb.radio(t("app.units", lang), UNITS, horizontal=True, key="units", bind="query-params")
    with sb.expander(t("app.look", lang)):
        theme = st.radio(t("app.theme", lang), THEMES, horizontal=True, key="theme", bind="query-params")
        font_scale = st.select_slider(t("app.font", lang), FONT_SCALES, value=1.0, key="fs", bind="query-params")
    precision = Precision(preset, **{r: (None if p == "auto" else p) for r, p in picks.items()})
    view = View(lang, context, precision, units, theme, font_scale)
    st.session_state["_view"] = view
    return view


def view() -> View:
    """The view chosen in the sidebar this run (defaults when a page runs on its own)."""
    return st.session_state.get("_view", View())


@st.cache_resource(max_entries=512, show_spinner=False)
def figure(figure_id: str, theme: str = "light", font_scale: float = 1.0, **knobs):
    """Build a registered figure once per distinct set of knobs and look. Figures are shared,
    not copied: nothing downstream mutates them (st.plotly_chart only serialises)."""
    fig = {**FIGURES, **EXTRAS}[figure_id](**knobs)
    return fig if (theme, font_scale) == ("light", 1.0) else apply_look(fig, theme, font_scale)


def chart(figure_id: str, *, width: str = "stretch", **knobs) -> None:
    """Show a figure exactly as it exports: our template, not Streamlit's theme.
    Matrix diagrams pass width="content": their size is part of the drawing."""
    v = view()
    fig = figure(figure_id, v.theme, v.font_scale, **knobs)
    st.plotly_chart(fig, theme=None, config=plotly_config(figure_id), key=f"chart-{figure_id}", width=width)
    downloads(fig, figure_id, knobs.get("lang", DEFAULT_LANG), knobs)


def figure_link(figure_id: str, knobs: dict) -> str:
    """A relative link that shows this figure alone with these knobs (see `embed`)."""
    from urllib.parse import urlencode

    v = view()
    params = {"figure": figure_id, "lang": knobs.get("lang", v.lang)}
    for name, value in knobs.items():
        if name == "context":
            params["ctx"] = value
        elif name == "precision":
            params["prec"] = value.preset
        elif isinstance(value, int | float | str) and name != "lang":
            params[name] = value
    if v.theme != "light" or v.font_scale != 1.0:
        params.update(theme=v.theme, fs=v.font_scale)
    return "?" + urlencode(params)


def downloads(fig, figure_id: str, lang: str, knobs: dict) -> None:
    """SVG / slide PNG / interactive HTML / numbers; files are rendered only when clicked."""
    from figures.export import SLIDE_SIZES, to_bytes

    pngs = tuple((f"PNG {w}×{h}", "png", "image/png", {"width": w, "height": h}, f"-{name}")
                 for name, (w, h) in SLIDE_SIZES.items())
    files = (("SVG", "svg", "image/svg+xml", {}, ""), *pngs, ("HTML", "html", "text/html", {}, ""),
             ("CSV", "csv", "text/csv", {}, ""))
    with st.popover(t("app.download", lang), width="content"):
        for label, fmt, mime, size, suffix in files:
            st.download_button(label, data=lambda fmt=fmt, size=size: to_bytes(fig, fmt, **size),
                               file_name=f"kv-atlas-{figure_id}{suffix}.{fmt}", mime=mime,
                               key=f"dl-{figure_id}-{fmt}{suffix}", on_click="ignore")
        if figure_id in FIGURES:
            st.caption(t("app.link", lang))
            st.code(figure_link(figure_id, knobs), language=None)


def parse_matrix(text: str, name: str) -> list[list[float]]:
    """'1, 0; 0, 1' (rows by ; or new line, values by commas or spaces; 'ln 3' allowed) -> rows.
    Raises ValueError with a message a reader can act on."""
    import math
    import re

    rows = [r for r in re.split(r"[;\n]", text) if r.strip()]
    if not rows:
        raise ValueError(f"{name} is empty")
    out = []
    for i, row in enumerate(rows, 1):
        values = []
        for token in re.findall(r"ln\s*[^\s,]+|[^\s,]+", row.strip()):
            try:
                values.append(math.log(float(token[2:])) if token.startswith("ln") else float(token))
            except ValueError:
                raise ValueError(f"{name}, row {i}: '{token}' is not a number") from None
        out.append(values)
    if len({len(r) for r in out}) != 1:
        raise ValueError(f"{name}: every row needs the same number of values, got {[len(r) for r in out]}")
    return out


def format_matrix(rows) -> str:
    """The inverse of parse_matrix; natural logs of whole numbers show as 'ln N'."""
    import math

    def cell(x: float) -> str:
        n = round(math.exp(x)) if 0 < x < 50 else 0
        return f"ln {n}" if n > 1 and math.log(n) == x else f"{x:g}"

    return "; ".join(", ".join(cell(x) for x in row) for row in rows)


def metrics(s: Summary, v: View, items: tuple[str, ...]) -> None:
    """One st.metric per item (storage, ratio, local, read, key_share) for a model's summary."""
    name, L = s.model.name, v.lang
    shown = {
        "storage": (t("ov.m.storage", L, m=name), fmt_exact(s.storage.total)),
        "ratio": (t("v2.m.ratio", L), fmt_ratio(s.ratio)),
        "local": (t("v4.m.local", L), fmt_bytes(s.local_kv, v.units)),
        "read": (f"{t('ov.m.read', L, m=name)} ({fmt_tokens(v.context)})", fmt_bytes(s.read.total, v.units)),
        "key_share": (t("dsa.m.share", L), f"{s.key_share:.0%}"),
    }
    for col, item in zip(st.columns(len(items)), items):
        col.metric(*shown[item])


def embed() -> None:
    """?figure=A14&t_=7&lang=en (&embed=true, Streamlit's own flag, hides its chrome): just
    that figure, for an iframe. Knobs come from the URL, typed by the builder's defaults; a
    bad value is explained, not raised. ('embed' itself is reserved by Streamlit.)"""
    import inspect

    from core.cli import parse_context

    qp = st.query_params
    lang = qp.get("lang", DEFAULT_LANG) if qp.get("lang") in LANGS else DEFAULT_LANG
    fid = qp.get("figure", "")
    builders = {**FIGURES, **EXTRAS}
    st.markdown("<style>[data-testid='stSidebar'],[data-testid='stHeader']{display:none}</style>",
                unsafe_allow_html=True)
    if fid not in builders:
        st.error(t("embed.unknown", lang, f=fid or "—"))
        return
    try:
        knobs = {"lang": lang}
        for name, p in inspect.signature(builders[fid]).parameters.items():
            if name in qp and name != "lang":
                knobs[name] = _typed(qp[name], p.default)
        if "ctx" in qp:
            knobs["context"] = parse_context(qp["ctx"])
        if "prec" in qp:
            knobs["precision"] = Precision(qp["prec"])
        fig = apply_look(builders[fid](**knobs), qp.get("theme", "light"), float(qp.get("fs", 1.0)))
    except (ValueError, TypeError) as e:
        st.error(t("embed.bad", lang, e=e))
        return
    st.plotly_chart(fig, theme=None, config=plotly_config(fid), width="stretch" if fig.layout.width is None
                    else "content")


def _typed(text: str, default):
    """A URL value as the type of the builder's default (int, float, or str)."""
    if isinstance(default, bool):
        return text.lower() in ("1", "true", "yes")
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text


def generation_header(model_id: str, key: str, items: tuple[str, ...]) -> Summary:
    """A generation page's top: title, intro, headline numbers and its A1-family chart."""
    from core.summary import summarise

    v = view()
    st.title(t(f"{key}.title", v.lang))
    st.caption(t(f"{key}.intro", v.lang))
    s = summarise(model_id, v.context, v.precision)
    metrics(s, v, items)
    return s


def generation_chart(figure_id: str) -> None:
    v = view()
    chart(figure_id, context=v.context, precision=v.precision, lang=v.lang, units=v.units)
