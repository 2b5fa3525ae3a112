"""The top of a generation page: title, intro, headline numbers, notes and its A1-family chart."""

from __future__ import annotations

import streamlit as st

from core.summary import Summary, summarise
from core.units import fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens
from i18n import model_name, t

from .charts import chart
from .state import View, follows_context, view


def metrics(s: Summary, v: View, items: tuple[str, ...]) -> None:
    """One st.metric per item (storage, cache, ratio, local, read, key_share) for a model's summary."""
    L = v.lang
    name = model_name(s.model.id, s.model.name, L)
    shown = {
        "storage": (t("ov.m.storage", L, m=name), fmt_exact(s.storage.total)),
        "cache": (t("ov.m.cache", L, m=name, n=fmt_tokens(v.context)), fmt_bytes(s.cache.total, v.units)),
        "ratio": (t("v2.m.ratio", L), fmt_ratio(s.ratio)),
        "local": (t("v4.m.local", L), fmt_bytes(s.local_kv, v.units)),
        "read": (f"{t('ov.m.read', L, m=name)} ({fmt_tokens(v.context)})", fmt_bytes(s.read.total, v.units)),
        "key_share": (t("dsa.m.share", L), f"{s.key_share:.0%}"),
    }
    for col, item in zip(st.columns(len(items)), items):
        col.metric(*shown[item])


def generation_top(model_id: str, key: str, items: tuple[str, ...], figure_id: str, notes=None,
                   **intro_fields) -> Summary:
    """The top of a generation page, the part a context step reruns (follows_context): title,
    intro (its spec numbers in `intro_fields`), the model's headline numbers, the page's own lines
    about them (`notes(summary, view)`), where its local KV is overtaken, and its A1-family chart.
    Returns the summary: below the top, a page reads only what the context does not move."""

    @follows_context(f"{key}-top")
    def top() -> Summary:
        v = view()
        st.title(t(f"{key}.title", v.lang))
        st.caption(t(f"{key}.intro", v.lang, **intro_fields))
        s = summarise(model_id, v.context, v.precision)
        metrics(s, v, items)
        if notes:
            notes(s, v)
        if s.crossover_tokens:
            st.info(t("v4.crossover", v.lang, n=f"{s.crossover_tokens:,}", local=fmt_bytes(s.local_kv, v.units)))
        chart(figure_id, context=v.context, precision=v.precision, lang=v.lang, units=v.units)
        return s

    return top()
