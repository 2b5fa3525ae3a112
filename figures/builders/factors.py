"""The factors chart: each model's per-token KV, kind by kind of the layers that store it, with
the numbers each kind really has (core.factors: layers, width, bytes per value, m) and
what it adds per token as a bar on a log axis: a model (figures/charts/factors.py) the layout
pass places for the canvas and draws."""

from __future__ import annotations

from fractions import Fraction

from core import A1_MODELS, Storing, get, storing
from i18n import model_name, t

from ..charts.factors import FactorsChart, KindBar, ModelKinds


def build_factors(*, lang: str = "ko", models=A1_MODELS) -> FactorsChart:
    """Per model, each kind of layer that stores KV (core.factors.storing): layers, width (an
    entry's dims with its index key's), bytes per value (scales and padding included) and m, and
    what it adds per token, layers × entry bytes ÷ m, as a bar on a log axis; a model of several
    kinds also gets their sum."""
    rows, records = [], []
    for m in map(get, models):  # an id, or an imported model's Model
        name, kinds = model_name(m.id, m.name, lang), storing(m)
        total = sum((k.per_token for k in kinds), Fraction(0))
        head = f"<b>{name}</b>"
        if len(kinds) > 1:
            head += " · " + t("fx.sum", lang, terms=" + ".join(_bytes(k.per_token) for k in kinds), total=_bytes(total))
        bars = tuple(KindBar(_row(k, lang), float(k.per_token),
                             f"{_kind(k)}: {k.layers:,} × {k.entry:,} B ÷ {k.ratio:,} = {_bytes(k.per_token)}")
                     for k in kinds)
        rows.append(ModelKinds(head, "" if kinds else t("fx.none", lang), bars))
        records += [{"model": m.id, "kind": k.kind, "stack": k.stack, "layers": k.layers, "width": k.width,
                     "entry_bytes": k.entry, "bytes_per_value": float(k.bytes_per_value), "ratio": k.ratio,
                     "per_token": float(k.per_token), "model_per_token": float(total)} for k in kinds]
    return FactorsChart(t("fx.title", lang), t("fx.sub", lang), t("fx.x", lang), tuple(rows), tuple(records))


def _kind(k: Storing) -> str:
    """'CSA', 'CSA2 · encoder'."""
    return f"{k.kind} · {k.stack}" if k.stack else k.kind


def _row(k: Storing, lang: str) -> str:
    """A kind's numbers: 'CSA: 21 layers · width 640 · 1.02 B per value · m = 4 → 3,423 B'."""
    return t("fx.row", lang, kind=_kind(k), layers=t("fx.layers" if k.layers > 1 else "fx.layer", lang, n=k.layers),
             width=f"{k.width:,}", b=_value(k.bytes_per_value), m=k.ratio, per=_bytes(k.per_token))


def _value(x: Fraction) -> str:
    """Bytes per value, to three significant digits: '2', '1.12', '0.556'."""
    return f"{float(x):.3g}"


def _bytes(x: Fraction) -> str:
    """An exact byte count: '3,423 B', '91.25 B' (a fraction of a byte per token written out)."""
    return f"{int(x):,} B" if x.denominator == 1 else f"{float(x):,g} B"
