"""A1 (and A2, A7, A11, A20): per-token storage and per-step reads, two log-scale bar charts.

The builder makes the model (figures.charts.bars.Bars): each model's bars, their values and the lines under
them, in the reader's language and from core; figures.charts.bars lays them out for the canvas (side by side,
or stacked on a phone's column) and draws them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from core import (
    A1_MODELS,
    ALL_BF16,
    DEPLOYED,
    Precision,
    Summary,
    fmt_bytes,
    fmt_exact,
    fmt_ratio,
    fmt_tokens,
    get,
    role_layouts,
    summarise,
)
from i18n import LANGS, model_name, t

from ..charts.bars import ROLES, Bar, Bars, Panel, Row
from ..contrast import PAPER, readable
from ..made import Incompatible
from ..style import ROLE_COLOURS

LOCAL_TEXT = readable(ROLE_COLOURS["local_kv"], (PAPER,))  # orange that reads as text on white
# the legend's names: the blue of the reads panel is all KV attention reads, the local KV's too
LEGEND = {"main_kv": "a1.legend.kv", "index_key": "role.index_key"}


def build_a1(
    *,
    context: int = 131072,
    precision: Precision = DEPLOYED,
    models: Sequence[str] = A1_MODELS,
    highlight: str | None = None,
    lang: str = "ko",
    units: str = "decimal",
) -> Bars:
    """Storage growth per token (left) and bytes read per decoded token at `context` (right), on
    axes that hold every model in any format (a precision step moves the bars, not the axes);
    on a phone's column, stacked."""
    return _bars(context, precision, models, highlight, lang, units, "a1.title")


def _bars(context, precision, models, highlight, lang, units, title_key, **title_fields) -> Bars:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    if not models:
        raise Incompatible("need at least one model")
    if highlight is not None and highlight not in models:
        raise Incompatible(f"highlighted model {highlight!r} is not among {list(models)}")
    rows = [summarise(m, context, precision) for m in models]
    # axes span the article's full model set in its biggest and smallest formats (and those shown):
    # per-generation charts share A1's scale, and a precision step moves the bars, not the axes
    extremes = (precision, ALL_BF16, Precision.every("fp4"))
    scale = [summarise(m, context, p) for m in dict.fromkeys([*A1_MODELS, *models]) for p in extremes]
    return Bars(
        rows=tuple(Row(model_name(s.model.id, s.model.name, lang), s.model.id == highlight,
                       highlight not in (None, s.model.id)) for s in rows),
        panels=(_storage_panel(rows, lang, [s.storage.total for s in scale]),
                _read_panel(rows, lang, units, [s.read.total for s in scale])),
        legend=tuple(t(LEGEND[role], lang) for role in ROLES),
        title=t(title_key, lang, **title_fields),
        subtitle=_subtitle(rows, lang),
        numbers=tuple(_record(s) for s in rows),  # what exports write as CSV/JSON
    )


def _record(s: Summary) -> dict:
    """The numbers behind one row of A1, all from core, in bytes."""
    return {"model": s.model.id, "context": s.context, "storage_per_token": float(s.storage.total),
            "local_kv": s.local_kv, "cache_at_context": s.cache.total, "read_kv": s.read.kv,
            "read_index_key": s.read.index_key, "read_total": s.read.total, "ratio_to_mha": s.ratio}


def _subtitle(rows: list[Summary], lang: str) -> str:
    """The formats the bars are in, named by what they are (an override a model cannot take
    leaves its deployed format, core.cost.fitted)."""
    for key, preset in (("a1.sub", DEPLOYED), ("a1.sub.bf16", ALL_BF16)):
        if all(s.formats == role_layouts(s.model, preset) for s in rows):
            return t(key, lang)
    return t("a1.sub.custom", lang)


def _log_range(values: list[float], room: float) -> tuple[float, float]:
    """Axis range in log10 units: a bit below the smallest bar, `room` decades past the largest.
    A model whose every layer slides grows by 0 B/token: it has no bar on a log axis."""
    shown = [v for v in values if v > 0]
    return math.floor(math.log10(min(shown))) - 0.3, math.log10(max(shown)) + room


def _storage_panel(rows: list[Summary], lang: str, scale: list[float]) -> Panel:
    """How much each model stores per token: its bar, value (bytes and its ratio to MHA's) and format lines (the
    local KV and a linear layer's state said under the bar: fixed per sequence, not drawn in it)."""
    lo, hi = _log_range(scale, room=1.2)
    bars = []
    for s in rows:
        ratio = (t("a1.base", lang) if s.model.id == "mha" else t("a1.nogrowth", lang) if not s.storage.total
                 else t("a1.ratio", lang, r=fmt_ratio(s.ratio)))
        lines = [_format_line(s, lang)]
        if s.local_kv:
            lines.append(_local(t("a1.local", lang, n=s.model.n_windowed, w=s.model.window, b=fmt_bytes(s.local_kv))))
        if s.cache.state:
            lines.append(_local(t("a1.state", lang, n=s.model.n_state, b=fmt_bytes(s.cache.state))))
        bars.append(Bar(s.storage.main_kv, s.storage.index_key, s.storage.total, _storage_hover(s, lang),
                        (f"<b>{fmt_exact(s.storage.total)}</b>", ratio), tuple(lines)))
    return Panel(lo, hi, tuple(bars), t("a1.axis.storage", lang), t("a1.storage", lang))


def _local(note: str) -> str:
    """A line about what a model keeps per sequence, in the local KV's orange."""
    return f"<span style='color:{LOCAL_TEXT}'>{note}</span>"


def _read_panel(rows: list[Summary], lang: str, units: str, scale: list[float]) -> Panel:
    """How much each model reads per decoded token: blue what attention and the linear layers read (KV, states),
    red the index keys, said under the bar."""
    lo, hi = _log_range(scale, room=0.9)
    bars = tuple(
        Bar(s.read.total - s.read.index_key, s.read.index_key, s.read.total, _read_hover(s, lang, units),
            (f"<b>{fmt_bytes(s.read.total, units)}</b>",),
            (t("a1.readline", lang, kv=fmt_bytes(s.read.kv, units), ik=fmt_bytes(s.read.index_key, units),
               share=f"{s.key_share:.0%}"),) if s.read.index_key else ())
        for s in rows)
    return Panel(lo, hi, bars, t("a1.axis.read", lang), t("a1.read", lang, n=f"{rows[0].context:,}"))


def _format_line(s: Summary, lang: str) -> str:
    """Precision and bytes of one per-layer entry of each cached role ('KV FP8+BF16 … B · key …');
    a model whose every layer slides has only its local KV."""
    keys = {"main_kv": "a1.fmt.main", "index_key": "a1.fmt.key"} if "main_kv" in s.formats else \
        {"local_kv": "a1.fmt.local"}
    return " · ".join(t(key, lang, f=s.formats[role].short, b=f"{s.formats[role].nbytes:,} B")
                      for role, key in keys.items() if role in s.formats)


def _storage_hover(s: Summary, lang: str) -> str:
    lines = [f"<b>{model_name(s.model.id, s.model.name, lang)}</b>: {fmt_exact(s.storage.total)}"]
    for role in ("main_kv", "index_key"):
        v = getattr(s.storage, role)
        if v:
            lines.append(f"{t(f'role.{role}', lang)}: {fmt_exact(v)} · {s.formats[role].describe()}")
    return "<br>".join(lines)


def _read_hover(s: Summary, lang: str, units: str) -> str:
    r = s.read
    lines = [f"<b>{model_name(s.model.id, s.model.name, lang)}</b>: {fmt_bytes(r.total, units)} "
             f"({fmt_tokens(s.context)})"]
    for role in ("main_kv", "local_kv", "state", "index_key"):
        v = getattr(r, role)
        if v:
            lines.append(f"{t(f'role.{role}', lang)}: {fmt_bytes(v, units)} ({v:,} B)")
    return "<br>".join(lines)


def generation_models(model_id: str) -> tuple[str, ...]:
    """The models a generation's chart shows: A1's from MHA up to `model_id`."""
    return A1_MODELS[: A1_MODELS.index(model_id) + 1]


def generation_chart(model_id: str):
    """A2/A7/A11/A20: A1 from MHA up to `model_id`, that row highlighted."""
    upto = generation_models(model_id)

    def build(*, context: int = 131072, precision: Precision = DEPLOYED, lang: str = "ko",
              units: str = "decimal") -> Bars:
        return _bars(context, precision, upto, model_id, lang, units, "a.gen", m=get(model_id).name)

    build.__name__ = f"build_{model_id.replace('.', '').replace('-', '_')}_bars"
    build.__doc__ = f"A1 restricted to MHA…{model_id}, {model_id} highlighted."
    return build
