"""The memory budget a capacity review puts down: one GPU's memory split into the runtime, weights,
activations, CUDA graphs, margins, the KV pool, a states pool and what is left, under the planner's
rule, vLLM 0.34.0 and SGLang 0.5.23 side by side. Every number from core.budget."""

from __future__ import annotations

import math

import plotly.graph_objects as go

from core import (
    BUDGET_PARTS,
    ENGINES,
    MODELS,
    OPEN_MODELS,
    RUNTIME_BYTES,
    VLLM_GRAPHS_BYTES,
    Budget,
    Parallel,
    Refusal,
    fmt_bytes,
    get,
    gpu_budget,
    refusal,
    splittable,
    vllm_batch,
)
from i18n import model_name, t

from ..canvas import LEGEND_SYMBOL, LINE, NATIVE, Canvas, title_at_top
from ..charts.capacity import TITLE_PX
from ..made import Chart, Incompatible
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, heading
from ..text import SUP, text_px, wrapped, wrapped_parts
from .planner import gpu_of

# the models all three rules split: a published parameter count and a config.json for the activation estimate
BUDGET_MODELS = tuple(m for m in (*MODELS, *OPEN_MODELS) if splittable(m))
# a segment's colour by part: the weights and the KV pool as the article colours them
COLOURS = {"runtime": "#9ca3af", "weights": ROLE_COLOURS["weight"], "activations": "#e8890c", "graphs": "#b45309",
           "margin": "#f4c04e", "reserve": MUTED, "kv": ROLE_COLOURS["main_kv"], "states": "#0f9d8a",
           "left": "#d9dde3"}
UNIT = {"decimal": (10**9, "GB"), "binary": (1 << 30, "GiB")}
NATIVE_WIDTH = 660  # px the rows' text is broken to for the builder's own layout (an export's 700 px, less margins)
HEAD, UNDER, BAR, GAP = 13, 12, 22, 14  # px at the reader's text size 1: a row's head, its lines under, bar, gap
AXIS_PX = 54  # px under the plot the x axis's labels and title take, natively (the legend goes under them)
MARGIN_X = 30  # px of margin left and right of the plot
TEXT_PAD = 14  # px from the plot's left edge to a row's text (the invisible marker it is placed beside)
RECORD_KEYS = ("model", "gpu", "engine", "parallel", "total_bytes", *(f"{p}_bytes" for p in BUDGET_PARTS), "fits",
               "refused")


def build_budget(*, model: str = "v3.2", gpu: str = "h200", memory_gb: float = 141.0, tp: int = 8,
                 parallel: str = "tp", bytes_per_parameter: float = 1.0, reserved: float = 0.1, lang: str = "ko",
                 units: str = "decimal", canvas: Canvas = NATIVE) -> Chart:
    """One GPU of a node of `tp` GPUs spread one way (core.PARALLEL_MODES) holding `model`: a bar per rule
    (the planner's, vLLM 0.34.0's, SGLang 0.5.23's), each the card's memory as its driver reports it, stacked
    by part (runtime, weights, activation peak, CUDA graphs, vLLM's margin, the planner's flat reserve of
    `reserved` of the data sheet's memory, the KV pool, SGLang's states pool for a hybrid, what is left;
    core.budget), the card's memory marked; over each bar its rule and pool (or that the weights do not fit,
    or the engine's refusal of the layout, core.layouts), under it every other part's size; the subtitle
    states the assumptions (runtime, vLLM's CUDA graphs, its estimated activation peak). A segment's hover
    gives its exact bytes."""
    if model not in BUDGET_MODELS:
        raise Incompatible(f"the memory budget splits {', '.join(BUDGET_MODELS)}; not {model!r}")
    g = gpu_of(gpu, memory_gb, 1.0)
    par = Parallel.mode(parallel, tp)
    scale, unit_bytes, unit = canvas.text, *UNIT[units]
    # the rows' text: within the plot (the column less its margins), left of the card's mark at 1/1.02 of it
    width = (canvas.screen_width - MARGIN_X) / 1.02 - TEXT_PAD if canvas.screen_width else NATIVE_WIDTH
    head_size, under_size = HEAD * scale, UNDER * scale
    rows, refused = [], {}
    for engine in ENGINES:
        if r := refusal(model, par, engine):  # a layout the engine does not run: said, never priced
            refused[engine] = r
            rows.append((engine, None))
            continue
        try:
            rows.append((engine, gpu_budget(model, g, engine, par, bytes_per_parameter, reserved=reserved)))
        except ValueError:  # a layout the rule cannot place (no weights): the row says so
            rows.append((engine, None))
    y, bars, heads, unders = 0.0, [], [], []
    for engine, b in rows:
        head = wrapped_parts(_head(engine, b, lang, units, refused.get(engine)), width, head_size)
        y += len(head) * LINE * head_size + 6
        heads.append((y, "<br>".join(head)))
        bars.append(y + BAR / 2)
        y += BAR
        if b is not None:
            under = wrapped_parts(_values(b, lang, units), width, under_size, sep=" · ")
            unders.append((y, "<br>".join(under)))
            y += len(under) * LINE * under_size + 8
        y += GAP * scale
    shown = [p for p in BUDGET_PARTS if any(b is not None and getattr(b, p) > 0 for _, b in rows)]
    traces = [go.Bar(y=bars, x=[getattr(b, part) / unit_bytes if b is not None else 0 for _, b in rows],
                     orientation="h", width=BAR, name=t(f"bud.part.{part}", lang), marker_color=COLOURS[part],
                     marker_line=dict(width=0.5, color="#ffffff"),
                     customdata=[_hover(engine, b, part, lang) for engine, b in rows],
                     hovertemplate="%{customdata}<extra></extra>")
              for part in shown]
    top_x = max([g.reported_bytes, *(sum(max(v, 0) for v in b.parts.values()) for _, b in rows if b)]) / unit_bytes
    tiny = top_x * 1e-3  # a hair inside the axis: plotly drops a text point on the range's edge
    texts = [go.Scatter(x=[tiny] * len(points), y=[at for at, _ in points], text=[s for _, s in points],
                        mode="markers+text", textposition=where, marker=dict(size=10, opacity=0), cliponaxis=False,
                        textfont=dict(size=size, color=colour), hoverinfo="skip", showlegend=False)
             for points, where, size, colour in ((heads, "top right", HEAD, None),
                                                 (unders, "bottom right", UNDER, MUTED)) if points]
    title = t("bud.title", lang, m=model_name(model, get(model).name, lang), g=g.name)
    sub = _subtitle(g, par, bytes_per_parameter, lang, units)
    note = t("bud.assumed", lang, r=fmt_bytes(RUNTIME_BYTES, units), g=fmt_bytes(VLLM_GRAPHS_BYTES, units),
             t=f"{vllm_batch(g)[0]:,}")
    subtitle = "<br>".join((sub, note)) if canvas.screen_width else "<br>".join(
        wrapped(sub, NATIVE_WIDTH, TITLE_PX * SUP) + wrapped(note, NATIVE_WIDTH, TITLE_PX * SUP))
    top = 30 + (subtitle.count("<br>") + 2) * LINE * TITLE_PX
    body = TEMPLATE.layout.font.size * scale
    room = (canvas.screen_width or NATIVE_WIDTH + MARGIN_X) - MARGIN_X
    columns = _legend_columns([t(f"bud.part.{part}", lang) for part in shown], room, body)
    legend_lines = math.ceil(len(shown) / columns)
    bottom = AXIS_PX * scale + legend_lines * (LINE * body + 4) + 16
    height = top + y + bottom
    fig = go.Figure([*traces, *texts], layout=dict(
        template="kv_atlas", title=title_at_top(heading(title, subtitle), height, TITLE_PX), height=height,
        margin=dict(l=MARGIN_X - 20, r=20, t=top, b=bottom), barmode="stack", showlegend=True,
        # under the axis, from the figure's foot (the builder reserves its rows: plotly sets them in a grid)
        # in a grid of `columns` as wide as the plot's, on a column as wide as its class or wider alike
        legend=dict(orientation="h", xref="container", x=0, xanchor="left", yref="container", y=0,
                    yanchor="bottom", traceorder="normal",
                    **(dict(entrywidthmode="fraction", entrywidth=1 / columns) if columns < len(shown) else {})),
        xaxis=dict(title=dict(text=t("bud.x", lang, u=unit)), range=[0, top_x * 1.02], rangemode="tozero"),
        # the card's memory: where every bar ends that fits, what one that does not passes
        shapes=[dict(type="line", x0=g.reported_bytes / unit_bytes, x1=g.reported_bytes / unit_bytes, y0=0, y1=1,
                     yref="paper", layer="below", line=dict(color=MUTED, width=1, dash="dot"))],
        yaxis=dict(range=[y, 0], visible=False, fixedrange=True)))
    return Chart(fig, tuple(_record(model, g, engine, par, b, refused.get(engine)) for engine, b in rows), title,
                 subtitle)


def _legend_columns(names: list[str], room: float, size: float) -> int:
    """Entries a row of a horizontal legend of these names holds in `room` px at `size` px text: all of them
    where they fit side by side, else as many as the widest entry fits (the legend then set in a grid of that
    many equal columns, each a fraction of the plot's width: the same rows on a wider page column)."""
    entries = [text_px(name, size) + LEGEND_SYMBOL for name in names]
    if sum(entries) <= room:
        return len(entries)
    return max(1, int(room // max(entries)))


def _head(engine: str, b: Budget | None, lang: str, units: str, refused: Refusal | None = None) -> list[str]:
    """A row's first line: the rule, and its KV pool (or why it has none: the engine refuses the layout, or
    the rule cannot split the GPU), as parts a line breaks between."""
    e = f"<b>{t(f'bud.eng.{engine}', lang)}</b>"
    if refused is not None:
        return [e, t("bud.refused", lang, why=t(f"bud.why.{refused.rule}", lang))]
    if b is None:
        return [e, t("bud.none", lang)]
    if not b.fits:
        return [e, t("bud.nofit", lang, short=fmt_bytes(b.short, units))]
    if b.states:
        return [e, t("bud.head.states", lang, kv=fmt_bytes(b.kv, units), s=fmt_bytes(b.states, units))]
    return [e, t("bud.head", lang, kv=fmt_bytes(b.kv, units))]


def _values(b: Budget, lang: str, units: str) -> list[str]:
    """Every part a rule sets aside but its pool, in the bar's order: what the bar's segments are."""
    out = []
    for part, value in b.parts.items():
        if part in ("kv", "states") or value <= 0:
            continue
        v = fmt_bytes(value, units)
        out.append(t("bud.left.theory", lang, v=v) if (part, b.engine) == ("left", "theory") else
                   t("bud.value", lang, p=t(f"bud.part.{part}", lang), v=v))
    return out


def _subtitle(g, par: Parallel, bytes_per_parameter: float, lang: str, units: str) -> str:
    common = dict(par=par.name, b=f"{bytes_per_parameter:g}")
    if g.reported_mib:
        return t("bud.sub", lang, mib=f"{g.reported_mib:,}", total=fmt_bytes(g.reported_bytes, units),
                 sheet=fmt_bytes(g.memory_bytes, units), **common)
    return t("bud.sub.sheet", lang, total=fmt_bytes(g.memory_bytes, units), **common)


def _hover(engine: str, b: Budget | None, part: str, lang: str) -> str:
    """A segment's exact bytes."""
    value = 0 if b is None else getattr(b, part)
    return t("bud.hover", lang, e=t(f"bud.eng.{engine}", lang), p=t(f"bud.part.{part}", lang), b=f"{value:,} B")


def _record(model: str, g, engine: str, par: Parallel, b: Budget | None,
            refused: Refusal | None = None) -> dict:
    """A row's numbers for the CSV and JSON downloads (None where the rule cannot split the GPU; where the
    engine refuses the layout, its reason and source)."""
    why = {"refused": str(refused) if refused else None}
    if b is None:
        return dict.fromkeys(RECORD_KEYS) | {"model": model, "gpu": g.name, "engine": engine, "parallel": par.name,
                                             **why}
    return {"model": model, "gpu": g.name, "engine": engine, "parallel": par.name, "total_bytes": b.total,
            **{f"{p}_bytes": v for p, v in b.parts.items()}, "fits": b.fits, **why}
