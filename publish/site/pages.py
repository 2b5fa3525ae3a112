"""A section's page in one language: its blocks at the default state, and at every context stop of
each precision class what differs from them."""

from __future__ import annotations

from dataclasses import dataclass

from article import AppField, Chart, Text
from core import Precision
from figures import CONTEXT, CONTEXT_STOPS

from . import markup
from .charts import Figures
from .states import PRESET_COMBOS, AppControls, SiteView, blocks, precision_classes


@dataclass
class Page:
    slug: str
    lang: str
    html: list[str]  # the body's blocks, at the default state
    charts: list[dict]  # {el, fig, id}: every chart at the default state
    combos: dict[str, int]  # a combination of the precision controls → its class
    classes: list[dict]  # per class, {el: {values, at}}: what differs from the default at a stop
    inline: set[int]  # the classes the page ships (the presets'); the others in files of their own
    intro: str  # the first text, plain (the description of a shared link)
    app_url: str | None = None  # where the app is served: the page links to its view there

    def figures(self, classes) -> set[int]:
        """The figures the classes show."""
        return {v[0] for k in classes for d in self.classes[k].values() for v in d["values"] if isinstance(v, tuple)}


def page(slug: str, lang: str, figures: Figures, images: bool = False, every: bool = False,
         app_url: str | None = None) -> Page:
    """A section in one language: its blocks at the default state, and at every context stop of each
    precision class what differs from them. Where the app draws a figure's controls, the page says
    what they are and, given the app's address, links to the figure there."""
    default = blocks(slug, SiteView(lang, CONTEXT.default, Precision()))
    shape = [type(b) for b in default]

    def html(b) -> str:
        if isinstance(b, AppControls):
            return markup.app_controls(b, slug, lang, app_url)
        if isinstance(b, AppField):
            return markup.app_field(b, slug, lang, app_url)
        return markup.block(b, lang)

    shown = [figures.add(b) if isinstance(b, Chart) else html(b) for b in default]

    def differs(rep: Precision) -> dict:
        at_stop = [blocks(slug, SiteView(lang, context, rep)) for context in CONTEXT_STOPS]
        if any([type(b) for b in bs] != shape for bs in at_stop):
            raise ValueError(f"{slug}: a section must show the same blocks at every context and precision")
        out = {}
        for i, value in enumerate(shown):
            values = [figures.add(bs[i]) if isinstance(value, tuple) else html(bs[i]) for bs in at_stop]
            if any(v != value for v in values):
                distinct = list(dict.fromkeys(values))
                out[f"b{i}"] = {"values": distinct, "at": [distinct.index(v) for v in values]}
        return out

    combos, reps = precision_classes(slug, every)
    inline = {combos["|".join(c)] for c in PRESET_COMBOS}
    body, charts = [], []
    for i, (block, value) in enumerate(zip(default, shown)):
        if isinstance(block, Chart):
            charts.append({"el": f"b{i}", "fig": value[0], "id": block.figure_id})
            body.append(markup.figure(f"b{i}", block.figure_id, value[1], value[2], slug, lang, images))
        else:
            body.append(markup.wrapped(f"b{i}", value, lang))
    intro = next((markup.plain(b) for b in default if isinstance(b, Text)), "")
    return Page(slug, lang, body, charts, combos, [differs(rep) for rep in reps], inline, intro, app_url)


def lead(slug: str, lang: str) -> Chart | None:
    """A section's first figure at the defaults: the picture of a shared link."""
    return next((b for b in blocks(slug, SiteView(lang, CONTEXT.default, Precision())) if isinstance(b, Chart)), None)
