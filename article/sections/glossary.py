"""The glossary: every term the sections use, with its one meaning, grouped by the step of the story
where a reader first meets it (article/prose/glossary.toml)."""

from __future__ import annotations

from i18n import t

from ..blocks import Heading, Reading, Text, Title
from ..glossary import groups, terms
from .common import Blocks


def glossary(v: Reading) -> Blocks:
    L = v.lang
    yield Title(t("gl.title", L))
    yield Text(t("gl.intro", L), "caption")
    for group, name in groups().items():
        yield Heading(name[L])
        yield Text("\n".join(f"- {_name(term, L)}: {term.definition[L]}" for term in terms() if term.group == group),
                   "prose")


def _name(term, lang: str) -> str:
    """The term in bold, and in Korean its English name beside it where that is a single name."""
    name, en = term.name[lang], term.name["en"]
    beside = lang == "ko" and term.en_in_ko and en.lower() != name.lower()
    return f"**{name}** ({en})" if beside else f"**{name}**"
