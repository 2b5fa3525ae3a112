"""The states a page ships: a context stop and a precision class, the control combinations that
give the section's models the same formats (core.role_layouts), and the blocks a section shows
in one of them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product

from article import SECTIONS, Ask, Chart, Either, Part, Tool, run_section
from core import Precision, fmt_tokens, role_layouts
from figures import CONTEXT, CONTEXT_STOPS, PRECISION, UNITS, Knob

PRESET, *ROLES = PRECISION.parts  # the preset; a format per component ("auto": the preset's)
PRESET_COMBOS = tuple((preset, *("auto" for _ in ROLES)) for preset in PRESET.choices)
COMBOS = tuple(dict.fromkeys((*PRESET_COMBOS, *product(PRESET.choices, *(r.choices for r in ROLES)))))
DEFAULT_STOP = CONTEXT_STOPS.index(CONTEXT.default)


def precision(combo: tuple[str, ...]) -> Precision:
    """The precision a combination of the controls selects."""
    preset, *roles = combo
    return Precision(preset, *(None if r == "auto" else r for r in roles))


def precision_classes(slug: str, every: bool) -> tuple[dict[str, int], list[Precision]]:
    """The section's precision classes: each combination's class ("deployed|auto|fp4|auto" → 2; the
    presets' alone unless `every`), and a precision of each class. Class 0 is the default's."""
    models = SECTIONS[slug].prices
    of, reps, index = {}, [], {}
    for combo in COMBOS if every else PRESET_COMBOS:
        p = precision(combo)
        stored = tuple(tuple(role_layouts(m, p).values()) for m in models)
        of["|".join(combo)] = index.setdefault(stored, len(reps))
        if len(reps) < len(index):
            reps.append(p)
    return of, reps


@cache
def ticks() -> dict[str, list[str]]:
    """What the context output says at each stop: in full, and as the app's slider says it (128K)."""
    return {"long": [f"N = {n:,}" for n in CONTEXT_STOPS], "short": [f"N = {fmt_tokens(n)}" for n in CONTEXT_STOPS]}


@dataclass(frozen=True)
class SiteView:
    """A view of the site: its language and a state of its controls (an article.blocks.Reading)."""

    lang: str
    context: int
    precision: Precision
    units: str = UNITS.default


@dataclass(frozen=True)
class AppControls:
    """On the site, in the place of a figure's controls, which only the app has: what they are, and
    the figure they move (the next one the section shows), to open it in the app."""

    knobs: tuple[Knob, ...]
    figure_id: str = ""


def blocks(slug: str, reading: SiteView, app: bool = False) -> list:
    """The blocks a section shows at a reading, every control at its default, the app's own tools
    at the defaults the section gives them: as the site shows it (what it shows in the tools'
    place, its side of an Either, an AppControls where the app draws a figure's controls), or with
    `app`, the app's text (its side of an Either, nothing for a tool or a control)."""
    shown = []

    def answer(block):
        match block:
            case Ask(knobs):
                if not app:
                    shown.append(AppControls(knobs))
                return tuple(k.default for k in knobs)
            case Tool(_, default, site):
                shown.extend(() if app else site)
                return default
            case Either(in_app, on_site):
                shown.extend(in_app if app else on_site)
                return None
            case Part(_, section):
                return run_section(section(reading), answer)
        shown.append(block)

    run_section(SECTIONS[slug].draw(reading), answer)
    return _with_figures(shown)


def _with_figures(shown: list) -> list:
    """Each AppControls names the figure it moves, the next chart; a figure's controls asked for in
    several rows are named in one line, where the first row stands."""
    out, figure = [], ""
    for b in reversed(shown):
        if isinstance(b, Chart):
            figure = b.figure_id
        out.append(AppControls(b.knobs, figure) if isinstance(b, AppControls) else b)
    merged, first = [], {}
    for b in reversed(out):
        if isinstance(b, AppControls) and b.figure_id in first:
            at = first[b.figure_id]
            merged[at] = AppControls(merged[at].knobs + b.knobs, b.figure_id)
            continue
        if isinstance(b, AppControls):
            first[b.figure_id] = len(merged)
        merged.append(b)
    return merged
