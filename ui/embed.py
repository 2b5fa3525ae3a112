"""?figure=A14&t=7&lang=en (&embed=true, Streamlit's own flag, hides its chrome): one
figure alone, for an iframe or a slide. Every value is read through the registry's knobs,
so a mangled link shows the figure at clamped values or its defaults, with a note —
never an exception. ('embed' itself is reserved by Streamlit, hence 'figure'.) A link's &hf=org/name is
fetched first, so that a model imported by its Hugging Face id opens on any server.

The figure is laid out for the column it is shown in, as on a page: the column component
measures it (a phone's, an iframe's of any width) and the chart is drawn by ui/charts.py."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from figures import FONT_SCALE, LANG, SPECS, THEME
from i18n import t

from .charts import draw, figure
from .column import column_width
from .hub import HUB_FAILURES, fetch_model, hub_failure, linked
from .state import View, as_models, with_imports

# no sidebar, no top bar (nor the room kept for it), and the column component (it only measures) takes no room
_CHROME = ("<style>[data-testid='stSidebar'],[data-testid='stHeader'],"
           "[data-testid='stElementContainer']:has(.st-key-canvas),.st-key-canvas{display:none}"
           "[data-testid='stMainBlockContainer']{padding-top:1rem;padding-bottom:1rem}</style>")


def embed() -> None:
    params = {k: st.query_params.get_all(k) for k in st.query_params}
    lang, _ = LANG.read(params)
    st.markdown(_CHROME, unsafe_allow_html=True)
    asked = (params.get("figure") or [""])[-1].strip()
    spec = SPECS.get(asked) or SPECS.get(asked.upper())
    if spec is None:
        st.error(t("embed.unknown", lang, f=asked[:40] or "—"))
        return
    theme, look_notes = THEME.read(params, lang)
    font_scale, scale_notes = FONT_SCALE.read(params, lang)
    v = View(lang=lang, theme=theme, font_scale=font_scale, canvas=column_width(st.container()))
    if linked():  # a model fetched by its id, kept before the knobs read the link's model ids
        try:
            fetch_model(linked())
        except HUB_FAILURES as e:
            st.caption(f":material/link: {hub_failure(e, lang)}")
    plain = spec.knobs  # with `imports` where a knob takes imported models
    spec = replace(spec, knobs=tuple(with_imports(k) for k in spec.knobs))  # a model imported by the link's id

    def models(values: dict) -> dict:  # an imported model's id as this session's Model, as builders take it
        return {k.name: as_models(k, values[k.name]) for k in plain}

    built, values, notes = spec.from_link(params, lang, lambda values: figure(spec.id, theme, font_scale, v.canvas,
                                                                               **models(values)))
    values = models(values)
    fig = built.figure
    for note in (*notes, *look_notes, *scale_notes):
        st.caption(f":material/link: {note.text(lang)}")
    draw(spec.id, values, v, width="content" if fig.layout.width else "stretch", tools=False)
