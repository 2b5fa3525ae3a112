"""A section's prose, where a writer edits it: article/prose/<lang>/<slug>.md.

A file is a sequence of passages, each opened by a line `<!-- name -->`, or `<!-- name app -->` for
a passage only the app shows: one about moving a control the static site does not have (the site
shows, in its place, what the figure's controls are and a link to it in the app). A passage is Markdown
(inline <sub>/<sup> allowed; no `$`, which Streamlit reads as LaTeX) with {fields} that the section
fills from core, so no number a spec defines is typed in prose ({{ and }} are literal braces).
`passage(slug, name, lang, **fields)` yields a passage as blocks: each `## ` / `### ` line a
Heading, the Markdown between them one Text in the "prose" style."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from .blocks import Either, Heading, Text

PROSE = Path(__file__).resolve().parent / "prose"
_MARK = re.compile(r"^<!--\s*([\w.-]+(?:\s+app)?)\s*-->[ \t]*$", re.M)
_HEADING = re.compile(r"^(#{2,3}) (.+)$", re.M)


@cache
def passages(slug: str, lang: str) -> dict[str, str]:
    """A section's passages in one language, by name, in the file's order."""
    return {name: body for name, (body, _) in _read(slug, lang).items()}


@cache
def app_only(slug: str, lang: str) -> frozenset[str]:
    """The names of a section's passages that only the app shows (marked `<!-- name app -->`)."""
    return frozenset(name for name, (_, app) in _read(slug, lang).items() if app)


@cache
def _read(slug: str, lang: str) -> dict[str, tuple[str, bool]]:
    path = PROSE / lang / f"{slug}.md"
    _, *parts = _MARK.split(path.read_text(encoding="utf-8"))
    found = {}
    for mark, body in zip(parts[::2], parts[1::2]):
        name, *app = mark.split()
        if name in found:
            raise ValueError(f"{path}: passage {name!r} twice")
        found[name] = body.strip(), bool(app)
    return found


def passage(slug: str, name: str, lang: str, **fields) -> Iterator[Heading | Text | Either]:
    """The passage `name` of a section in `lang`, its fields filled, as blocks (one Either the site
    leaves out, for a passage only the app shows)."""
    blocks = tuple(_blocks(passages(slug, lang)[name].format(**fields)))
    if name in app_only(slug, lang):
        yield Either(app=blocks)
    else:
        yield from blocks


def _blocks(text: str) -> Iterator[Heading | Text]:
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
