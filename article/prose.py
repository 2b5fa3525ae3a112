"""A section's prose, where a writer edits it: article/prose/<lang>/<slug>.md.

A file is a sequence of passages, each opened by a line `<!-- name -->`. A passage is Markdown
(inline <sub>/<sup> allowed; no `$`, which Streamlit reads as LaTeX) with {fields} that the section
fills from core, so no number a spec defines is typed in prose ({{ and }} are literal braces).
`passage(slug, name, lang, **fields)` yields a passage as blocks: each `## ` / `### ` line a
Heading, the Markdown between them one Text in the "prose" style."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from .blocks import Heading, Text

PROSE = Path(__file__).resolve().parent / "prose"
_MARK = re.compile(r"^<!--\s*([\w.-]+)\s*-->[ \t]*$", re.M)
_HEADING = re.compile(r"^(#{2,3}) (.+)$", re.M)


@cache
def passages(slug: str, lang: str) -> dict[str, str]:
    """A section's passages in one language, by name, in the file's order."""
    path = PROSE / lang / f"{slug}.md"
    _, *parts = _MARK.split(path.read_text(encoding="utf-8"))
    found = {}
    for name, body in zip(parts[::2], parts[1::2]):
        if name in found:
            raise ValueError(f"{path}: passage {name!r} twice")
        found[name] = body.strip()
    return found


def passage(slug: str, name: str, lang: str, **fields) -> Iterator[Heading | Text]:
    """The passage `name` of a section in `lang`, its fields filled, as blocks."""
    text = passages(slug, lang)[name].format(**fields)
    at = 0
    for heading in _HEADING.finditer(text):
        yield from _text(text[at:heading.start()])
        yield Heading(heading[2].strip(), len(heading[1]))
        at = heading.end()
    yield from _text(text[at:])


_ALLOWED = re.compile(r"</?su[bp]>|<https?://[^\s<>]*>")  # notation, and Markdown's autolinks


def notation(markdown: str) -> str:
    """Prose as Markdown that may be rendered with HTML on: <sub>/<sup> and autolinks kept, any other
    `<` escaped, so nothing a field or a passage holds can become an element."""
    out, at = [], 0
    for m in _ALLOWED.finditer(markdown):
        out += [markdown[at:m.start()].replace("<", "&lt;"), m[0]]
        at = m.end()
    return "".join(out) + markdown[at:].replace("<", "&lt;")


def _text(markdown: str) -> Iterator[Text]:
    if markdown.strip():
        yield Text(markdown.strip(), "prose")
