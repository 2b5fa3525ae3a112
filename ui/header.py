"""The top of a generation page: title, intro, headline numbers and its A1-family chart."""

from __future__ import annotations

import streamlit as st

from core.summary import Summary, summarise
from core.units import fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens
from i18n import t

from .charts import chart
from .state import View, view


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


def generation_header(model_id: str, key: str, items: tuple[str, ...], **intro_fields) -> Summary:
    """Title, intro (its spec numbers in `intro_fields`), and the model's headline numbers."""
    v = view()
    st.title(t(f"{key}.title", v.lang))
    st.caption(t(f"{key}.intro", v.lang, **intro_fields))
    s = summarise(model_id, v.context, v.precision)
    metrics(s, v, items)
    return s


def generation_chart(figure_id: str) -> None:
    v = view()
    chart(figure_id, context=v.context, precision=v.precision, lang=v.lang, units=v.units)
