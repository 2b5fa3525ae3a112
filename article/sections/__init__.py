"""The article's sections, each described once (article/blocks.py) in a module of its own, its
prose in article/prose/<lang>/<slug>.md: the app's pages and the static site's pages are both drawn
from these. Every number in a text comes from core."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass

from core import OPEN_MODELS
from figures import EXTRAS, FIGURES, generation_models

from .any_model import any_model
from .common import article_title
from .glossary import glossary
from .overview import overview
from .token_axis import token_axis
from .v2 import v2_mla
from .v4 import v4_flash
from .v32 import v32_dsa
from .v41 import v41_flash

__all__ = ["SECTIONS", "Section", "article_title"]


@dataclass(frozen=True)
class Section:
    slug: str  # its URL path in the app, its file name on the site
    title: str  # i18n key of its name in the navigation
    draw: Callable[..., Generator]
    # the models it prices at its defaults: the precision moves the section only through the formats
    # these store (core.role_layouts), which is how the static site counts its precision states
    prices: tuple[str, ...] = ()


SECTIONS = {s.slug: s for s in (
    Section("overview", "app.page.overview", overview, FIGURES["A1"].knob("models").default),
    Section("v2-mla", "app.page.v2", v2_mla, generation_models("v2")),
    Section("v3-2-dsa", "app.page.v32", v32_dsa, generation_models("v3.2")),
    Section("v4-flash", "app.page.v4", v4_flash, generation_models("v4-flash")),
    Section("v4-1-flash", "app.page.v41", v41_flash, generation_models("v4.1-flash")),
    Section("token-axis", "app.page.b", token_axis),
    # its chosen models, and every open preset (its presets table)
    Section("any-model", "app.page.beyond", any_model,
            tuple(dict.fromkeys((*EXTRAS["capacity"].knob("models").default, *OPEN_MODELS)))),
    Section("glossary", "app.page.glossary", glossary),
)}
