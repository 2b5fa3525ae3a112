"""Beyond the article: how many requests fit on a GPU node at a context length, and the least
time a decode step can spend reading the cache. Both from core.capacity on core.cost."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from core import DEPLOYED, Precision, get
from core import gpus as G
from core.capacity import plan, read_floor_seconds, weights_bytes
from core.cost import fitted
from core.engines import ENGINES, EngineError
from core.parallel import MODES, Parallel
from core.units import fmt_bytes, fmt_tokens
from i18n import model_name, t

from ..canvas import LINE, NATIVE, Canvas, title_at_top
from ..made import Chart
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, heading
from ..text import SUP, text_px, wrapped, wrapped_parts

NOTE_WIDTH = 640  # px a subtitle note is broken to for the builder's own layout (an export's 700 px, less margins)
TITLE_PX = TEMPLATE.layout.title.font.size  # plotly spaces a title's lines, a subtitle's too, by this size

PLANNER_MODELS = ("v3.2", "v4-flash", "v4.1-flash", "llama-3.1-8b", "qwen3-32b", "gemma-3-4b", "gpt-oss-120b",
                  "kimi-k2")
BYTES_PER_PARAMETER = (2.0, 1.0, 0.5)  # BF16, FP8, FP4 weights
RECORD_KEYS = ("model", "context", "gpu", "parallel", "tp", "pp", "dp", "engine", "block", "weights_bytes",
               "weights_per_gpu_bytes", "kv_budget_per_gpu_bytes", "per_request_bytes", "per_request_per_gpu_bytes",
               "max_requests")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
# a phone's column (figures.canvas.narrow), px at the reader's text size 1: a row's name and count, the lines
# under its bar; the bar's thickness (not text: it keeps its size), the space after a row
PHONE_TEXT, PHONE_UNDER, PHONE_BAR, PHONE_GAP = 13, 12, 18, 12


def gpu_of(gpu: str, memory_gb: float, bandwidth_tb: float) -> G.GPU:
    """A preset, or the reader's own memory and bandwidth when `gpu` is "custom"."""
    return G.custom(memory_gb, bandwidth_tb) if gpu == "custom" else G.get(gpu)


def _name(model_id: str, lang: str) -> str:
    return model_name(model_id, get(model_id).name, lang)


def build_capacity(*, models: Sequence[str] = PLANNER_MODELS, context: int = 131072,
                   precision: Precision = DEPLOYED, gpu: str = "h200", memory_gb: float = 141.0,
                   bandwidth_tb: float = 4.8, bytes_per_parameter: float = 1.0, reserved: float = 0.1,
                   block: int = 16, tp: int = 8, parallel: str = "tp", engine: str = "theory", lang: str = "ko",
                   units: str = "decimal", canvas: Canvas = NATIVE) -> Chart:
    """Concurrent requests at `context` on a node of tp GPUs spread one way (core.parallel.MODES), per
    model: the KV budget left after the weights and a reserve, over one request's cache in whole blocks
    (local KV included), as `engine` allocates it. A row says why where its count is 0, where another
    way of spreading the node or another allocation changes it more than 2×, and where the model has no
    published weights."""
    if not models:
        raise ValueError("need at least one model")
    g = gpu_of(gpu, memory_gb, bandwidth_tb)
    rows = []
    for m in models:
        # the other assumptions a count rests on: another way of spreading the node, another allocation
        others = [(mode, engine) for mode in MODES] + [(parallel, e) for e in ENGINES if e != engine]
        every = {(mode, e): _plan(m, context, precision, g, bytes_per_parameter, reserved, block,
                                  Parallel.mode(mode, tp), e, lang) for mode, e in others}
        p = every[parallel, engine]
        if isinstance(p, str):  # this engine or this way of spreading cannot serve the model: the row says why
            rows.append((_name(m, lang), 0, p, p, None))
            continue
        lines = [_count(p, lang, units), *_why(p, every, lang)]
        rows.append((_name(m, lang), p.max_requests, "<br>".join(lines), _hover(p, lang, units), p))
    names, counts, labels, hovers, plans = zip(*rows)
    title = t("cap.title", lang, tp=tp, g=g.name, n=fmt_tokens(context))
    sub = t("cap.sub", lang, b=bytes_per_parameter, r=f"{reserved:.0%}", blk=block)
    assumed = _mode_note(Parallel.mode(parallel, tp), parallel, engine, lang, canvas)
    records = tuple(_record(m, p, engine) for m, p in zip(models, plans))
    if canvas.narrow:
        return Chart(_capacity_stacked(names, counts, labels, hovers, heading(title, "<br>".join((sub, *assumed))),
                                       t("cap.x", lang), canvas), records)
    room = 1.8
    size = TEMPLATE.layout.font.size * canvas.text
    if canvas.screen_width:  # a page column: the labels right of the bars broken to the room there
        names_px = max(text_px(name, size) for name in names) + 20
        labels = ["<br>".join(wrapped(label, (canvas.screen_width - names_px - 70) * (1 - 1 / room), size))
                  for label in labels]
    row_px = max(52 * canvas.text, max(label.count("<br>") + 1 for label in labels) * LINE * size + 16)
    # constraintext: plotly would shrink a label of several lines to its bar's thickness; its row holds it
    bars = go.Bar(y=list(names), x=list(counts), orientation="h", text=list(labels), textposition="outside",
                  constraintext="none", cliponaxis=False, marker_color=ROLE_COLOURS["main_kv"], customdata=list(hovers),
                  hovertemplate="%{customdata}<extra></extra>")
    height = 140 + row_px * len(rows) + len(assumed) * LINE * TITLE_PX
    return Chart(go.Figure(bars, layout=dict(
        template="kv_atlas", title=title_at_top(heading(title, "<br>".join((sub, *assumed))), height, TITLE_PX),
        height=height, margin=dict(l=10, r=40, t=90 + len(assumed) * LINE * TITLE_PX, b=10), showlegend=False,
        xaxis=dict(title=dict(text=t("cap.x", lang)), range=[0, max(max(counts), 1) * room], rangemode="tozero"),
        yaxis=dict(autorange="reversed"))), records)


def _capacity_stacked(names, counts, labels, hovers, title: dict, axis_title: str, canvas: Canvas) -> go.Figure:
    """A phone's column (for its text): each bar as wide as the column allows, under a line with its
    model's name and count, what the count rests on in lines under it, all broken to the column. A y
    axis in px places each bar under its own lines."""
    scale, width = canvas.text, canvas.screen_width - 20
    name_size, under_size = PHONE_TEXT * scale, PHONE_UNDER * scale
    top_px = max(counts) or 1
    tiny = top_px * 1e-3  # a hair inside the axis: plotly drops a text point on the range's edge
    y, bars, heads, unders = 0.0, [], [], []
    for name, label in zip(names, labels):
        first, *rest = label.split("<br>")
        head = wrapped_parts([f"<b>{name}</b>", first], width, name_size)
        y += len(head) * LINE * name_size + 6
        bars.append(y + PHONE_BAR / 2)
        heads.append((y, "<br>".join(head)))
        y += PHONE_BAR
        if rest:
            under = wrapped("<br>".join(rest), width, under_size)
            unders.append((y, "<br>".join(under)))
            y += len(under) * LINE * under_size + 8
        y += PHONE_GAP * scale
    text = [go.Scatter(x=[tiny] * len(points), y=[at for at, _ in points], text=[s for _, s in points],
                       mode="markers+text", textposition=where, marker=dict(size=10, opacity=0), cliponaxis=False,
                       textfont=dict(size=size, color=colour), hoverinfo="skip", showlegend=False)
            for points, where, size, colour in ((heads, "top right", PHONE_TEXT, None),
                                                (unders, "bottom right", PHONE_UNDER, MUTED)) if points]
    bars_trace = go.Bar(y=bars, x=list(counts), orientation="h", width=PHONE_BAR, marker_color=ROLE_COLOURS["main_kv"],
                        customdata=list(hovers), hovertemplate="%{customdata}<extra></extra>")
    top = 120  # the screen pass sets the title's room
    bottom = 20  # and the axis's
    return go.Figure([bars_trace, *text], layout=dict(
        template="kv_atlas", title=title_at_top(title, top + y + bottom, TITLE_PX), height=top + y + bottom,
        margin=dict(l=10, r=10, t=top, b=bottom), showlegend=False,
        xaxis=dict(title=dict(text=axis_title), range=[0, top_px * 1.05], rangemode="tozero"),
        yaxis=dict(range=[y, 0], visible=False, fixedrange=True)))


def _plan(model: str, context: int, precision: Precision, g: G.GPU, bytes_per_parameter: float, reserved: float,
          block: int, parallel: Parallel, engine: str, lang: str):
    """One model's plan, or why it has none (an engine that does not serve it, more stages than layers); no
    published parameter count: the weights are left out (and the row says so)."""
    parameters = get(model).parameters
    weights = weights_bytes(parameters, bytes_per_parameter) if parameters else 0
    try:
        return plan(model, context, g, weights, fitted(model, precision), reserved=reserved, block_tokens=block,
                    parallel=parallel, engine=engine)
    except EngineError as e:
        return t(f"eng.none.{e.why}", lang, e=t(f"eng.{engine}", lang))
    except ValueError:  # more pipeline stages than layers
        return t("cap.unpriced.pp", lang, n=parallel.pp, layers=get(model).n_layers)


def _count(p, lang: str, units: str) -> str:
    """The count and what a request takes; where none fits, why."""
    if not p.fits:
        return t("cap.nofit", lang, w=fmt_bytes(p.weights_per_gpu_bytes, units),
                 r=fmt_bytes(p.reserved_per_gpu_bytes, units))
    if not p.max_requests:
        return t("cap.zero", lang, left=fmt_bytes(p.kv_budget_per_gpu_bytes, units),
                 r=fmt_bytes(p.per_request_per_gpu_bytes, units))
    return t("cap.row", lang, n=f"{p.max_requests:,}", b=fmt_bytes(p.per_request_bytes, units))


def _why(p, every: dict, lang: str) -> list[str]:
    """What the row's count rests on: another way of spreading the node, or another allocation, that changes it
    more than 2×, and weights left out."""
    lines = []
    for (mode, engine), other in every.items():
        if isinstance(other, str) or other is p:
            continue
        n, base = other.max_requests, p.max_requests
        if n > 2 * base or 2 * n < base:
            if engine == p.engine:
                lines.append(t("cap.other", lang, mode=t(f"cap.mode.{mode}", lang), n=f"{n:,}"))
            else:
                lines.append(t("cap.other.theory", lang, n=f"{n:,}") if engine == "theory" else
                             t("cap.other.engine", lang, mode=t(f"eng.{engine}", lang), n=f"{n:,}"))
    if not p.model.parameters:
        lines.append(t("cap.noparams", lang))
    return lines


def _mode_note(par: Parallel, mode: str, engine: str, lang: str, canvas: Canvas) -> list[str]:
    """How the node is spread, and by which allocation, as subtitle lines (broken for the builder's own width;
    on a page, figures.layout.screen breaks it to the column)."""
    note = t(f"cap.how.{mode}", lang, mode=par.name) + " · " + t(f"cap.engine.{engine}", lang)
    return [note] if canvas.screen_width else wrapped(note, NOTE_WIDTH, TITLE_PX * SUP)


def _hover(p, lang: str, units: str) -> str:
    """Where a row's number comes from: weights, the KV budget per GPU, a request's share of it."""
    return t("cap.hover", lang, w=fmt_bytes(p.weights_per_gpu_bytes, units),
             kv=fmt_bytes(p.kv_budget_per_gpu_bytes, units), r=fmt_bytes(p.per_request_per_gpu_bytes, units),
             split=t("cap.split", lang, h=p.kv_heads) if p.kv_heads else t("cap.replicated", lang))


def _floor_us(model: str, n, precision: Precision, g: G.GPU, batch: int, tp: int):
    return read_floor_seconds(model, n, fitted(model, precision), g.bandwidth_bytes_per_s, batch, tp) * 1e6


def _record(model: str, p, engine: str) -> dict:
    """A row's numbers for the CSV and JSON downloads (None where the engine or the spread cannot serve it)."""
    if p is None:
        return dict.fromkeys(RECORD_KEYS) | {"model": model, "engine": engine}
    return {"model": p.model.id, "context": int(p.context), "gpu": p.gpu.name, "parallel": p.parallel.name,
            "tp": p.parallel.tp, "pp": p.parallel.pp, "dp": p.parallel.dp, "engine": p.engine,
            "block": p.block_tokens, "weights_bytes": p.weights_bytes, "weights_per_gpu_bytes": p.weights_per_gpu_bytes,
            "kv_budget_per_gpu_bytes": p.kv_budget_per_gpu_bytes, "per_request_bytes": int(p.per_request_bytes),
            "per_request_per_gpu_bytes": int(p.per_request_per_gpu_bytes), "max_requests": int(p.max_requests)}


def build_read_floor(*, models: Sequence[str] = PLANNER_MODELS, precision: Precision = DEPLOYED,
                     gpu: str = "h200", memory_gb: float = 141.0, bandwidth_tb: float = 4.8, batch: int = 1,
                     tp: int = 8, lang: str = "ko", canvas: Canvas = NATIVE) -> go.Figure:
    """The least time a decode step can spend reading the cache (KV + index key, and a hybrid's
    states) over HBM bandwidth, against context: a lower bound, not a speed prediction."""
    if not models:
        raise ValueError("need at least one model")
    g = gpu_of(gpu, memory_gb, bandwidth_tb)
    n = np.unique(np.geomspace(1 << 10, 1 << 20, 41).astype(np.int64))
    traces = [dict(type="scatter", x=n, y=_floor_us(m, n, precision, g, batch, tp), mode="lines", name=_name(m, lang),
                   line=dict(width=2.5, dash=DASHES[i % len(DASHES)]),
                   hovertemplate="N=%{x:,}<br>%{y:,.1f} µs<extra>%{fullData.name}</extra>")
              for i, m in enumerate(models)]
    title = t("floor.title", lang)
    what = t("floor.what.state" if any(get(m).state for m in models) else "floor.what", lang)
    sub = t("floor.sub", lang, g=g.name, tp=tp, bw=f"{g.bandwidth_bytes_per_s * tp / 1e12:g}", b=batch, what=what)
    bound = t("floor.bound", lang)
    # that the floor is a bound: in the plot's corner; on a phone's column, a last subtitle line (the
    # screen pass breaks it to the width, which a note beside the y axis's labels cannot know)
    notes = [] if canvas.narrow else [dict(text=bound, x=1, y=0, xref="paper", yref="paper", xanchor="right",
                                           yanchor="bottom", showarrow=False, font=dict(size=11, color=MUTED))]
    # on a phone's column (for its text) the legend under the plot, not over its lines (the screen pass
    # places it under the axis)
    legend = dict(orientation="h", x=0, y=-0.2, yanchor="top") if canvas.narrow else \
        dict(x=0.01, y=0.99, bgcolor="rgba(255,255,255,0.8)")
    return go.Figure(data=traces, layout=dict(
        template="kv_atlas", title=heading(title, f"{sub}<br>{bound}" if canvas.narrow else sub),
        height=440 if canvas.narrow else 480, margin=dict(l=10, r=20, t=90, b=10),
        xaxis=dict(type="log", title=dict(text=t("x.axis.x", lang)), exponentformat="SI"),
        yaxis=dict(type="log", title=dict(text=t("floor.y", lang)), exponentformat="SI"),
        legend=legend, annotations=notes))
