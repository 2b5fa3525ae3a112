"""A1 (and A2, A7, A11, A20): per-token storage and per-step reads, two log-scale bar charts.

Bar length is the total on a log axis; inside, the bar is split by *share* of the total
into KV (blue: main KV, and local KV in the reads) and index key (red), as the article draws it — so the split
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

from ..canvas import LINE, NATIVE, SUP_FOOT, Canvas, legend_rows, title_at_top, title_top
from ..contrast import PAPER, hex_colour, ink_on, over, readable
from ..made import Chart, Incompatible
from ..style import MUTED, ON_FILL, ROLE_COLOURS, TEMPLATE, heading
from ..text import text_px, wrapped, wrapped_parts

ROW_PX = 96  # height per model row
BAR = 0.42  # bar thickness, in rows
SIDE_GAP = 0.07  # between the two panels side by side, in paper width
PANELS = ("x", "x2")
LOCAL_TEXT = readable(ROLE_COLOURS["local_kv"], (PAPER,))  # orange that reads as text on white
LABEL_PAD = 10  # px: twice a label's distance from its bar (the invisible marker's size)
DIM = 0.35  # how much of its colour a row that is not highlighted keeps
DIM_GREY = "#e5e7eb"  # what a dimmed bar mixes with: opaque, so its labels read in every look
# A phone's column (figures.canvas.narrow): the panels stacked, sizes in px at the reader's text size 1
BAR_PX, ROW_GAP = 22, 14  # a bar's thickness (not text: it keeps its size), the space after a row
NAME_SIZE, PANEL_TITLE, UNDER_SIZE = 13, 15, 11  # px: a row's name and value; a panel's title; its format lines
UNDER_TICKS, AXIS_TITLE = 13, 16  # px: an axis's labels (the body size), its title (plotly's 1.2 × the body)
NARROW_MARGIN = dict(l=10, r=10)
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
        raise Incompatible("need at least one model")
    if highlight is not None and highlight not in models:
        raise Incompatible(f"highlighted model {highlight!r} is not among {list(models)}")
    rows = [summarise(m, context, precision) for m in models]
    # axes span the article's full model set in its biggest and smallest formats (and those shown):
    # per-generation charts share A1's scale, and a precision step moves the bars, not the axes
    extremes = (precision, ALL_BF16, Precision.every("fp4"))
    scale = [summarise(m, context, p) for m in dict.fromkeys([*A1_MODELS, *models]) for p in extremes]
    names = [model_name(s.model.id, s.model.name, lang) for s in rows]
    dimmed = [highlight not in (None, s.model.id) for s in rows]

    storage = _storage_panel(rows, lang, [s.storage.total for s in scale])
    read = _read_panel(rows, lang, units, [s.read.total for s in scale])
    said = t(title_key, lang, **title_fields), _subtitle(rows, lang)
    title = heading(*said)
    numbers = tuple(_record(s) for s in rows)  # what exports write as CSV/JSON
    if canvas.narrow:
        return Chart(_stacked(rows, names, highlight, dimmed, lang, (storage, read), title, canvas.screen_width,
                              canvas.text), numbers, *said)
    traces, notes, axes = [], [], {}
    scale, headings = canvas.text, 1  # the reader's text size on a page column; its panels' headings' lines
    names_px = max(text_px(name, TEMPLATE.layout.font.size * scale) for name in names) + 16  # left of the bars
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
        heading_text = panel.title if not canvas.screen_width else "<br>".join(
            wrapped(panel.title, (canvas.screen_width - names_px - 30) * (domain[1] - domain[0]),
                    PANEL_TITLE * scale))
        headings = max(headings, heading_text.count("<br>") + 1)
        notes.append(dict(text=heading_text, x=sum(domain) / 2, y=1.0, xref="paper", yref="paper",
                          xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=PANEL_TITLE)))

    ticks = [f"<b>{n}</b>" if s.model.id == highlight else n for s, n in zip(rows, names)]
    more = (headings - 1) * LINE * PANEL_TITLE * scale  # the headings' lines past one, over the plot
    height, top = (170 + ROW_PX * len(rows)) * scale + more, 110 * scale + more
    # the legend over the headings, by the title (at 1×: 10 % of the plot over it, as ever)
    up = 0.1 if not more else (headings * LINE * PANEL_TITLE * scale + 14) / (height - top - 10)
    layout = dict(
        template="kv_atlas",
        title=title,
        yaxis=dict(tickvals=list(range(len(rows))), ticktext=ticks, showgrid=False, zeroline=False,
                   range=[len(rows) - 0.35, -0.45]),
        annotations=notes,
        barmode="overlay",
        height=height,
        margin=dict(l=10, r=20, t=top, b=10),
        legend=dict(orientation="h", y=1 + up, yanchor="bottom", x=1.0, xanchor="right", font=dict(size=12)),
        hovermode="closest",
        **axes,
    )
    return Chart(go.Figure(data=traces, layout=layout), numbers, *said)


def _stacked(rows, names, highlight, dimmed, lang, panels: tuple[Panel, Panel], title, column: int,
             scale: float = 1.0) -> go.Figure:
    """A phone's column `column` px wide, its text `scale` times its sizes (the reader's text size):
    the storage panel over the read panel, each bar under its model's name and value and over its
    format lines, all broken to the column. A y axis in px places each bar under its own lines."""
    width = column - NARROW_MARGIN["l"] - NARROW_MARGIN["r"]
    name_size, under_size = NAME_SIZE * scale, UNDER_SIZE * scale
    title_size, axis_size = PANEL_TITLE * scale, AXIS_TITLE * scale
    shown = [f"<b>{name}</b>" if s.model.id == highlight else name for s, name in zip(rows, names)]
    traces, notes, axes, layout_panels = [], [], {}, []
    for panel in panels:
        heads = [wrapped_parts([shown[r], *panel.values[r].split("  ")], width, name_size) for r in range(len(rows))]
        unders = [wrapped("<br>".join(lines), width, under_size) if lines else [] for lines in panel.unders]
        y, bars, labels = 0.0, [], []
        for r, (head, under) in enumerate(zip(heads, unders)):
            y += len(head) * LINE * name_size + 6  # the name and value over the bar
            bars.append(y + BAR_PX / 2)
            labels.append(dict(x=10 ** (panel.lo + 1e-3), y=y, position="top right", size=NAME_SIZE, colour=None,
                               on_fill=False, text="<br>".join(head)))
            if under:
                labels.append(_under(r, "<br>".join(under), panel.lo, 0) | {"y": y + BAR_PX})
            y += BAR_PX + (len(under) * LINE * under_size + 8 if under else 0) + ROW_GAP * scale
        axis_title = wrapped(panel.axis_title, width, axis_size)
        heading_lines = wrapped(panel.title, width, title_size)
        layout_panels.append((panel, bars, labels, y, axis_title, heading_lines))
    # over the storage panel its heading, over the read panel the storage axis's labels and title, its heading
    ticks = LINE * UNDER_TICKS * scale + 8
    gap = ticks + len(layout_panels[0][4]) * LINE * axis_size + 14 * scale + \
        len(layout_panels[1][5]) * LINE * title_size
    bottom = ticks + len(layout_panels[1][4]) * LINE * axis_size + 12 * scale
    total = layout_panels[0][3] + gap + layout_panels[1][3]
    at = total
    for i, (panel, bars, labels, height, axis_title, heading_lines) in enumerate(layout_panels):
        xref, yref = PANELS[i], "y" if i == 0 else "y2"
        domain = [max((at - height) / total, 0.0), min(at / total, 1.0)]
        parts = _split_bars(xref, panel.parts, panel.totals, panel.lo, dimmed, lang, panel.hover)
        traces += [{**tr, "y": bars, "width": BAR_PX, "yaxis": yref} for tr in parts]
        traces += [{**tr, "yaxis": yref} for tr in _text_traces(xref, labels)]
        axes["xaxis" if i == 0 else "xaxis2"] = dict(type="log", range=[panel.lo, panel.hi], domain=[0, 1],
                                                     anchor=yref, exponentformat="SI",
                                                     title=dict(text="<br>".join(axis_title)))
        axes["yaxis" if i == 0 else "yaxis2"] = dict(domain=domain, range=[height, 0], visible=False, fixedrange=True)
        notes.append(dict(text="<br>".join(heading_lines), x=0, y=domain[1], xref="paper", yref="paper",
                          xanchor="left", yanchor="bottom", align="left", showarrow=False,
                          font=dict(size=PANEL_TITLE), yshift=4))
        at -= height + gap
    # over the plot: the title and subtitle (the screen pass adds the lines it breaks them into), the
    # legend, the storage panel's heading
    legend_lines = legend_rows([t(LEGEND[role], lang) for role in ("main_kv", "index_key")], width, 12 * scale)
    heading = len(layout_panels[0][5]) * LINE * title_size + 8
    legend = legend_lines * LINE * 12 * scale + 8 * scale
    size = TEMPLATE.layout.title.font.size * scale
    top = title_top(size) + (LINE + SUP_FOOT) * size + 12 + legend + heading
    height = top + total + bottom
    layout = dict(template="kv_atlas", title=title_at_top(title, height, size),
                  annotations=notes, barmode="overlay", height=height,
                  margin=dict(NARROW_MARGIN, t=top, b=bottom), hovermode="closest",
                  legend=dict(orientation="h", x=0, xanchor="left", y=1 + heading / total, yanchor="bottom",
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
             xaxis=xref, yaxis="y", name=t(LEGEND[role], lang), legendgroup=role, showlegend=xref == "x",
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
            note = t("a1.local", lang, n=s.model.n_windowed, w=s.model.window, b=fmt_bytes(s.local_kv))
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


def generation_chart(model_id: str, canvas: Canvas = NATIVE):
    """A2/A7/A11/A20: A1 from MHA up to `model_id`, that row highlighted."""
    upto = generation_models(model_id)

    def build(*, context: int = 131072, precision: Precision = DEPLOYED, lang: str = "ko",
              units: str = "decimal", canvas: Canvas = NATIVE) -> Chart:
        return _bars(context, precision, upto, model_id, lang, units, canvas, "a.gen", m=get(model_id).name)

    build.__name__ = f"build_{model_id.replace('.', '').replace('-', '_')}_bars"
    build.__doc__ = f"A1 restricted to MHA…{model_id}, {model_id} highlighted."
    return build
