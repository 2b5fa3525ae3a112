"""Every label of figures and pages, in Korean (the article's) and English.

`t(key, lang, **fields)` looks a label up and fills its {fields}. A missing key or
language raises KeyError, so a label cannot silently fall back to the wrong language.
Numbers that core defines are {fields}, filled by the caller from core, never typed here.
"""

from __future__ import annotations

from .text import TEXT

__all__ = ["DEFAULT_LANG", "LANGS", "TEXT", "model_name", "t"]

LANGS = ("ko", "en")
DEFAULT_LANG = "ko"


def t(key: str, lang: str = DEFAULT_LANG, /, **fields) -> str:
    text = TEXT[key][lang]
    return text.format(**fields) if fields else text


def model_name(model_id: str, name: str, lang: str) -> str:
    """A model's display name: a translated one where the table has it (the hypothetical MHA)."""
    key = f"model.{model_id}"
    return t(key, lang) if key in TEXT else name
