"""?figure=A14&t=7&lang=en (&embed=true, Streamlit's own flag, hides its chrome): one
figure alone, for an iframe or a slide. Every value is read through the registry's knobs,
so a mangled link shows the figure at clamped values or its defaults, with a note —
never an exception. ('embed' itself is reserved by Streamlit, hence 'figure'.)"""

from __future__ import annotations

import streamlit as st

from figures import SPECS
from figures.knobs import FONT_SCALE, LANG, THEME
from figures.style import apply_look, plotly_config
from i18n import t

_HIDE_CHROME = "<style>[data-testid='stSidebar'],[data-testid='stHeader']{display:none}</style>"


def embed() -> None:
    params = {k: st.query_params.get_all(k) for k in st.query_params}
    lang, _ = LANG.read(params)
    st.markdown(_HIDE_CHROME, unsafe_allow_html=True)
    asked = (params.get("figure") or [""])[-1].strip()
    spec = SPECS.get(asked) or SPECS.get(asked.upper())
    if spec is None:
        st.error(t("embed.unknown", lang, f=asked[:40] or "—"))
        return
    fig, _, notes = spec.build(params, lang)
    theme, look_notes = THEME.read(params, lang)
    font_scale, scale_notes = FONT_SCALE.read(params, lang)
    for note in (*notes, *look_notes, *scale_notes):
        st.caption(f":material/link: {note.text(lang)}")
    st.plotly_chart(apply_look(fig, theme, font_scale), theme=None, config=plotly_config(spec.id),
                    width="stretch" if fig.layout.width is None else "content")
