"""A1 (and A2, A7, A11, A20): per-token storage and per-step reads, two log-scale bar charts.

Bar length is the total on a log axis; inside, the bar is split by *share* of the total
into attention KV (blue) and index key (red), as the article draws it — so the split
point sits at that fraction of the bar's visual (log) length.

The figure is assembled as one plain dict and validated once: plotly's incremental
add_*/update_* calls cost ~1 ms each and dominated the build time. Labels are text traces,
not annotations: plotly lays each annotation out on its own, which made A1's redraw on a
slider step twice as slow (benchmarks/RESULTS.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import plotly.graph_objects as go

from core import A1_MODELS, ALL_BF16, DEPLOYED, Precision, get
from core.cost import formats
from core.summary import Summary, summarise
from core.units import fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens
from i18n import LANGS, model_name, t

from ..canvas import NATIVE, Canvas, title_at_top
from ..contrast import PAPER, hex_colour, ink_on, over, readable
from ..made import Chart
from ..style import MUTED, ON_FILL, ROLE_COLOURS, TEMPLATE, heading
from ..text import wrapped

ROW_PX = 96  # height per model row
BAR = 0.42  # bar thickness, in rows
SIDE_GAP = 0.07  # between the two panels side by side, in paper width
PANELS = ("x", "x2")
LOCAL_TEXT = readable(ROLE_COLOURS["local_kv"], (PAPER,))  # orange that reads as text on white
LABEL_PAD = 10  # px: twice a label's distance from its bar (the invisible marker's size)
DIM = 0.35  # how much of its colour a row that is not highlighted keeps
DIM_GREY = "#e5e7eb"  # what a dimmed bar mixes with: opaque, so its labels read in every look
# A phone's column (figures.canvas.narrow): the panels stacked, sizes in px
NAME_PX, BAR_PX, UNDER_PX, ROW_GAP = 20, 22, 15, 14  # a row: its name and value line, bar, lines under it, space
PANEL_TITLE, UNDER_SIZE = 15, 11  # px: a panel's title; the format lines under a bar
TOP_PX, AXIS_PX, PANEL_GAP = 130, 60, 110  # over the storage panel, under the read panel, between them
NARROW_MARGIN = dict(l=10, r=10)
LEGEND_UP = 50  # px from the storage panel's top to the legend's foot: over the panel's title


def build_a1(
    *,
    context: int = 131072,
    precision: Precision = DEPLOYED,
    models: Sequence[str] = A1_MODELS,
    highlight: str | None = None,
    lang: str = "ko",
    units: str = "decimal",
    canvas: Canvas = NATIVE,
) -> Chart:
    """Storage growth per token (left) and bytes read per decoded token at `context` (right), on
    axes that hold every model in any format (a precision step moves the bars, not the axes);
    on a phone's column, stacked."""
    return _bars(context, precision, models, highlight, lang, units, canvas, "a1.title")


class Panel(NamedTuple):
    """One of A1's two panels: its log axis range, each row's bar parts (blue, red), total, hover,
    value label and lines under the bar, the axis title and the panel's title."""

    lo: float
    hi: float
    parts: list[tuple[float, float]]
    totals: list[float]
    hover: list[str]
    values: list[str]
    unders: list[list[str]]
    axis_title: str
    title: str


def _bars(context, precision, models, highlight, lang, units, canvas, title_key, **title_fields) -> Chart:
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    if not models:
        raise ValueError("need at least one model")
    if highlight is not None and highlight not in models:
        raise ValueError(f"highlighted model {highlight!r} is not among {list(models)}")
    rows = [summarise(m, context, precision) for m in models]
    # axes span the article's full model set in its biggest and smallest formats (and those shown):
    # per-generation charts share A1's scale, and a precision step moves the bars, not the axes
    extremes = (precision, ALL_BF16, Precision.every("fp4"))
    scale = [summarise(m, context, p) for m in dict.fromkeys([*A1_MODELS, *models]) for p in extremes]
    names = [model_name(s.model.id, s.model.name, lang) for s in rows]
    dimmed = [highlight not in (None, s.model.id) for s in rows]

    storage = _storage_panel(rows, lang, [s.storage.total for s in scale])
    read = _read_panel(rows, lang, units, [s.read.total for s in scale])
    title = heading(t(title_key, lang, **title_fields), _subtitle(rows, lang))
    numbers = tuple(_record(s) for s in rows)  # what exports write as CSV/JSON
    if canvas.narrow:
        return Chart(_stacked(rows, names, highlight, dimmed, lang, (storage, read), title, canvas.screen_width),
                     numbers)
    traces, notes, axes = [], [], {}
    for xref, panel in zip(PANELS, (storage, read)):
        lo, hi = panel.lo, panel.hi
        labels = [_label(i, panel.totals[i], panel.values[i], lo, hi, dimmed[i]) for i in range(len(rows))]
        labels += [_under(i, "<br>".join(lines), lo) for i, lines in enumerate(panel.unders) if lines]
        traces += _split_bars(xref, panel.parts, panel.totals, lo, dimmed, lang, panel.hover)
        traces += _text_traces(xref, labels)
        left = xref == "x"
        domain = [0, 0.5 - SIDE_GAP / 2] if left else [0.5 + SIDE_GAP / 2, 1]
        axes["xaxis" if left else "xaxis2"] = dict(
            type="log", range=[lo, hi], domain=domain, anchor="y", exponentformat="SI",
            title=dict(text=panel.axis_title))
        notes.append(dict(text=panel.title, x=sum(domain) / 2, y=1.0, xref="paper", yref="paper",
                          xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=PANEL_TITLE)))

    ticks = [f"<b>{n}</b>" if s.model.id == highlight else n for s, n in zip(rows, names)]
    layout = dict(
        template="kv_atlas",
        title=title,
        yaxis=dict(tickvals=list(range(len(rows))), ticktext=ticks, showgrid=False, zeroline=False,
                   range=[len(rows) - 0.35, -0.45]),
        annotations=notes,
        barmode="overlay",
        height=170 + ROW_PX * len(rows),
        margin=dict(l=10, r=20, t=110, b=10),
        legend=dict(orientation="h", y=1.1, yanchor="bottom", x=1.0, xanchor="right", font=dict(size=12)),
        hovermode="closest",
        **axes,
    )
    return Chart(go.Figure(data=traces, layout=layout), numbers)


def _stacked(rows, names, highlight, dimmed, lang, panels: tuple[Panel, Panel], title, column: int) -> go.Figure:
    """A phone's column `column` px wide: the storage panel over the read panel, each bar under a
    line with its model's name and its value, its format lines under it, broken to the column."""
    width = column - NARROW_MARGIN["l"] - NARROW_MARGIN["r"]
    n = len(rows)
    unders = [[wrapped("<br>".join(lines), width, UNDER_SIZE) if lines else [] for lines in panel.unders]
              for panel in panels]
    under_lines = max(map(len, (lines for panel in unders for lines in panel)))
    row_px = NAME_PX + BAR_PX + under_lines * UNDER_PX + ROW_GAP
    plot_px = n * row_px
    height = TOP_PX + 2 * plot_px + PANEL_GAP + AXIS_PX
    inner = height - TOP_PX - AXIS_PX
    domains = ([1 - plot_px / inner, 1], [0, plot_px / inner])
    bar = BAR_PX / row_px
    traces, notes, axes = [], [], {}
    for i, (xref, panel, broken, domain) in enumerate(zip(PANELS, panels, unders, domains)):
        lo, hi = panel.lo, panel.hi
        yref = "y" if i == 0 else "y2"
        shown = [f"<b>{name}</b>" if s.model.id == highlight else name for s, name in zip(rows, names)]
        labels = [dict(x=10 ** (lo + 1e-3), y=r - bar / 2, position="top right", size=13, colour=None, on_fill=False,
                       text=f"{shown[r]}  {panel.values[r]}") for r in range(n)]
        labels += [_under(r, "<br>".join(lines), lo, bar) for r, lines in enumerate(broken) if lines]
        bars = _split_bars(xref, panel.parts, panel.totals, lo, dimmed, lang, panel.hover)
        traces += [{**tr, "width": bar, "yaxis": yref} for tr in bars]
        traces += [{**tr, "yaxis": yref} for tr in _text_traces(xref, labels)]
        axes["xaxis" if i == 0 else "xaxis2"] = dict(type="log", range=[lo, hi], domain=[0, 1], anchor=yref,
                                                     exponentformat="SI", title=dict(text=panel.axis_title))
        below, above = bar / 2 + (under_lines * UNDER_PX + 12) / row_px, bar / 2 + NAME_PX / row_px + 0.05
        axes["yaxis" if i == 0 else "yaxis2"] = dict(domain=domain, range=[n - 1 + below, -above], visible=False,
                                                     fixedrange=True)
        notes.append(dict(text="<br>".join(wrapped(panel.title, width, PANEL_TITLE)), x=0, y=domain[1],
                          xref="paper", yref="paper", xanchor="left", yanchor="bottom", align="left", showarrow=False,
                          font=dict(size=PANEL_TITLE), yshift=4))
    layout = dict(template="kv_atlas", title=title_at_top(title, height, TEMPLATE.layout.title.font.size),
                  annotations=notes, barmode="overlay", height=height,
                  margin=dict(NARROW_MARGIN, t=TOP_PX, b=AXIS_PX), hovermode="closest",
                  legend=dict(orientation="h", x=0, xanchor="left", y=1 + LEGEND_UP / inner, yanchor="bottom",
                              font=dict(size=12)),
                  **axes)
    return go.Figure(data=traces, layout=layout)


def _record(s: Summary) -> dict:
    """The numbers behind one row of A1, all from core, in bytes."""
    return {"model": s.model.id, "context": s.context, "storage_per_token": float(s.storage.total),
            "local_kv": s.local_kv, "cache_at_context": s.cache.total, "read_kv": s.read.kv,
            "read_index_key": s.read.index_key, "read_total": s.read.total, "ratio_to_mha": s.ratio}


def _subtitle(rows: list[Summary], lang: str) -> str:
    """The formats the bars are in, named by what they are (an override a model cannot take
    leaves its deployed format, core.cost.fitted)."""
    for key, preset in (("a1.sub", DEPLOYED), ("a1.sub.bf16", ALL_BF16)):
        if all(s.formats == formats(s.model, preset) for s in rows):
            return t(key, lang)
    return t("a1.sub.custom", lang)


def _log_range(values: list[float], room: float) -> tuple[float, float]:
    """Axis range in log10 units: a bit below the smallest bar, `room` decades past the largest.
    A model whose every layer slides grows by 0 B/token: it has no bar on a log axis."""
    shown = [v for v in values if v > 0]
    return math.floor(math.log10(min(shown))) - 0.3, math.log10(max(shown)) + room


def bar_colour(role: str, dim: bool) -> str:
    """A role's bar colour; a dimmed row's is mixed with grey (opaque, not see-through)."""
    return hex_colour(over(ROLE_COLOURS[role], DIM_GREY, DIM)) if dim else ROLE_COLOURS[role]


def _split_bars(xref, parts, totals, lo, dimmed, lang, hover) -> list[dict]:
    """Two overlaid bar traces: blue from the axis start to the share point, red after it."""
    start = 10**lo
    edges = [10 ** (lo + kv / total * (math.log10(total) - lo)) if total > 0 else start
             for (kv, _), total in zip(parts, totals)]
    segments = {
        "main_kv": ([start] * len(edges), [e - start for e in edges]),
        "index_key": (edges, [max(tot - e, 0) for tot, e in zip(totals, edges)]),
    }
    return [
        dict(type="bar", y=list(range(len(totals))), x=length, base=base, orientation="h", width=BAR,
             xaxis=xref, yaxis="y", name=t(f"role.{role}", lang), legendgroup=role, showlegend=xref == "x",
             marker=dict(color=[bar_colour(role, d) for d in dimmed]),
             customdata=hover, hovertemplate="%{customdata}<extra></extra>")
        for role, (base, length) in segments.items()
    ]


def _storage_panel(rows: list[Summary], lang: str, scale: list[float]) -> Panel:
    """A panel's axis range, bar parts, totals, hovers, value labels, lines under each bar and titles."""
    totals = [s.storage.total for s in rows]
    lo, hi = _log_range(scale, room=1.2)
    values, unders = [], []
    for s in rows:
        ratio = (t("a1.base", lang) if s.model.id == "mha" else t("a1.nogrowth", lang) if not s.storage.total
                 else t("a1.ratio", lang, r=fmt_ratio(s.ratio)))
        values.append(f"<b>{fmt_exact(s.storage.total)}</b>  {ratio}")
        lines = [_format_line(s, lang)]
        if s.local_kv:
            note = t("a1.local", lang, w=s.model.window, b=fmt_bytes(s.local_kv))
            lines.append(f"<span style='color:{LOCAL_TEXT}'>{note}</span>")
        if s.cache.state:  # fixed per sequence like the local KV: said under the bar, not drawn in it
            note = t("a1.state", lang, n=s.model.n_state, b=fmt_bytes(s.cache.state))
            lines.append(f"<span style='color:{LOCAL_TEXT}'>{note}</span>")
        unders.append(lines)
    parts = [(s.storage.main_kv, s.storage.index_key) for s in rows]
    hover = [_storage_hover(s, lang) for s in rows]
    return Panel(lo, hi, parts, totals, hover, values, unders, t("a1.axis.storage", lang), t("a1.storage", lang))


def _read_panel(rows: list[Summary], lang: str, units: str, scale: list[float]) -> Panel:
    totals = [s.read.total for s in rows]
    lo, hi = _log_range(scale, room=0.9)
    values = [f"<b>{fmt_bytes(s.read.total, units)}</b>" for s in rows]
    unders = [[t("a1.readline", lang, kv=fmt_bytes(s.read.kv, units), ik=fmt_bytes(s.read.index_key, units),
                 share=f"{s.key_share:.0%}")] if s.read.index_key else [] for s in rows]
    # blue: what attention and the linear layers read (KV, states); red: the index keys
    parts = [(s.read.total - s.read.index_key, s.read.index_key) for s in rows]
    hover = [_read_hover(s, lang, units) for s in rows]
    title = t("a1.read", lang, n=f"{rows[0].context:,}")
    return Panel(lo, hi, parts, totals, hover, values, unders, t("a1.axis.read", lang), title)


def _format_line(s: Summary, lang: str) -> str:
    """Precision and bytes of one per-layer entry of each cached role ('KV FP8+BF16 … B · key …');
    a model whose every layer slides has only its local KV."""
    keys = {"main_kv": "a1.fmt.main", "index_key": "a1.fmt.key"} if "main_kv" in s.formats else \
        {"local_kv": "a1.fmt.local"}
    return " · ".join(t(key, lang, f=s.formats[role].short, b=f"{s.formats[role].nbytes:,} B")
                      for role, key in keys.items() if role in s.formats)


def _label(row, x, text, lo, hi, dim: bool) -> dict:
    """The value at a bar's end; inside the bar (in the ink that reads on both of its colours)
    when the bar fills most of the axis, so a long label cannot run into the next panel."""
    if x <= 0:  # no bar (0 B/token): the label starts at the axis
        return dict(x=10 ** (lo + 1e-3), y=row, text=text, position="middle right", size=13, colour=None, on_fill=False)
    inside = (math.log10(x) - lo) / (hi - lo) > 0.7
    return dict(x=x, y=row, text=text, position="middle left" if inside else "middle right", size=13,
                colour=ink_on(*(bar_colour(r, dim) for r in ("main_kv", "index_key"))) if inside else None,
                on_fill=inside)


def _under(row, text, lo, bar: float = BAR) -> dict:
    """Small text lines just under a bar, from the axis start (a hair inside it: plotly drops
    a text point that sits exactly on the range's edge)."""
    return dict(x=10 ** (lo + 1e-3), y=row + bar / 2, text=text, position="bottom right", size=UNDER_SIZE, colour=MUTED,
                on_fill=False)


def _text_traces(xref: str, labels: list[dict]) -> list[dict]:
    """One text trace per look (position, size, colour) of a panel's labels. The points carry
    invisible markers: plotly sets text off by the marker's radius, the labels' padding."""
    looks: dict[tuple, list[dict]] = {}
    for label in labels:
        looks.setdefault((label["position"], label["size"], label["colour"], label["on_fill"]), []).append(label)
    return [dict(type="scatter", mode="markers+text", x=[lb["x"] for lb in group], y=[lb["y"] for lb in group],
                 text=[lb["text"] for lb in group], textposition=position, marker=dict(size=LABEL_PAD, opacity=0),
                 textfont=dict(size=size, color=colour), xaxis=xref, yaxis="y", cliponaxis=False,
                 hoverinfo="skip", showlegend=False, meta=ON_FILL if on_fill else None)
            for (position, size, colour, on_fill), group in looks.items()]


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
              units: str = "decimal", canvas: Canvas = NATIVE) -> Chart:
        return _bars(context, precision, upto, model_id, lang, units, canvas, "a.gen", m=get(model_id).name)

    build.__name__ = f"build_{model_id.replace('.', '').replace('-', '_')}_bars"
    build.__doc__ = f"A1 restricted to MHA…{model_id}, {model_id} highlighted."
    return build
