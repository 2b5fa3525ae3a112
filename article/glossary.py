"""The project's terms (article/prose/glossary.toml): one word per meaning in each language, the
same in every section, its definition written in each language, and the other words for it that
prose must not use."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache

from .prose import PROSE


@dataclass(frozen=True)
class Term:
    id: str
    group: str
    name: dict[str, str]  # by language
    definition: dict[str, str]
    avoid: dict[str, tuple[str, ...]]
    en_in_ko: bool = True  # the English name beside the Korean one (not where it is a phrase)


@cache
def _read() -> dict:
    return tomllib.loads((PROSE / "glossary.toml").read_text(encoding="utf-8"))


@cache
def terms() -> tuple[Term, ...]:
    """Every term, in the order a reader meets them."""
    return tuple(Term(d["id"], d["group"], {lang: d[lang] for lang in ("ko", "en")},
                      {lang: d[f"{lang}_def"] for lang in ("ko", "en")},
                      {lang: tuple(d.get(f"avoid_{lang}", ())) for lang in ("ko", "en")}, d.get("en_in_ko", True))
                 for d in _read()["term"])


@cache
def groups() -> dict[str, dict[str, str]]:
    """The glossary's parts, in order: id → name by language."""
    return _read()["group"]
