"""The figure registry: one typed description of every figure and its knobs.

Each `FigureSpec` holds the figure's id, its builder, its title key and its knobs; a
knob's default is the builder's own keyword default, bound here once. Pages draw their
controls from these knobs, `?figure=` links and the export CLI read values through them
(parsed, clamped, or the default with a note), and links and exports write values
through them — so a view and its link cannot disagree.

Ranges are chosen so the largest figure any link can ask for builds in well under a
second and a few MB (benchmarks/bench_links.py measures it; the tests bound it).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from core import BLOCK_TOKENS, ENGINES, GPUS, MODELS, OPEN_MODELS, PARALLEL_MODES, VARIANTS, local_kv
from core.mechanisms import CALC_PRECISIONS, MLADims
from i18n import t

from .builders.budget import BUDGET_MODELS, build_budget
from .builders.crossover import build_crossover
from .builders.dsa import build_a8, build_a9, build_a10
from .builders.factors import build_factors
from .builders.kv_bars import build_a1, generation_chart
from .builders.mla import build_a3, build_a4, build_a5, build_a6, build_mla_cost
from .builders.planner import ASKS, BYTES_PER_PARAMETER, PLANNER_MODES, REQUESTS, build_capacity, build_read_floor
from .builders.reconcile import build_reconciliation, variant_name
from .builders.rope import build_rope
from .builders.token_axis import build_b1, build_b2, build_b3, build_b4
from .builders.v4 import build_a12, build_a13, build_a14, build_a15, build_a16, build_a17, build_a18, build_a19
from .builders.v41 import (
    build_a21,
    build_a22,
    build_a23,
    build_a24,
    build_a25,
    build_a26,
    build_a27,
    build_ced_ratio,
)
from .canvas import NATIVE, Canvas
from .knobs import (
    CONTEXT,
    LANG,
    PRECISION,
    SEED,
    UNITS,
    ChoiceKnob,
    FloatKnob,
    IntKnob,
    Knob,
    MatrixKnob,
    Note,
    Params,
    TupleKnob,
    models,
)
from .layout import built, built_alike
from .made import Built, Incompatible, Made


@dataclass(frozen=True)
class Play:
    """A figure whose story is a sequence: its animation (figures/animation.py) has one frame
    per value of the int knob `knob` from `lo` to `hi` (the knob's own ends when None)."""

    knob: str
    lo: int | None = None
    hi: int | None = None


@dataclass(frozen=True)
class FigureSpec:
    """A figure: its builder, whose keywords are its knobs, and the one way to build it, `build(values,
    canvas)`: what the builder makes of those knob values, drawn and laid out for the canvas (a page column, a
    slide, or natively) in its look by the layout pass. A builder never sees the canvas."""

    id: str
    builder: Callable[..., Made]  # a chart, or a diagram the layout pass draws
    title_key: str
    knobs: tuple[Knob, ...]
    title_fields: Callable[[], dict] = field(default=dict, compare=False)
    play: Play | None = None

    def __post_init__(self):
        signature = inspect.signature(self.builder).parameters
        if "canvas" in signature:
            raise ValueError(f"{self.id}: its builder takes the canvas, which only the layout pass places for")
        params = dict(signature)
        names = [k.name for k in self.knobs]
        if sorted(names) != sorted(params):
            raise ValueError(f"{self.id}: knobs {sorted(names)} do not match the builder's keywords {sorted(params)}")
        bound = tuple(k.bind(params[k.name].default) for k in self.knobs)
        object.__setattr__(self, "knobs", bound)
        if self.play:
            object.__setattr__(self, "play", self._bind_play(self.play))

    def _bind_play(self, play: Play) -> Play:
        """The play range with the knob's ends filled in, checked to lie inside its range."""
        knob = next((k for k in self.knobs if k.name == play.knob), None)
        if not isinstance(knob, IntKnob):
            raise ValueError(f"{self.id}: play steps {play.knob!r}, which is not one of its int knobs")
        lo, hi = (knob.lo if play.lo is None else play.lo), (knob.hi if play.hi is None else play.hi)
        if not knob.lo <= lo < hi <= knob.hi:
            raise ValueError(f"{self.id}: play range {lo} … {hi} is not inside {play.knob}'s {knob.lo} … {knob.hi}")
        return Play(play.knob, int(lo), int(hi))

    def build(self, values: Mapping, canvas: Canvas) -> Built:
        """The figure with these knob values (the others at their defaults) laid out for the canvas
        (figures/layout/) and in its look, with its title, captions and records. `Incompatible` where the
        values do not go together; a builder's own bug raises whatever it raises."""
        return built(self.made(values), canvas)

    def build_alike(self, steps: Sequence[Mapping], canvas: Canvas) -> list[Built]:
        """The figure at each of several knob values, built as `build` builds one, laid out alike (an animation's
        steps: its diagrams share one text size and packing for the canvas)."""
        return built_alike([self.made(values) for values in steps], canvas)

    def made(self, values: Mapping) -> Made:
        """What the builder makes of these knob values, before the layout pass: for figures.animation, which lays
        several steps out alike."""
        return self.builder(**{**self.defaults, **values})

    def knob(self, name: str) -> Knob:
        return next(k for k in self.knobs if k.name == name)

    @property
    def defaults(self) -> dict:
        return {k.name: k.default for k in self.knobs}

    def title(self, lang: str) -> str:
        return t(self.title_key, lang, **self.title_fields())

    def read(self, params: Params, lang: str = "en") -> tuple[dict, list[Note]]:
        """Every knob's value from URL-like params (absent ones at their defaults)."""
        values, notes = {}, []
        for k in self.knobs:
            values[k.name], n = k.read(params, lang)
            notes += n
        return values, notes

    def from_link(self, params: Params, lang: str, build: Callable[[dict], Built] | None = None
                  ) -> tuple[Built, dict, list[Note]]:
        """A link's figure: values read through the knobs and built (`build(values)`, by default `self.build` at
        NATIVE; a page passes its cached build for its column); where they do not go together (Incompatible),
        the defaults with a note. Any other error is a builder's bug, and raises."""
        build = build or (lambda values: self.build(values, NATIVE))
        values, notes = self.read(params, lang)
        try:
            return build(values), values, notes
        except Incompatible as e:
            values = {**self.defaults, "lang": values.get("lang", self.defaults.get("lang"))}
            return build(values), values, [*notes, Note(self.id, str(e), "build")]

    def dump(self, values: dict, lang: str = "en") -> dict:
        """URL params for these values: only what differs from the defaults."""
        out = {}
        for k in self.knobs:
            if k.name in values:
                out |= k.dump(values[k.name], lang)
        return out


def _int(name: str, lo: int, hi: int, url: str, label: str, help: str = "", **kw) -> IntKnob:
    return IntKnob(name, lo, hi, url=url, label=label, help=help, **kw)


# --- knobs of the mechanism figures (ranges bound the largest run a link can ask for) ----

TOKENS = _int("tokens", 2, 10, "T", "sym.T", "ctl.tokens")
TOPK = _int("topk", 1, 12, "k", "sym.k", "ctl.topk")
HEAD = _int("head", 0, MLADims().n_heads - 1, "head", "ctl.head")
MLA = (SEED, TOKENS, _int("kv_lora_rank", 2, 12, "rkv", "sym.rkv", "ctl.rkv"),
       _int("qk_nope_head_dim", 1, 8, "dk", "sym.dk", "ctl.dk"),
       ChoiceKnob("calc", choices=CALC_PRECISIONS, label="ctl.calc", widget="radio",
                  show=lambda v, lang: v.upper()),
       HEAD, LANG)
RATIO = _int("ratio", 1, 8, "m", "sym.mprime", "v4.ctl.m")
STEP = _int("t_", 0, 30, "t", "sym.t", "v4.ctl.t")
QUERY = _int("t_", 0, 30, "tq", "v4.ctl.query")
V4_WINDOW = _int("window", 1, 8, "win", "v4.ctl.window")
V4_TOPK = _int("topk", 1, 8, "k", "sym.k", "v4.ctl.k")
CSA2_RATIO = _int("ratio", 1, 8, "m", "sym.m", "v41.ctl.m")
B_WINDOW = _int("window", 1, 6, "w", "tb.window")
B_GROUP = _int("group", 1, 4, "g3", "tb.group")
GROUP_PART = {key: _int(key, 1, 8, key, f"tb.{key}") for key in ("g1", "g2")}
BAR_KNOBS = (CONTEXT, PRECISION, LANG, UNITS)
ALL_MODELS = (*MODELS, *OPEN_MODELS)  # the article's and the open presets (imported ones join per session)


def _gpu_name(gpu: str, lang: str) -> str:
    return GPUS[gpu].name if gpu in GPUS else t("gpu.custom", lang)


GPU_KNOBS = (
    ChoiceKnob("gpu", choices=(*GPUS, "custom"), label="gpu.gpu", widget="select", show=_gpu_name),
    FloatKnob("memory_gb", 1.0, 4000.0, 1.0, label="gpu.memory", widget="number"),
    FloatKnob("bandwidth_tb", 0.1, 100.0, 0.1, label="gpu.bandwidth", widget="number"),
    ChoiceKnob("tp", choices=(1, 2, 4, 8, 16), label="gpu.tp", help="gpu.tp.help", widget="select_slider"),
)


def _spec(fid, builder, title_key, *knobs, title_fields=dict, play: Play | None = None) -> FigureSpec:
    return FigureSpec(fid, builder, title_key, tuple(knobs), title_fields, play)


def _generation(fid: str, model_id: str) -> FigureSpec:
    return _spec(fid, generation_chart(model_id), "a.gen", *BAR_KNOBS,
                 title_fields=lambda: {"m": MODELS[model_id].name})


def _csa2_models() -> tuple[str, ...]:
    return tuple(m for m, spec in MODELS.items() if any(ly.kind == "CSA2" for ly in spec.layers))


def _a24_title() -> dict:
    spec = MODELS[build_a24.__kwdefaults__["model"]]
    return {"m": spec.name, "n": spec.n_layers}


_SPECS = (
    _spec("A1", build_a1, "a1.title", *BAR_KNOBS, models(ALL_MODELS, imports=True),
          models(ALL_MODELS, multi=False, nullable=True, url="hl", label="ov.highlight", name="highlight")),
    _generation("A2", "v2"),
    _spec("A3", build_a3, "a3.title", LANG),
    _spec("A4", build_a4, "a4.title", LANG),
    _spec("A5", build_a5, "a5.title", *MLA),
    _spec("A6", build_a6, "a6.title", *MLA),
    _generation("A7", "v3.2"),
    _spec("A8", build_a8, "a8.title", LANG),
    _spec("A9", build_a9, "a9.title", TOKENS, TOPK, SEED, LANG),
    _spec("A10", build_a10, "a10.title", TOKENS, TOPK, SEED, HEAD, LANG),
    _generation("A11", "v4-flash"),
    _spec("A12", build_a12, "a12.title", LANG),
    _spec("A13", build_a13, "a13.title", RATIO, SEED, LANG,
          title_fields=lambda: {"m": build_a13.__kwdefaults__["ratio"]}),
    _spec("A14", build_a14, "a14.title", STEP, RATIO, V4_WINDOW, LANG, play=Play("t_", 0, 15)),
    _spec("A15", build_a15, "a15.title", FloatKnob("sink", -4.0, 4.0, 0.5, label="v4.ctl.sink"),
          STEP, SEED, LANG),
    _spec("A16", build_a16, "a16.title", LANG),
    _spec("A17", build_a17, "a17.title", RATIO, SEED, LANG),
    _spec("A18", build_a18, "a18.title", QUERY, RATIO, V4_TOPK, SEED, LANG),
    _spec("A19", build_a19, "a19.title", QUERY, RATIO, V4_TOPK, V4_WINDOW, SEED, LANG, play=Play("t_")),
    _generation("A20", "v4.1-flash"),
    _spec("A21", build_a21, "a21.title", CSA2_RATIO, SEED, LANG),
    _spec("A22", build_a22, "a22.title", LANG),
    _spec("A23", build_a23, "a23.title", LANG),
    _spec("A24", build_a24, "a24.title", models(_csa2_models(), multi=False, url="model", name="model"), LANG,
          title_fields=_a24_title),
    _spec("A25", build_a25, "a25.title", _int("tokens", 8, 40, "T", "v41.ctl.tokens"),
          _int("block", 1, 16, "block", "v41.ctl.block"), _int("pool_blocks", 1, 5, "pool", "v41.ctl.pool"),
          _int("topk", 1, 12, "k", "sym.k", "v41.ctl.k"), _int("seed", 0, 9999, "hseed", "ctl.seed", widget="number"),
          LANG, play=Play("tokens")),  # the query is the last token: a frame per query position
    _spec("A26", build_a26, "a26.title", LANG),
    _spec("A27", build_a27, "a27.title", _int("prompt", 1, 16, "prompt", "v41.ctl.prompt"),
          _int("window", 1, 8, "win", "v4.ctl.window"), _int("encoder_layers", 1, 8, "enc", "v41.ctl.enc"),
          _int("decoder_layers", 1, 8, "dec", "v41.ctl.dec"), LANG, play=Play("prompt")),
    _spec("B1", build_b1, "b1.title", _int("rows", 2, 16, "rows", "tb.rows"),
          _int("components", 2, 8, "comp", "tb.components", step=2), _int("group", 1, 4, "g", "tb.group"), LANG),
    _spec("B2", build_b2, "b2.title", *(MatrixKnob(name, url=url, label=f"tb.{url}", widget="text")
                                        for name, url in (("H", "H"), ("W_u", "Wu"), ("W_s", "Ws"))), LANG),
    _spec("B3", build_b3, "b3.title", _int("position", 0, 24, "p", "tb.position"), B_GROUP, B_WINDOW, LANG,
          play=Play("position")),
    _spec("B4", build_b4, "b4.title", _int("position", 1, 32, "p4", "tb.position"),
          TupleKnob("groups", parts=tuple(GROUP_PART.values()), label="tb.group"),
          _int("topk", 1, 8, "k", "tb.k"), B_WINDOW, LANG),
    # charts the article describes in text but does not number
    _spec("crossover", build_crossover, "x.title",
          models(tuple(m for m in MODELS if local_kv(m)), imports=True), PRECISION,
          IntKnob("context", 1, 1 << 30, nullable=True, url="ctx", label="app.context"), LANG, UNITS),
    _spec("mla-cost", build_mla_cost, "cost.title", LANG,
          _int("max_tokens", 16, 1 << 24, "max", "cost.x")),
    _spec("rope", build_rope, "rope.title", SEED, TOKENS, LANG),
    _spec("ced-ratio", build_ced_ratio, "ced.title", LANG, _int("max_prompt", 2, 1 << 30, "max", "ced.x")),
    _spec("factors", build_factors, "fx.title", LANG, models(tuple(MODELS), imports=True)),
    _spec("capacity", build_capacity, "cap.name", models(ALL_MODELS, imports=True), CONTEXT, PRECISION, *GPU_KNOBS,
          ChoiceKnob("bytes_per_parameter", choices=BYTES_PER_PARAMETER, label="cap.weights", widget="radio",
                     show=lambda b, lang: t(f"cap.weights.{b:g}", lang)),
          FloatKnob("reserved", 0.0, 0.9, 0.05, label="cap.reserved", help="cap.reserved.help"),
          ChoiceKnob("block", choices=BLOCK_TOKENS, label="cap.block", help="cap.block.help",
                     widget="select_slider"),
          ChoiceKnob("parallel", choices=PLANNER_MODES, label="cap.parallel", help="cap.parallel.help",
                     widget="radio", show=lambda mode, lang: t(f"cap.mode.{mode}", lang)),
          ChoiceKnob("engine", choices=ENGINES, label="cap.engine", help="cap.engine.help", widget="radio",
                     show=lambda engine, lang: t(f"eng.{engine}", lang)),
          ChoiceKnob("spec", choices=(0, 1, 2, 3), label="cap.spec", help="cap.spec.help", widget="select_slider"),
          ChoiceKnob("ask", choices=ASKS, label="cap.ask", widget="radio",
                     show=lambda a, lang: t(f"cap.ask.{a}", lang)),
          _int("requests", *REQUESTS, "requests", "cap.requests"), LANG, UNITS),
    _spec("read-floor", build_read_floor, "floor.title", models(ALL_MODELS, imports=True), PRECISION, *GPU_KNOBS,
          _int("batch", 1, 1000, "batch", "floor.batch"), LANG),
    _spec("budget", build_budget, "bud.name",
          models(BUDGET_MODELS, multi=False, url="model", label="bud.model", name="model"),
          *(k for k in GPU_KNOBS if k.name != "bandwidth_tb"),
          ChoiceKnob("parallel", choices=PARALLEL_MODES, label="cap.parallel", help="cap.parallel.help", widget="radio",
                     show=lambda mode, lang: t(f"cap.mode.{mode}", lang)),
          ChoiceKnob("bytes_per_parameter", choices=BYTES_PER_PARAMETER, label="cap.weights", widget="radio",
                     show=lambda b, lang: t(f"cap.weights.{b:g}", lang)),
          FloatKnob("reserved", 0.0, 0.9, 0.05, label="cap.reserved", help="cap.reserved.help"), LANG, UNITS),
    _spec("reconciliation", build_reconciliation, "rec.title",
          ChoiceKnob("variants", choices=tuple(VARIANTS), multi=True, label="rec.variants", url="var",
                     widget="multiselect", show=variant_name), CONTEXT, LANG, UNITS),
)

FIGURES: dict[str, FigureSpec] = {s.id: s for s in _SPECS if s.id[0] in "AB" and s.id[1:].isdigit()}
EXTRAS: dict[str, FigureSpec] = {s.id: s for s in _SPECS if s.id not in FIGURES}
SPECS: dict[str, FigureSpec] = {s.id: s for s in _SPECS}
PLAYS: dict[str, FigureSpec] = {s.id: s for s in _SPECS if s.play}  # the figures with a play control


def ordered_ids() -> list[str]:
    """Figure ids in article order: A1 … A27, then B1 … B4."""
    return sorted(FIGURES, key=lambda f: (f[0], int(f[1:])))
