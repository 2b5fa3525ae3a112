"""What a section is made of. A section is a generator: it yields blocks in reading order, and a
block that asks (`Ask`, `Tool`, `Part`) is answered with a value the section reads on. The app
answers with Streamlit widgets (ui/article.py); the static site with the knobs' defaults
(publish/site/). Texts and numbers are filled in by the section, from core."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from core import Precision
from figures import Knob


class Reading(Protocol):
    """What a section reads of the view: its language, the context, the precision, the units."""

    lang: str
    context: int
    precision: Precision
    units: str


@dataclass(frozen=True)
class Title:
    text: str


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2  # 2: a section's header, 3: under it


@dataclass(frozen=True)
class Text:
    text: str
    style: str = "markdown"  # "markdown", "caption", "info", "error"


@dataclass(frozen=True)
class Metrics:
    items: tuple[tuple[str, str], ...]  # (label, value), side by side


@dataclass(frozen=True)
class Chart:
    figure_id: str
    knobs: dict = field(default_factory=dict)
    width: str = "stretch"  # "content": a matrix diagram, whose size is part of the drawing


@dataclass(frozen=True)
class Table:
    columns: dict  # header → values
    numbers: tuple[str, ...] = ()  # the columns of byte counts, shown with thousands separators
    download: tuple[str, str] | None = None  # (label, file name): offered as CSV
    name: str = ""  # what it holds (the heading over it), for a screen reader
    wrap: bool = False  # long texts: every cell shown whole and wrapped, not in a scrolling grid


@dataclass(frozen=True)
class Ask:
    """Controls side by side (relative `widths`): answered with a tuple of their values."""

    knobs: tuple[Knob, ...]
    widths: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Tool:
    """A tool only the app has (an upload, a toggle that is not a knob): the app answers with what
    `app()` returns; the site with `default`, showing `site` in its place."""

    app: Callable[[], Any] | None  # None where only the site draws the section
    default: Any = None
    site: tuple = ()  # blocks


@dataclass(frozen=True)
class AppField:
    """A value only the app reads, from its link (a model's Hugging Face id): on the site, a form that opens the
    section's page in the app with the value typed under `key` (in a Tool's `site` blocks)."""

    key: str
    label: str
    placeholder: str
    button: str


@dataclass(frozen=True)
class Either:
    """What the app and the site say differently (e.g. how to use a control only the app has):
    the app shows `app`, the site `site` (blocks, no controls)."""

    app: tuple = ()
    site: tuple = ()


@dataclass(frozen=True)
class Part:
    """A part of the section that the context alone moves (the app reruns only it on a context
    step): `section(reading)` is a section of its own; answered with what it returns."""

    key: str
    section: Callable[[Reading], Generator]


Block = Title | Heading | Text | Metrics | Chart | Table | Ask | Tool | AppField | Either | Part


def run_section(section: Generator, answer: Callable[[Block], Any]) -> Any:
    """Run a section to its end, each block handed to `answer` and its answer sent back; returns
    what the section returns."""
    try:
        block = next(section)
        while True:
            block = section.send(answer(block))
    except StopIteration as end:
        return end.value
