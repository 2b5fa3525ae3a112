"""A1 (and A2, A7, A11, A20): per-token storage and per-step reads, two log-scale bar charts.

Bar length is the total on a log axis; inside, the bar is split by *share* of the total
into attention KV (blue) and index key (red), as the article draws it — so the split
point is placed at that fraction of the bar's visual (log) length.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from core import A1_MODELS, DEPLOYED, Precision
from core.summary import Summary, summarise
from core.units import fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens

from .i18n import LANGS, model_name, t
from .style import MUTED, ROLE_COLOURS

ROW_PX = 96  # height per model row
BAR = 0.42  # bar thickness, in rows
PARTS = ("main_kv", "index_key")


def build_a1(
    *,
    context: int = 131072,
    precision: Precision = DEPLOYED,
    models: Sequence[str] = A1_MODELS,
    highlight: str | None = None,
    lang: str = "ko",
    units: str = "decimal",
    title: str | None = None,
) -> go.Figure:
    """Storage growth per token (left) and bytes read per decoded token at `context` (right)."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    if not models:
        raise ValueError("need at least one model")
    if highlight is not None and highlight not in models:
        raise ValueError(f"highlighted model {highlight!r} is not among {list(models)}")
    rows = [summarise(m, context, precision) for m in models]
    # axes span the article's full model set, so per-generation charts share A1's scale
    scale = [summarise(m, context, precision) for m in dict.fromkeys([*A1_MODELS, *models])]
    names = [model_name(s.model.id, s.model.name, lang) for s in rows]

    fig = make_subplots(
        rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.07,
        subplot_titles=(t("a1.storage", lang), t("a1.read", lang, n=f"{context:,}")),
    )
    _storage_panel(fig, rows, names, highlight, lang, [s.storage.total for s in scale])
    _read_panel(fig, rows, names, highlight, lang, units, [s.read.total for s in scale])

    ticks = [f"<b>{n}</b>" if s.model.id == highlight else n for s, n in zip(rows, names)]
    fig.update_yaxes(tickvals=list(range(len(rows))), ticktext=ticks, showgrid=False, zeroline=False,
                     range=[len(rows) - 0.35, -0.45])
    fig.update_layout(
        template="kv_atlas",
        title=dict(text=f"{title or t('a1.title', lang)}<br><sup>{_subtitle(precision, lang)}</sup>"),
        barmode="overlay",
        height=170 + ROW_PX * len(rows),
        margin=dict(l=10, r=20, t=110, b=10),
        legend=dict(orientation="h", y=1.1, yanchor="bottom", x=1.0, xanchor="right", font=dict(size=12)),
        hovermode="closest",
    )
    return fig


def _subtitle(precision: Precision, lang: str) -> str:
    if precision == Precision("bf16"):
        return t("a1.sub.bf16", lang)
    if precision == DEPLOYED:
        return t("a1.sub", lang)
    return t("a1.sub.custom", lang)


def _log_range(values: list[float], room: float) -> tuple[float, float]:
    """Axis range in log10 units: a decade below the smallest bar, `room` decades past the largest."""
    lo = math.floor(math.log10(min(values))) - 0.3
    hi = math.log10(max(values)) + room
    return lo, hi


def _split_bars(fig, col, names, parts, totals, lo, opacity, lang, hover):
    """Two overlaid bar traces: blue from the axis start to the share point, red after it."""
    start = 10**lo
    edges = []
    for p, total in zip(parts, totals):
        share = p["main_kv"] / total if total else 0.0
        edges.append(10 ** (lo + share * (math.log10(total) - lo)))
    segments = {
        "main_kv": ([start] * len(edges), [e - start for e in edges]),
        "index_key": (edges, [tot - e for tot, e in zip(totals, edges)]),
    }
    for role, (base, length) in segments.items():
        fig.add_trace(go.Bar(
            y=list(range(len(names))), x=length, base=base, orientation="h", width=BAR, name=t(f"role.{role}", lang),
            legendgroup=role, showlegend=(col == 1), marker=dict(color=ROLE_COLOURS[role], opacity=opacity),
            customdata=hover, hovertemplate="%{customdata}<extra></extra>",
        ), row=1, col=col)


def _opacity(rows: list[Summary], highlight: str | None) -> list[float]:
    return [1.0 if highlight in (None, s.model.id) else 0.35 for s in rows]


def _storage_panel(fig, rows, names, highlight, lang, scale):
    totals = [s.storage.total for s in rows]
    lo, hi = _log_range(scale, room=1.45)
    parts = [{"main_kv": s.storage.main_kv, "index_key": s.storage.index_key} for s in rows]
    hover = [_storage_hover(s, lang) for s in rows]
    _split_bars(fig, 1, names, parts, totals, lo, _opacity(rows, highlight), lang, hover)
    for i, s in enumerate(rows):
        ratio = t("a1.base", lang) if s.model.id == "mha" else t("a1.ratio", lang, r=fmt_ratio(s.ratio))
        _label(fig, "x", i, s.storage.total, f"<b>{fmt_exact(s.storage.total)}</b>  {ratio}")
        lines = [_format_line(s, lang)]
        if s.local_kv:
            note = t("a1.local", lang, w=s.model.window, b=fmt_bytes(s.local_kv))
            lines.append(f"<span style='color:{ROLE_COLOURS['local_kv']}'>{note}</span>")
        _under(fig, "x", i, "<br>".join(lines))
    fig.update_xaxes(type="log", range=[lo, hi], title_text=t("a1.axis.storage", lang),
                     exponentformat="SI", row=1, col=1)


def _read_panel(fig, rows, names, highlight, lang, units, scale):
    totals = [s.read.total for s in rows]
    lo, hi = _log_range(scale, room=0.9)
    parts = [{"main_kv": s.read.kv, "index_key": s.read.index_key} for s in rows]
    hover = [_read_hover(s, lang, units) for s in rows]
    _split_bars(fig, 2, names, parts, totals, lo, _opacity(rows, highlight), lang, hover)
    for i, s in enumerate(rows):
        _label(fig, "x2", i, s.read.total, f"<b>{fmt_bytes(s.read.total, units)}</b>")
        if s.read.index_key:
            line = t("a1.readline", lang, kv=fmt_bytes(s.read.kv, units),
                     ik=fmt_bytes(s.read.index_key, units), share=f"{s.key_share:.0%}")
            _under(fig, "x2", i, line)
    fig.update_xaxes(type="log", range=[lo, hi], title_text=t("a1.axis.read", lang),
                     exponentformat="SI", row=1, col=2)


def _format_line(s: Summary, lang: str) -> str:
    """Precision and bytes of one per-layer entry, e.g. 'KV FP8+BF16 656 B · key FP8 132 B'."""
    parts = [t("a1.fmt.main", lang, f=s.formats["main_kv"].short, b=f"{s.formats['main_kv'].nbytes:,} B")]
    if "index_key" in s.formats:
        lo = s.formats["index_key"]
        parts.append(t("a1.fmt.key", lang, f=lo.short, b=f"{lo.nbytes:,} B"))
    return " · ".join(parts)


def _label(fig, xref, row, x, text):
    # annotation x on a log axis is given in log10 units
    fig.add_annotation(x=math.log10(x), y=row, xref=xref, yref="y", text=text, showarrow=False,
                       xanchor="left", xshift=6, font=dict(size=13))


def _under(fig, xref, row, text):
    """Small text lines just under a bar, aligned with the axis start."""
    fig.add_annotation(x=0, y=row + BAR / 2, xref=f"{xref} domain", yref="y", text=text, showarrow=False,
                       xanchor="left", yanchor="top", align="left", yshift=-2,
                       font=dict(size=11, color=MUTED))


def _storage_hover(s: Summary, lang: str) -> str:
    lines = [f"<b>{model_name(s.model.id, s.model.name, lang)}</b>: {fmt_exact(s.storage.total)}"]
    for role in PARTS:
        v = getattr(s.storage, role)
        if v:
            lines.append(f"{t(f'role.{role}', lang)}: {fmt_exact(v)} · {s.formats[role].describe()}")
    return "<br>".join(lines)


def _read_hover(s: Summary, lang: str, units: str) -> str:
    r = s.read
    lines = [f"<b>{model_name(s.model.id, s.model.name, lang)}</b>: {fmt_bytes(r.total, units)} "
             f"({fmt_tokens(s.context)})"]
    for role in ("main_kv", "local_kv", "index_key"):
        v = getattr(r, role)
        if v:
            lines.append(f"{t(f'role.{role}', lang)}: {fmt_bytes(v, units)} ({v:,} B)")
    return "<br>".join(lines)


def generation_chart(model_id: str):
    """A2/A7/A11/A20: A1 from MHA up to `model_id`, that row highlighted."""
    upto = A1_MODELS[: A1_MODELS.index(model_id) + 1]

    def build(*, models: Sequence[str] = upto, highlight: str | None = model_id, lang: str = "ko",
              **kw) -> go.Figure:
        from core import get
        title = kw.pop("title", None) or t("a.gen", lang, m=get(model_id).name)
        return build_a1(models=models, highlight=highlight, lang=lang, title=title, **kw)

    build.__name__ = f"build_{model_id.replace('.', '').replace('-', '_')}_bars"
    build.__doc__ = f"A1 restricted to MHA…{model_id}, {model_id} highlighted."
    return build
