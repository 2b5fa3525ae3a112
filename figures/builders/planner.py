"""Beyond the article: how many requests fit on a GPU node at a context length, and the least
time a decode step can spend reading the cache. Both from core.capacity on core.cost, as models
(figures/charts/capacity.py, read_floor.py) the layout pass places for the canvas and draws."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from core import (
    DEPLOYED,
    ENGINES,
    GPU,
    PARALLEL_MODES,
    EngineError,
    Parallel,
    Precision,
    Refused,
    custom_gpu,
    fitted,
    fmt_bytes,
    fmt_tokens,
    get,
    get_gpu,
    kv_heads,
    longest_context,
    model_weights,
    one_of,
    plan,
    published_config,
    read_floor_seconds,
    refusal,
    serve,
    sglang_context_length,
    splittable,
    widest_dcp,
)
from i18n import model_name, t

from ..charts.capacity import CapacityChart, CapacityRow
from ..charts.read_floor import FloorLine, ReadFloorChart
from ..made import Incompatible

PLANNER_MODELS = ("v3.2", "v4-flash", "v4.1-flash", "llama-3.1-8b", "qwen3-32b", "gemma-3-4b", "gpt-oss-120b",
                  "kimi-k2")
BYTES_PER_PARAMETER = (2.0, 1.0, 0.5)  # BF16, FP8, FP4 weights
RECORD_KEYS = ("model", "context", "gpu", "parallel", "tp", "pp", "dp", "dcp", "engine", "spec", "block",
               "weights_per_gpu_bytes", "kv_budget_per_gpu_bytes", "per_request_bytes", "per_request_per_gpu_bytes",
               "requests_by_memory", "cap", "max_requests", "assumptions", "longest_context", "requests")
ASKS = ("requests", "context")  # the question: requests at a context, or the longest context for N requests
PLANNER_MODES = (*PARALLEL_MODES, "dcp")  # core.parallel's spreads, and TP with decode context parallelism
REQUESTS = (1, 1 << 12)  # the requests knob's range, for the question asked the other way round


def gpu_of(gpu: str, memory_gb: float, bandwidth_tb: float) -> GPU:
    """A preset, or the reader's own memory and bandwidth when `gpu` is "custom"."""
    return custom_gpu(memory_gb, bandwidth_tb) if gpu == "custom" else get_gpu(gpu)


def _name(model, lang: str) -> str:
    m = get(model)  # an id, or an imported model's Model
    return model_name(m.id, m.name, lang)


def build_capacity(*, models: Sequence[str] = PLANNER_MODELS, context: int = 131072,
                   precision: Precision = DEPLOYED, gpu: str = "h200", memory_gb: float = 141.0,
                   bandwidth_tb: float = 4.8, bytes_per_parameter: float = 1.0, reserved: float = 0.1,
                   block: int = 16, tp: int = 8, parallel: str = "tp", engine: str = "theory", spec: int = 0,
                   ask: str = "requests", requests: int = 64, lang: str = "ko",
                   units: str = "decimal") -> CapacityChart:
    """Concurrent requests at `context` on a node of tp GPUs spread one way (PLANNER_MODES), per model, as
    `engine` runs it (core.serving: the theory's flat reserve, or the engine's own memory budget, caps and
    set-asides; `spec` speculative tokens in an engine), or with `ask` "context" the longest context at which
    `requests` requests fit. A row says why where its count is 0, what caps it, each assumption that moves it
    more than 10 %, another spread or rule that changes it more than 2×, and weights left out."""
    if not models:
        raise Incompatible("need at least one model")
    one_of("ask", ask, ASKS)
    g = gpu_of(gpu, memory_gb, bandwidth_tb)
    run = _Runner(context, precision, g, bytes_per_parameter, reserved, block, tp, spec, lang, units)
    rows = []
    for m in models:
        if ask == "context":
            rows.append(run.longest(m, parallel, engine, requests))
            continue
        # the other assumptions a count rests on: another way of spreading the node, another rule
        others = [(mode, engine) for mode in run.modes(m)] + [(parallel, e) for e in ENGINES if e != engine]
        every = {key: run.served(m, *key) for key in dict.fromkeys([(parallel, engine), *others])}
        p = every[parallel, engine]
        if isinstance(p, str):  # this engine or this way of spreading cannot serve the model: the row says why
            rows.append((CapacityRow(_name(m, lang), 0, p, p), _record(m, None, parallel, engine)))
            continue
        lines = [run.count(p), *run.said(p), *_why(p, every, lang)]
        rows.append((CapacityRow(_name(m, lang), p.requests, "<br>".join(lines), run.hover(p)),
                     _record(m, p, parallel, engine)))
    key = "cap.title.ctx" if ask == "context" else "cap.title"
    title = t(key, lang, tp=tp, g=g.name, n=fmt_tokens(context), r=f"{requests:,}")
    sub = t("cap.sub" if engine == "theory" else "cap.sub.engine", lang, b=bytes_per_parameter, r=f"{reserved:.0%}",
            blk=block, e=t(f"eng.{engine}", lang))
    if spec and engine != "theory":
        sub += " · " + t("cap.spec.on", lang, k=spec)
    note = _mode_note(Parallel.mode("tp" if parallel == "dcp" else parallel, tp), parallel, engine, lang)
    axis = t("cap.x.ctx" if ask == "context" else "cap.x", lang)
    return CapacityChart(title, sub, note, axis, tuple(row for row, _ in rows), tuple(record for _, record in rows))


class _Count(NamedTuple):
    """One (model, spread, rule)'s count as a row shows it, from core.capacity.plan or core.serving.serve."""

    requests: int
    engine: str
    fits: bool
    weights: int  # on one GPU
    reserve: int  # what the rule keeps from one GPU besides the weights and the pool
    pool: int  # one GPU's bytes for requests
    share: int  # one request's bytes on the most loaded GPU
    whole: int | None  # one request's bytes, one whole copy (the theory's); None: the engine's share is said
    source: object  # the Plan or Served
    notes: tuple[str, ...] = ()


class _Runner:
    """One chart's settings, and each (model, spread, rule) it counts."""

    def __init__(self, context, precision, g, bytes_per_parameter, reserved, block, tp, spec, lang, units):
        self.context, self.precision, self.g, self.bpp = context, precision, g, bytes_per_parameter
        self.reserved, self.block, self.tp, self.spec, self.lang, self.units = reserved, block, tp, spec, lang, units

    def modes(self, model: str) -> tuple[str, ...]:
        """The spreads a row compares: decode context parallelism only where a cache has no heads to split."""
        return PLANNER_MODES if kv_heads(model) is None else PARALLEL_MODES

    def served(self, model: str, mode: str, engine: str):
        """The count, or why there is none: a layout the engine refuses (its reason), a model it does not serve,
        more stages than layers. The theory, and a model the engine budget cannot split (no parameter count or no
        config.json), take the planner's flat reserve."""
        lang, par = self.lang, _spread(mode, self.tp, model, engine)
        try:
            if engine != "theory" and splittable(model):
                c = _of_served(serve(model, self.context, self.g, engine, par, self.bpp,
                                     fitted(model, self.precision), spec=self.spec), lang, self.units)
            else:
                refused = refusal(model, par, engine)
                if refused:
                    raise Refused(refused)
                c = _of_plan(self._plan(model, par, engine), lang, flat=engine != "theory")
            if par.dcp > 1:  # how many ranks split a request by token: the engine may accept fewer than the GPUs
                c = c._replace(notes=(t("cap.dcp.width", lang, d=par.dcp, tp=par.tp), *c.notes))
            if get(model).stored_bytes:  # a fetched checkpoint: its own bytes, not the knob's bytes per parameter
                c = c._replace(notes=(t("cap.stored", lang, b=fmt_bytes(get(model).stored_bytes, self.units)),
                                      *c.notes))
            return c
        except Refused as e:
            return t("cap.refused", lang, e=t(f"eng.{engine}", lang), why=e.refusal.reason)
        except EngineError as e:
            return t(f"eng.none.{e.why}", lang, e=t(f"eng.{engine}", lang))
        except ValueError as e:  # a card too small for what the rule sets aside, more stages than layers
            return t("cap.error", lang, why=str(e))

    def _plan(self, model: str, par: Parallel, engine: str):
        m = get(model)
        weights = model_weights(m, self.bpp) if m.parameters else 0
        return plan(model, self.context, self.g, weights, fitted(model, self.precision), reserved=self.reserved,
                    block_tokens=self.block, parallel=par, engine=engine)

    def longest(self, model: str, mode: str, engine: str, requests: int) -> tuple[CapacityRow, dict]:
        """A row of the question asked the other way round: the longest context at which `requests` fit."""
        lang, par, name = self.lang, _spread(mode, self.tp, model, engine), _name(model, self.lang)
        try:
            if engine != "theory" and not splittable(model):
                raise ValueError(t("cap.ctx.nobudget", lang))
            if engine == "theory" and not get(model).parameters:
                raise ValueError(t("cap.noparams.ctx", lang))
            n = longest_context(model, requests, self.g, engine, par, self.bpp, fitted(model, self.precision),
                                spec=self.spec if engine != "theory" else 0,
                                block=self.block if engine == "theory" else None, reserved=self.reserved)
        except Refused as e:
            why = t("cap.refused", lang, e=t(f"eng.{engine}", lang), why=e.refusal.reason)
            return CapacityRow(name, 0, why, why), _record(model, None, mode, engine)
        except EngineError as e:
            why = t(f"eng.none.{e.why}", lang, e=t(f"eng.{engine}", lang))
            return CapacityRow(name, 0, why, why), _record(model, None, mode, engine)
        except ValueError as e:
            return CapacityRow(name, 0, str(e), str(e)), _record(model, None, mode, engine)
        label = t("cap.ctx.row", lang, n=f"{n:,}", r=f"{requests:,}") if n else t("cap.ctx.none", lang,
                                                                                      r=f"{requests:,}")
        limit = sglang_context_length(model) if published_config(model) else None
        if limit and n > limit:  # memory allows more than the model was trained for
            label += "<br>" + t("cap.ctx.limit", lang, n=f"{limit:,}")
        record = _record(model, None, mode, engine) | {"longest_context": n, "requests": requests}
        return CapacityRow(name, n, label, label), record

    def count(self, c: _Count) -> str:
        """The count and what a request takes; where none fits, why."""
        lang, units = self.lang, self.units
        if not c.fits:
            return t("cap.nofit", lang, w=fmt_bytes(c.weights, units), r=fmt_bytes(c.reserve, units))
        if not c.requests:
            return t("cap.zero", lang, left=fmt_bytes(c.pool, units), r=fmt_bytes(c.share, units))
        if c.whole is None:
            return t("cap.row.engine", lang, n=f"{c.requests:,}", b=fmt_bytes(c.share, units))
        return t("cap.row", lang, n=f"{c.requests:,}", b=fmt_bytes(c.whole, units))

    def said(self, c: _Count) -> list[str]:
        return list(c.notes)

    def hover(self, c: _Count) -> str:
        """Where a row's number comes from: weights, the KV budget per GPU, a request's share of it."""
        heads = kv_heads(c.source.model)
        return t("cap.hover", self.lang, w=fmt_bytes(c.weights, self.units), kv=fmt_bytes(c.pool, self.units),
                 r=fmt_bytes(c.share, self.units),
                 split=t("cap.split", self.lang, h=heads) if heads else t("cap.replicated", self.lang))


def _spread(mode: str, gpus: int, model: str | None = None, engine: str = "theory") -> Parallel:
    """A node of `gpus` GPUs spread one way: core.parallel's modes, or "dcp": TP whose ranks also split a
    request's cache by token (decode context parallelism), over as many of them as the engine accepts for the
    model (all of them where it accepts none: the row then says why)."""
    if mode != "dcp":
        return Parallel.mode(mode, gpus)
    return Parallel(tp=gpus, dcp=(widest_dcp(model, engine, gpus) if model else None) or gpus)


def _of_plan(p, lang: str, flat: bool) -> _Count:
    notes = []
    if flat:
        notes.append(t("cap.flat", lang))
    if not p.model.parameters:
        notes.append(t("cap.noparams", lang))
    reserve = p.reserved_per_gpu_bytes + p.engine_reserved_per_gpu_bytes
    return _Count(int(p.max_requests), p.engine, p.fits, p.weights_per_gpu_bytes, reserve,
                  p.kv_budget_per_gpu_bytes, int(p.per_request_per_gpu_bytes), int(p.per_request_bytes), p,
                  tuple(notes))


def _of_served(s, lang: str, units: str) -> _Count:
    """An engine's count: what caps it, what comes off its pool, each assumption that moves it more than 10 %."""
    notes = []
    if s.capped:
        notes.append(t(f"cap.capped.{s.engine}", lang, n=f"{s.cap:,}", m=f"{s.by_memory:,}"))
    if s.draft_weights:
        notes.append(t("cap.draft", lang, w=fmt_bytes(s.draft_weights, units), k=s.spec))
    if s.admission:
        notes.append(t("cap.admission", lang, b=fmt_bytes(s.admission, units)))
    for a in s.assumptions:
        notes.append(t("cap.assumed", lang, what=t(f"cap.part.{a.part}", lang), b=fmt_bytes(a.nbytes, units),
                       n=f"{a.without:,}"))
    b = s.budget
    return _Count(s.requests, s.engine, b.fits, b.weights, b.total - b.weights - b.pool - max(b.left, 0), s.pool,
                  s.share, None, s, tuple(notes))


def _why(c: _Count, every: dict, lang: str) -> list[str]:
    """What the row's count rests on: another way of spreading the node, or another rule, that changes it more than
    2×."""
    lines = []
    for (mode, engine), other in every.items():
        if isinstance(other, str) or other is c:
            continue
        n, base = other.requests, c.requests
        if n > 2 * base or 2 * n < base:
            if engine == c.engine:
                lines.append(t("cap.other", lang, mode=t(f"cap.mode.{mode}", lang), n=f"{n:,}"))
            else:
                lines.append(t("cap.other.theory", lang, n=f"{n:,}") if engine == "theory" else
                             t("cap.other.engine", lang, mode=t(f"eng.{engine}", lang), n=f"{n:,}"))
    return lines


def _mode_note(par: Parallel, mode: str, engine: str, lang: str) -> str:
    """How the node is spread, and by which allocation: the subtitle's last line (the layout breaks it)."""
    how = f"cap.how.{mode}.vllm" if mode == "dp" and engine == "vllm" else f"cap.how.{mode}"
    return t(how, lang, mode=par.name) + " · " + t(f"cap.engine.{engine}", lang)


def _floor_us(model: str, n, precision: Precision, g: GPU, batch: int, tp: int):
    return read_floor_seconds(model, n, fitted(model, precision), g.bandwidth_bytes_per_s, batch, tp) * 1e6


def _record(model: str, c: _Count | None, mode: str, engine: str) -> dict:
    """A row's numbers for the CSV and JSON downloads (None where the rule or the spread cannot serve it)."""
    if c is None:
        return dict.fromkeys(RECORD_KEYS) | {"model": get(model).id, "engine": engine, "parallel": mode}
    src, par = c.source, c.source.parallel
    said = [f"{a.part}: {a.without}" for a in getattr(src, "assumptions", ())]
    return dict.fromkeys(RECORD_KEYS) | {
        "model": get(model).id, "context": int(src.context), "gpu": src.gpu.name, "parallel": par.name, "tp": par.tp,
        "pp": par.pp, "dp": par.dp, "dcp": par.dcp, "engine": c.engine, "spec": getattr(src, "spec", 0),
        "block": getattr(src, "block_tokens", None), "weights_per_gpu_bytes": c.weights,
        "kv_budget_per_gpu_bytes": c.pool, "per_request_bytes": c.whole, "per_request_per_gpu_bytes": c.share,
        "requests_by_memory": getattr(src, "by_memory", c.requests), "cap": getattr(src, "cap", None),
        "max_requests": c.requests, "assumptions": "; ".join(said) or None}


def build_read_floor(*, models: Sequence[str] = PLANNER_MODELS, precision: Precision = DEPLOYED,
                     gpu: str = "h200", memory_gb: float = 141.0, bandwidth_tb: float = 4.8, batch: int = 1,
                     tp: int = 8, lang: str = "ko") -> ReadFloorChart:
    """The least time a decode step can spend reading the cache (KV + index key, and a hybrid's
    states) over HBM bandwidth, against context: a lower bound, not a speed prediction."""
    if not models:
        raise Incompatible("need at least one model")
    g = gpu_of(gpu, memory_gb, bandwidth_tb)
    n = np.unique(np.geomspace(1 << 10, 1 << 20, 41).astype(np.int64))
    floors = {m: _floor_us(m, n, precision, g, batch, tp) for m in models}
    records = tuple({"model": get(m).id, "context": int(x), "floor_us": float(y)}
                    for m in models for x, y in zip(n, floors[m]))
    what = t("floor.what.state" if any(get(m).state for m in models) else "floor.what", lang)
    sub = t("floor.sub", lang, g=g.name, tp=tp, bw=f"{g.bandwidth_bytes_per_s * tp / 1e12:g}", b=batch, what=what)
    return ReadFloorChart(t("floor.title", lang), sub, t("floor.bound", lang), t("x.axis.x", lang),
                          t("floor.y", lang), n, tuple(FloorLine(_name(m, lang), floors[m]) for m in models), records)
