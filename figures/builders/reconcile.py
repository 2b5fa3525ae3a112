"""Why published numbers differ from the article's: each variant of core.variants beside the
article's number, per model it changes — storage per token and the read of one decode step — as a model
(figures/charts/reconciliation.py) the layout pass places for the canvas and draws."""

from __future__ import annotations

from collections.abc import Sequence

from core import A1_MODELS, V4_PAGE_ALIGN, VARIANTS, Varied, fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens, get
from i18n import model_name, t

from ..charts.reconciliation import Panel, ReconciliationChart
from ..made import Incompatible


def build_reconciliation(*, variants: Sequence[str] = tuple(VARIANTS), context: int = 131072, lang: str = "ko",
                         units: str = "decimal") -> ReconciliationChart:
    """One row per (variant, model it changes): the variant's storage per token and read per
    decoded token as bars, the article's as a black tick on each."""
    if not variants:
        raise Incompatible("need at least one variant")
    rows = []
    for vid in variants:
        v = VARIANTS[vid]
        for m in v.models:
            article, varied = Varied.of(m), v.apply(m)
            rows.append((f"{variant_name(vid, lang)} · {model_name(m, get(m).name, lang)}", article, vid, varied, m))
    # storage, with what a variant does to the ratio the article headlines; the read of a decode step
    storage = _panel(t("a1.storage", lang), rows, lambda s: s.storage_per_token().total, fmt_exact,
                     [_ratio(VARIANTS[vid], m, lang) for _, _, vid, _, m in rows])
    read = _panel(t("a1.read", lang, n=fmt_tokens(context)), rows, lambda s: s.reads(context).total,
                  lambda b: fmt_bytes(b, units))
    return ReconciliationChart(t("rec.title", lang), t("rec.sub", lang), tuple(r[0] for r in rows), (storage, read),
                               t("rec.article", lang), _numbers(rows, context))


def _panel(title: str, rows, what, show, under: list[str] | None = None) -> Panel:
    """Each row's number as the article has it and as its variant does (`what` of each), and the change between
    them as `show` writes a number, over the row's line of `under`."""
    before, after = tuple(what(r[1]) for r in rows), tuple(what(r[3]) for r in rows)
    labels = [_change(a, b, show) for a, b in zip(before, after)]
    if under:
        labels = [f"{label}<br>{line}" for label, line in zip(labels, under)]
    return Panel(title, before, after, tuple(labels))


def _numbers(rows, context: int) -> tuple[dict, ...]:
    return tuple({"row": n, "article_storage": a.storage_per_token().total,
                  "variant_storage": v.storage_per_token().total, "article_read": a.reads(context).total,
                  "variant_read": v.reads(context).total} for n, a, _, v, _ in rows)


def variant_name(vid: str, lang: str) -> str:
    """A variant's short name; spec numbers in it come from core (the page alignment)."""
    return t(f"var.{vid}", lang, align=V4_PAGE_ALIGN)


def _ratio(variant, model: str, lang: str) -> str:
    """The headline ratio to MHA under the variant; for MHA itself, the next generation's."""
    model = A1_MODELS[1] if model == A1_MODELS[0] else model
    ratio = t("a1.ratio", lang, r=fmt_ratio(variant.ratio(model)))
    return ratio if model in variant.models else f"{get(model).name} {ratio}"


def _change(before: float, after: float, show) -> str:
    """'≈3,514 B → 3,850 B (+9.6%)', or the value alone when the variant leaves it."""
    if before == after:
        return f"{show(after)}"
    return f"{show(before)} → <b>{show(after)}</b> ({after / before - 1:+.1%})"
