"""A model by its Hugging Face id in the app (core.hub): fetched, imported and kept for the session, under the
link key `hf`; a failure said in the reader's language. The Any model page reads it from its field, a figure
link carries it, so that a shared view of an imported model opens on any server."""

from __future__ import annotations

import streamlit as st

from core import ConfigError, HubError, fetch, import_fetched
from i18n import t

from .state import remember_import

HF_KEY = "hf"  # the link key, and the Any model page's field


def fetch_model(text: str):
    """The model an id names, imported and kept for this session: (the fetch, the import, its model id).
    HubError or ConfigError where the Hub or the importer refuses it."""
    found = fetch(text)
    imported = import_fetched(found)
    return found, imported, remember_import(imported)


def hub_failure(e: Exception, lang: str) -> str:
    """A fetch's failure in one line of the reader's language."""
    if isinstance(e, HubError):
        return t("by.hf.bad", lang, e=t(f"by.hf.why.{e.key}", lang, **e.facts))
    return t("by.bad", lang, e=e)


def linked() -> str:
    """The id the page's link names, or ''."""
    return (st.query_params.get(HF_KEY) or "").strip()


HUB_FAILURES = (HubError, ConfigError)
