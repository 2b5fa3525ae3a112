"""What a page hands its script (site.js): the states, the figures, how the address carries the
view, all as JSON that may stand inside a <script> element."""

from __future__ import annotations

from functools import cache

import orjson

from figures import CONTEXT, CONTEXT_STOPS, PRECISION, plotly_config
from i18n import LANGS, TEXT, t

from .charts import SHARED_TEMPLATE
from .states import DEFAULT_STOP, PRESET, ROLES, precision, ticks


def script(value) -> str:
    """A value as JSON a <script> element can hold: no "<" in it (nor "</", "<!--"), nor a line
    separator a script would read as a line's end."""
    text = orjson.dumps(value, option=orjson.OPT_SERIALIZE_NUMPY).decode()
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def page_data(p, figures) -> dict:
    """A page's state: its stops, precision classes (those it ships), charts and the shared figure look."""
    return {"slug": p.slug, "stops": CONTEXT_STOPS, "stop": DEFAULT_STOP, "combos": p.combos, "charts": p.charts,
            "roles": {r.name: r.default for r in ROLES}, "ticks": ticks(), "address": address(p.lang),
            "classes": [p.classes[k] if k in p.inline else None for k in range(len(p.classes))],
            "template": SHARED_TEMPLATE, "config": {**plotly_config("x"), "responsive": True},
            "locale": _plotly_locale(p.lang)}


@cache  # a language's, the same on every page
def address(lang: str) -> dict:
    """How the address carries the view, with the app's link keys (figures/knobs.py): what each
    context stop and each choice of the precision controls writes (Knob.dump; None for a default,
    which is left out), the keys each is read from, and every text a choice is read as (its value
    or its label in any language, as Knob.read takes it)."""
    defaults = (PRESET.default, *(r.default for r in ROLES))

    def written(i: int, choice: str) -> str | None:
        combo = (*defaults[:i], choice, *defaults[i + 1:])
        return PRECISION.dump(precision(combo), lang).get(PRECISION.parts[i].key)

    return {
        "ctx": {"keys": [CONTEXT.key, *CONTEXT.aliases], "lo": CONTEXT.lo, "hi": CONTEXT.hi,
                "at": [CONTEXT.dump(n, lang).get(CONTEXT.key) for n in CONTEXT_STOPS]},
        "parts": [{"name": part.name, "keys": [part.key, *part.aliases],
                   "write": {c: written(i, c) for c in part.choices},
                   "read": {text.lower(): c for c in part.choices
                            for text in (str(c), *(part.display(c, lg) for lg in LANGS))}}
                  for i, part in enumerate(PRECISION.parts)],
    }


def _plotly_locale(lang: str) -> dict | None:
    """The chart toolbar's words in the page's language (plotly.js speaks English by itself)."""
    if lang == "en":
        return None
    keys = [k for k in TEXT if k.startswith("site.plotly.")]
    return {"name": lang, "dictionary": {t(k, "en"): t(k, lang) for k in keys}}
