"""A figure in words, for whoever cannot see it: a screen reader's text alternative on a page,
a talk deck's speaker notes. Its title and subtitle as the builder wrote them (the registry's
title), a diagram's captions, and for the storage/read bar charts each model's storage per
token and read per generated token — the records core computed, as the build gives them
(figures.made.Built)."""

from __future__ import annotations

from core import Model, fmt_bytes, fmt_exact, get
from i18n import model_name, t

from .made import Built
from .text import plain


def description(built: Built, lang: str, units: str = "decimal", models=()) -> str:
    """What the figure shows and its numbers, a line each: title, subtitle, captions, and for the
    bar charts each model's storage per token and read per generated token at the context. `models`: the
    figure's models as its knob gave them, for the name of an imported one (a Model, which no id names in core)."""
    lines = [built.title, built.subtitle, *map(plain, built.captions)]
    rows = [r for r in built.numbers if "storage_per_token" in r]
    if rows:
        given = {m.id: m for m in models if isinstance(m, Model)}
        names = [model_name(r["model"], get(given.get(r["model"], r["model"])).name, lang) for r in rows]
        stored = " · ".join(f"{n} {fmt_exact(r['storage_per_token'])}" for n, r in zip(names, rows))
        read = " · ".join(f"{n} {fmt_bytes(r['read_total'], units)}" for n, r in zip(names, rows))
        context = f"{rows[0]['context']:,}"
        lines += [f"{t('a1.storage', lang)}: {stored}", f"{t('a1.read', lang, n=context)}: {read}"]
    return "\n".join(line for line in lines if line)
