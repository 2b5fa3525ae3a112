"""Why published numbers differ from the article's: each variant of core.variants beside the
article's number, per model it changes — storage per token and the read of one decode step."""

from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from core import A1_MODELS, get
from core.units import fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens
from core.variants import V4_PAGE_ALIGN, VARIANTS, Varied
from i18n import model_name, t

from ..canvas import LINE, NATIVE, SUP_FOOT, Canvas, legend_rows, title_at_top, title_top
from ..contrast import INK
from ..made import Chart, Incompatible
from ..style import MUTED, ROLE_COLOURS, TEMPLATE, heading
from ..text import text_px, wrap, wrapped

PANELS = ("x", "x2")
PHONE_TEXT, PANEL_TEXT = 12, 14  # px on a phone: a row's name and numbers; a panel's heading
BAR_PX, ROW_GAP, TICKS_PX = 16, 14, 28  # px on a phone: a bar's thickness, between rows, an axis's labels
TITLE_ROOM = 56  # px on a phone for a title of one line and a subtitle of one, at the top (the screen pass adds more)


def build_reconciliation(*, variants: Sequence[str] = tuple(VARIANTS), context: int = 131072, lang: str = "ko",
                         units: str = "decimal", canvas: Canvas = NATIVE) -> Chart:
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
    names = [r[0] for r in rows]
    traces, axes, tight = [], {}, {}
    for xref, what, show in (("x", lambda s: s.storage_per_token().total, fmt_exact),
                             ("x2", lambda s: s.reads(context).total, lambda b: fmt_bytes(b, units))):
        before, after = [what(r[1]) for r in rows], [what(r[3]) for r in rows]
        text = [_change(a, b, show) for a, b in zip(before, after)]
        if xref == "x":  # what a variant does to the ratio the article headlines
            text = [f"{x}<br>{_ratio(VARIANTS[r[2]], r[4], lang)}" for x, r in zip(text, rows)]
        traces.append(dict(type="bar", x=after, y=names, orientation="h", xaxis=xref, yaxis="y", showlegend=False,
                           marker_color=ROLE_COLOURS["main_kv"], text=text, textposition="outside", cliponaxis=False,
                           hoverinfo="skip"))
        traces.append(dict(type="scatter", x=before, y=names, mode="markers", xaxis=xref, yaxis="y",
                           showlegend=xref == "x", name=t("rec.article", lang), hoverinfo="skip",
                           marker=dict(symbol="line-ns", size=26, line=dict(width=3, color=INK))))
        low, high = min(before + after), max(before + after)
        axes[xref] = [math.log10(low) - 0.3, math.log10(high) + 2.4]  # room for the labels after the bars
        tight[xref] = [math.log10(low) - 0.3, math.log10(high) + 0.3]  # a phone's: the labels are over the bars
    titles = (t("a1.storage", lang), t("a1.read", lang, n=fmt_tokens(context)))
    if canvas.screen_width and not canvas.narrow:  # a page column: room after the bars for their labels
        axes = _label_room(traces, names, axes, canvas)
    if canvas.narrow or axes is None:  # a phone's column, or labels wider than a panel leaves them
        return Chart(_stacked(traces, tight, titles, lang, canvas.screen_width, canvas.text), _numbers(rows, context),
                     t("rec.title", lang), t("rec.sub", lang))
    notes = [dict(text=text, x=x, y=1.0, xref="paper", yref="paper", xanchor="center", yanchor="bottom",
                  showarrow=False, font=dict(size=14)) for text, x in zip(titles, (0.24, 0.76))]
    return Chart(go.Figure(data=traces, layout=dict(
        template="kv_atlas", title=heading(t("rec.title", lang), t("rec.sub", lang)),
        height=(160 + 58 * len(rows)) * canvas.text, annotations=notes,
        margin=dict(l=10, r=120 * canvas.text, t=110 * canvas.text, b=10),
        xaxis=dict(type="log", domain=[0, 0.46], range=axes["x"], exponentformat="SI"),
        xaxis2=dict(type="log", domain=[0.54, 1], range=axes["x2"], exponentformat="SI"),
        yaxis=dict(autorange="reversed", tickfont=dict(size=12)),
        legend=dict(orientation="h", x=1, xanchor="right", y=1.09, yanchor="bottom", font=dict(color=MUTED)))),
        _numbers(rows, context), t("rec.title", lang), t("rec.sub", lang))


def _label_room(traces: list[dict], names: list[str], axes: dict, canvas: Canvas) -> dict | None:
    """Each panel's axis range with room after its longest bar's end for the labels after the bars, at the
    reader's text size on a page column of its width; None where a label takes most of a panel."""
    size = TEMPLATE.layout.font.size * canvas.text
    left = max(text_px(name, 12 * canvas.text) for name in names) + 16
    panel = (canvas.screen_width - left - 120 * canvas.text) * 0.46
    out = {}
    for bars in traces[::2]:
        lo, hi = axes[bars["xaxis"]][0], math.log10(max(bars["x"]))
        widths = [max(text_px(line, size) for line in text.split("<br>")) + 8 for text in bars["text"]]
        if max(widths) > 0.7 * panel:
            return None
        span = max((math.log10(x) - lo) / (1 - w / panel) for x, w in zip(bars["x"], widths))
        out[bars["xaxis"]] = [lo, max(lo + span, hi + 0.3)]
    return out


def _numbers(rows, context: int) -> tuple[dict, ...]:
    return tuple({"row": n, "article_storage": a.storage_per_token().total,
                  "variant_storage": v.storage_per_token().total, "article_read": a.reads(context).total,
                  "variant_read": v.reads(context).total} for n, a, _, v, _ in rows)


def _stacked(traces: list[dict], ranges: dict, titles: tuple[str, str], lang: str, column: int,
             scale: float = 1.0) -> go.Figure:
    """The chart for a phone's column `column` px wide, its text `scale` times its sizes (the reader's
    text size): the storage panel over the read panel, each as wide as the column, every bar under its
    row's name and numbers (broken to the column). A y axis in px places each bar under its own lines."""
    room = column - 20  # the margins' 10 px a side
    text, panel_text = PHONE_TEXT * scale, PANEL_TEXT * scale
    panels, notes, layout = [], [], {}
    for k, (xref, title) in enumerate(zip(PANELS, titles)):
        bars, ticks = traces[2 * k], traces[2 * k + 1]
        yref, y, ys = f"y{k + 1 if k else ''}", 0.0, []
        for name, row_text in zip(bars["y"], bars["text"]):
            lines = [f"<b>{line}</b>" for line in bold_lines(name, room, text)] + wrapped(row_text, room, text)
            notes.append(dict(text="<br>".join(lines), x=0, y=y, xref=f"{xref} domain", yref=yref, xanchor="left",
                              yanchor="top", align="left", showarrow=False, font=dict(size=PHONE_TEXT)))
            y += len(lines) * LINE * text + BAR_PX / 2 + 6
            ys.append(y)
            y += BAR_PX / 2 + ROW_GAP * scale
        heading_lines = bold_lines(title, room, panel_text)
        panels.append((xref, yref, heading_lines, y))
        for trace in (bars, ticks):
            trace.update(y=ys, yaxis=yref)
        bars.update(text=None, width=BAR_PX)
        ticks["marker"]["size"] = BAR_PX + 2
    # between the panels: the upper one's axis labels, then the lower one's heading
    gap = TICKS_PX * scale + len(panels[1][2]) * LINE * panel_text + 8
    total = sum(p[3] for p in panels) + gap
    at = total
    for k, (xref, yref, heading_lines, height) in enumerate(panels):
        domain = [max((at - height) / total, 0.0), min(at / total, 1.0)]
        layout[f"xaxis{k + 1 if k else ''}"] = dict(type="log", domain=[0, 1], range=ranges[xref], exponentformat="SI",
                                                    anchor=yref)
        layout[f"yaxis{k + 1 if k else ''}"] = dict(domain=domain, range=[height, 0], visible=False, anchor=xref)
        notes.append(dict(text="<br>".join(f"<b>{line}</b>" for line in heading_lines), x=0, y=domain[1],
                          xref="paper", yref="paper", xanchor="left", yanchor="bottom", yshift=4, align="left",
                          showarrow=False, font=dict(size=PANEL_TEXT)))
        at -= height + gap
    size = TEMPLATE.layout.title.font.size * scale  # the title and subtitle, then the upper panel's heading
    top = title_top(size) + (LINE + SUP_FOOT) * size + 12 + len(panels[0][2]) * LINE * panel_text + 4
    legend = legend_rows([t("rec.article", lang)], room, TEMPLATE.layout.font.size * scale)
    bottom = TICKS_PX * scale + legend * LINE * TEMPLATE.layout.font.size * scale + 20
    height = top + total + bottom
    # at the top edge, not plotly's middle of the margin, which the panel's heading shares
    title = title_at_top(heading(t("rec.title", lang), t("rec.sub", lang)), height, size)
    return go.Figure(data=traces, layout=dict(
        template="kv_atlas", title=title, annotations=notes, height=height, margin=dict(l=10, r=10, t=top, b=bottom),
        legend=dict(orientation="h", x=0, yref="container", y=0, yanchor="bottom", font=dict(color=MUTED)),
        **layout))


def bold_lines(text: str, width: float, size: float) -> list[str]:
    """A text drawn bold, broken to `width` px at `size` as bold letters measure."""
    return wrap(text, width, lambda line: text_px(f"<b>{line}</b>", size))


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
