"""What the sections share: the article's title, a model's headline numbers, the top of a
generation page, a figure's controls."""

from __future__ import annotations

from collections.abc import Callable, Generator

from core import A1_MODELS, Summary, fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens, storage_per_token, summarise
from figures import SPECS
from i18n import model_name, t

from ..blocks import Ask, Chart, Metrics, Part, Reading, Text, Title

Blocks = Generator  # a section's blocks (article/blocks.py)


def article_title(lang: str) -> str:
    """Article A's title, its two sizes from core (the Overview's heading, a deck's first slide)."""
    first, last = (storage_per_token(m).total for m in (A1_MODELS[0], A1_MODELS[-1]))
    return t("ov.title", lang, first=fmt_bytes(first, sig=2), last=fmt_exact(last))


def metrics(s: Summary, v: Reading, items: tuple[str, ...]) -> Metrics:
    """A model's headline numbers (storage, cache, ratio, local, read, key_share) at the view's context."""
    L = v.lang
    name = model_name(s.model.id, s.model.name, L)
    shown = {
        "storage": (t("ov.m.storage", L, m=name), fmt_exact(s.storage.total)),
        "cache": (t("ov.m.cache", L, m=name, n=fmt_tokens(v.context)), fmt_bytes(s.cache.total, v.units)),
        "ratio": (t("v2.m.ratio", L), fmt_ratio(s.ratio)),
        "local": (t("v4.m.local", L), fmt_bytes(s.local_kv, v.units)),
        "read": (f"{t('ov.m.read', L, m=name)} ({fmt_tokens(v.context)})", fmt_bytes(s.read.total, v.units)),
        "key_share": (t("dsa.m.share", L), f"{s.key_share:.0%}"),
    }
    return Metrics(tuple(shown[item] for item in items))


def generation_top(model_id: str, key: str, items: tuple[str, ...], figure_id: str,
                   notes: Callable[[Summary, Reading], Blocks] | None = None, **intro_fields) -> Blocks:
    """The top of a generation page, the part the context moves: title, intro (its spec numbers in
    `intro_fields`), the model's headline numbers, the page's own lines about them, where its local
    KV is overtaken, and its A1-family chart. Returns the summary (what the context does not move)."""

    def top(v: Reading) -> Blocks:
        yield Title(t(f"{key}.title", v.lang))
        yield Text(t(f"{key}.intro", v.lang, **intro_fields), "caption")
        s = summarise(model_id, v.context, v.precision)
        yield metrics(s, v, items)
        if notes:
            yield from notes(s, v)
        if s.crossover_tokens:
            yield Text(t("v4.crossover", v.lang, n=f"{s.crossover_tokens:,}", local=fmt_bytes(s.local_kv, v.units)),
                       "info")
        yield Chart(figure_id, dict(context=v.context, precision=v.precision, lang=v.lang, units=v.units))
        return s

    return (yield Part(f"{key}-top", top))


def controls(figure_id: str, *names: str, lang: str) -> Blocks:
    """A figure's named knobs side by side; their values (and the language) as its keyword arguments."""
    spec = SPECS[figure_id]
    values = yield Ask(tuple(spec.knob(n) for n in names))
    return dict(zip(names, values)) | {"lang": lang}
