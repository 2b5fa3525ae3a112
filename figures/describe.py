"""A figure in words, for whoever cannot see it: a screen reader's text alternative on a page,
a talk deck's speaker notes. Its title and subtitle as the builder wrote them (the registry's
title), the captions its builder attached, and for the storage/read bar charts each model's
storage per token and read per generated token — numbers core computed, carried in the
figure's meta."""

from __future__ import annotations

import plotly.graph_objects as go

from core import get
from core.units import fmt_bytes, fmt_exact
from i18n import model_name, t

from .style import title_parts
from .text import plain


def description(fig: go.Figure, lang: str, units: str = "decimal") -> str:
    """What the figure shows and its numbers, a line each: title, subtitle, captions, and for the
    bar charts each model's storage per token and read per generated token at the context."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    lines = [*title_parts(fig), *map(plain, meta.get("captions", ()))]
    rows = [r for r in meta.get("numbers", ()) if "storage_per_token" in r]
    if rows:
        names = [model_name(r["model"], get(r["model"]).name, lang) for r in rows]
        stored = " · ".join(f"{n} {fmt_exact(r['storage_per_token'])}" for n, r in zip(names, rows))
        read = " · ".join(f"{n} {fmt_bytes(r['read_total'], units)}" for n, r in zip(names, rows))
        context = f"{rows[0]['context']:,}"
        lines += [f"{t('a1.storage', lang)}: {stored}", f"{t('a1.read', lang, n=context)}: {read}"]
    return "\n".join(line for line in lines if line)
