"""Figures whose story is a sequence, as plotly animations: one frame per value of the knob
their `Play` names (figures/registry.py), each frame the static figure's own build at that
value, with play/pause buttons and a slider.

A frame carries the static figure's traces and the layout parts that change from step to
step (title, shapes, annotations). What it cannot change without the page jumping, the
canvas, is fixed at the largest step's: width, height and axis ranges span every step, so
each step draws at its own scale from the same top-left corner. `stills` are the same steps
on that canvas without the controls: the frames of a video (publish/video.py); `slide_stills`
are the steps as slides (figures/layout/slide.py), built for the slide with one layout for every
step (figures.layout.draw_alike) on the canvas that holds the largest.

plotly.js applies a frame by merging it into what is drawn, item by item: a shorter list of
annotations leaves the rest standing, and an annotation that sets no `bgcolor` keeps the
previous one's. So every frame lists the same number of traces, shapes and annotations
(hidden ones pad), and an item sets every key its slot has in any frame (null: the default).
Those nulls are why the animation is a figure dict, not a `go.Figure`: plotly.py drops them.
"""

from __future__ import annotations

import plotly.graph_objects as go

from i18n import t

from .canvas import NATIVE, SCREEN_TEXT, Canvas
from .contrast import rgba
from .knobs import LANG
from .layout import Made, draw_alike, fit, is_diagram, looked
from .registry import PLAYS, SPECS, FigureSpec
from .style import MUTED

FRAME_MS = 800  # how long the play button shows each step
CONTROLS_PX = 90  # room over the plot for the buttons and the slider
BUTTONS_TOP = 22  # px from that room's top to the buttons': level with the slider's rail, under its value
BUTTONS_PX = 96  # the play/pause buttons, left of the slider
RAIL = "rgba({:g}, {:g}, {:g}, 0.25)".format(*rgba(MUTED)[:3])  # the slider's rail: MUTED, faint on any background
AXES = ("xaxis", "yaxis")
# fixed across frames: the canvas (axes: a range that spans every step) and the template
FIXED = ("width", "height", *AXES, "template")
LISTS = ("shapes", "annotations")  # layout lists plotly.js merges item by item


def play_spec(figure_id: str) -> FigureSpec:
    """The figure's spec if it has a play control, else a ValueError naming those that do."""
    spec = SPECS.get(figure_id)
    if spec is None or spec.play is None:
        raise ValueError(f"{figure_id} has no play control; these do: {', '.join(PLAYS)}")
    return spec


def steps(spec: FigureSpec, at: int | None = None) -> range:
    """The values a figure's frames step through: its play range, widened to reach `at`."""
    lo, hi = spec.play.lo, spec.play.hi
    if at is not None:
        lo, hi = min(lo, at), max(hi, at)
    return range(lo, hi + 1)


def _steps(figure_id: str, canvas: Canvas, knobs: dict) -> tuple[list[dict], range, int]:
    """Every step's static figure (built by its builder for the screen canvas — natively, or a page
    column's, every step drawn alike for it —, in the canvas's look) as a dict on one shared canvas; the
    values stepped, and the index of the knobs' own value among them."""
    spec, values, values_at, at = _stepped(figure_id, knobs)
    built = spec.build_alike([{**values, spec.play.knob: v} for v in values_at], canvas)
    return _on_canvas([b.figure for b in built]), values_at, values_at.index(at)


def _made(spec: FigureSpec, values: dict, values_at: range) -> list[Made]:
    return [spec.made({**values, spec.play.knob: v}) for v in values_at]


def _stepped(figure_id: str, knobs: dict) -> tuple[FigureSpec, dict, range, int]:
    """The figure's spec, its knob values, the values its steps take, and the knobs' own one."""
    spec = play_spec(figure_id)
    values = {**spec.defaults, **knobs}
    at = values[spec.play.knob]
    return spec, values, steps(spec, at), at


def _on_canvas(figs: list[go.Figure]) -> list[dict]:
    """The figures as dicts (copying 30 go.Figures would cost seconds) on one canvas: a title
    placed from the top edge (figures.canvas.title_at_top) stays as far from it on a taller one."""
    dicts = [f.to_plotly_json() for f in figs]
    canvas = _canvas([d["layout"] for d in dicts])
    for d in dicts:
        lay, height = d["layout"], d["layout"].get("height")
        lay.update({k: {**lay.get(k, {}), **v} if k in (*AXES, "margin") else v for k, v in canvas.items()})
        _from_top(lay.get("title"), height, lay.get("height"))
    return dicts


def _from_top(title: dict | None, height: float | None, taller: float | None) -> None:
    """A title placed from the top edge (figures.canvas.title_at_top) kept as far from it when its
    figure of `height` becomes `taller`."""
    if height and taller and title and title.get("yref") == "container" and title.get("y") is not None:
        title["y"] = 1 - (1 - title["y"]) * height / taller


def stills(figure_id: str, canvas: Canvas = NATIVE, **knobs) -> tuple[list[go.Figure], range]:
    """Every step's static figure on the shared canvas (natively, in the canvas's look), without controls (a
    video's frames)."""
    dicts, values_at, _ = _steps(figure_id, canvas, knobs)
    return [go.Figure(d) for d in dicts], values_at


def slide_stills(figure_id: str, canvas: Canvas, **knobs) -> tuple[list[go.Figure], range]:
    """Every step as a slide (the canvas's size, text size and look), all laid out alike: built for the slide
    with one layout for every step, on the canvas that holds the largest, then laid out as slides (as a figure's
    own build lays out one) — a video's frames at a slide size."""
    spec, values, values_at, _ = _stepped(figure_id, knobs)
    made = _made(spec, values, values_at)
    drawn = draw_alike(made, canvas)
    return [looked(fit(go.Figure(d), canvas, is_diagram(m)), canvas, on_fill)
            for d, m, (_, on_fill) in zip(_on_canvas([d.figure for d in drawn]), made, drawn)], values_at


def _canvas(layouts: list[dict]) -> dict:
    """Width, height, margins and axis ranges that hold every step (a reversed axis stays reversed)."""
    out = {side: max(lay[side] for lay in layouts) for side in ("width", "height")
           if all(lay.get(side) for lay in layouts)}  # a chart may leave its size to the page
    margins = [lay.get("margin") or {} for lay in layouts]
    out["margin"] = {side: max(m[side] for m in margins) for side in ("l", "r", "t", "b")
                     if all(side in m for m in margins)}  # one place for the drawing in every step
    for axis in AXES:
        ranges = [lay.get(axis, {}).get("range") for lay in layouts]
        if all(ranges):
            ends = (max, min) if ranges[0][0] > ranges[0][1] else (min, max)  # reversed: the first end is larger
            out[axis] = {"range": [end(r[i] for r in ranges) for i, end in enumerate(ends)]}
    return out


def animated(figure_id: str, canvas: Canvas = NATIVE, **knobs) -> dict:
    """The figure at its knobs' values, with a frame per step and the controls that play them, built
    for the screen canvas (natively, or a page column's) in its look, as a figure dict (`plotly.io.to_json` /
    `to_html` take it as it is, with validate=False)."""
    dicts, values_at, at = _steps(figure_id, canvas, knobs)
    layouts = [d["layout"] for d in dicts]
    changing = sorted({k for lay in layouts for k in lay if k not in FIXED and lay.get(k) != layouts[0].get(k)})
    parts = {k: [lay.get(k) for lay in layouts] for k in changing}
    for k, values in parts.items():
        if k in LISTS:
            parts[k] = _uniform([items or [] for items in values])
        elif all(isinstance(v, dict) for v in values):  # e.g. the title: its keys merge too
            parts[k] = [_filled(v, _union(values)) for v in values]
    data = _uniform([d["data"] for d in dicts])
    frames = [{"name": str(v), "data": data[i], "layout": {k: parts[k][i] for k in changing}}
              for i, v in enumerate(values_at)]
    fig = {"data": dicts[at]["data"], "layout": dicts[at]["layout"], "frames": frames}
    spec = SPECS[figure_id]
    height = fig["layout"].get("height")
    fig["layout"] |= _controls(spec, fig["layout"], values_at, at, {**spec.defaults, **knobs}.get("lang", LANG.default))
    for lay in (fig["layout"], *(f["layout"] for f in frames)):  # the room the controls take is under the title
        _from_top(lay.get("title"), height, fig["layout"]["height"])
    return fig


def at_step(fig: dict, value: int) -> dict:
    """The same animation drawn at step `value` first, its slider there: what `animated` returns
    for that knob value when it lies in the play range (the frames do not depend on it)."""
    i = [f["name"] for f in fig["frames"]].index(str(value))
    frame, layout = fig["frames"][i], fig["layout"]
    return {**fig, "data": frame["data"],
            "layout": {**layout, **frame["layout"], "sliders": [{**layout["sliders"][0], "active": i}]}}


def _uniform(lists: list[list[dict]]) -> list[list[dict]]:
    """Per frame, a list of as many items as the longest (hidden ones pad); each item with every
    key its slot has in any frame, null where it sets none (plotly.js then uses the default)."""
    n = max(map(len, lists))
    out = []
    for items in lists:
        pad = [{"visible": False, **_typed(lists, j)} for j in range(len(items), n)]
        out.append([*items, *pad])
    for j in range(n):
        keys = _union([items[j] for items in out])
        for items in out:
            items[j] = _filled(items[j], keys)
    return out


def _typed(lists: list[list[dict]], j: int) -> dict:
    """A trace's type for a padding item in slot j (from a frame that has one there)."""
    return next(({"type": items[j]["type"]} for items in lists if j < len(items) and "type" in items[j]), {})


def _union(items: list[dict]) -> dict:
    """Every key the items set, nested dicts as dicts of their keys."""
    keys: dict = {}
    for item in items:
        for k, v in item.items():
            if isinstance(v, dict):
                keys[k] = _union([keys[k], v]) if isinstance(keys.get(k), dict) else _union([v])
            else:
                keys.setdefault(k, None)
    return keys


def _filled(item: dict, keys: dict) -> dict:
    out = dict(item)
    for k, sub in keys.items():
        if k not in out:
            out[k] = None
        elif isinstance(sub, dict) and isinstance(out[k], dict):
            out[k] = _filled(out[k], sub)
    return out


def _go(names, frame_ms: int, **opts) -> list:
    """The arguments of an `animate` button or slider step."""
    return [names, {"frame": {"duration": frame_ms, "redraw": True}, "transition": {"duration": 0},
                    "mode": "immediate", **opts}]


def _controls(spec: FigureSpec, layout: dict, values_at: range, at: int, lang: str) -> dict:
    """Play/pause buttons and a slider between the title and the drawing, in room added for them: the
    canvas holds the largest step, so under a smaller one a row below the drawing would sit past a
    blank band."""
    margin = layout.get("margin", {})
    plot_px = layout["width"] - margin.get("l", 0) - margin.get("r", 0)
    label = t(spec.knob(spec.play.knob).label, lang)
    return dict(
        height=layout["height"] + CONTROLS_PX, margin={**margin, "t": margin.get("t", 0) + CONTROLS_PX},
        updatemenus=[dict(
            type="buttons", direction="left", showactive=False, x=0, y=1, xanchor="left", yanchor="bottom",
            pad=dict(b=CONTROLS_PX - BUTTONS_TOP - 30, r=6), bgcolor="rgba(0,0,0,0)", bordercolor=MUTED,
            font=dict(size=13),
            buttons=[dict(label="▶", method="animate", args=_go(None, FRAME_MS, fromcurrent=True)),
                     dict(label="❚❚", method="animate", args=_go([None], 0))])],
        sliders=[dict(
            active=at, x=BUTTONS_PX / plot_px, len=1 - BUTTONS_PX / plot_px, y=1, yanchor="bottom", pad=dict(b=10),
            currentvalue=dict(prefix=f"{label} = ", font=dict(size=12)), font=dict(size=SCREEN_TEXT), tickcolor=MUTED,
            bgcolor=RAIL, bordercolor=MUTED,
            steps=[dict(label=str(v), method="animate", args=_go([str(v)], 0)) for v in values_at])])
