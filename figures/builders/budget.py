"""The memory budget a capacity review puts down: one GPU's memory split into the runtime, weights,
activations, CUDA graphs, margins, the KV pool, a states pool and what is left, under the planner's
rule, vLLM 0.34.0 and SGLang 0.5.23 side by side. Every number from core.budget; the chart is a model
(figures/charts/budget.py) the layout pass places for the canvas and draws."""

from __future__ import annotations

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

from ..charts.budget import BudgetChart, BudgetPart, BudgetRow
from ..made import Incompatible
from .planner import gpu_of

# the models all three rules split: a published parameter count and a config.json for the activation estimate
BUDGET_MODELS = tuple(m for m in (*MODELS, *OPEN_MODELS) if splittable(m))
UNIT = {"decimal": (10**9, "GB"), "binary": (1 << 30, "GiB")}
RECORD_KEYS = ("model", "gpu", "engine", "parallel", "total_bytes", *(f"{p}_bytes" for p in BUDGET_PARTS), "fits",
               "refused")


def build_budget(*, model: str = "v3.2", gpu: str = "h200", memory_gb: float = 141.0, tp: int = 8,
                 parallel: str = "tp", bytes_per_parameter: float = 1.0, reserved: float = 0.1, lang: str = "ko",
                 units: str = "decimal") -> BudgetChart:
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
    unit_bytes, unit = UNIT[units]
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
    shown = [p for p in BUDGET_PARTS if any(b is not None and getattr(b, p) > 0 for _, b in rows)]
    parts = tuple(BudgetPart(part, t(f"bud.part.{part}", lang),
                             tuple(getattr(b, part) / unit_bytes if b is not None else 0 for _, b in rows),
                             tuple(_hover(engine, b, part, lang) for engine, b in rows))
                  for part in shown)
    longest = max([g.reported_bytes, *(sum(max(v, 0) for v in b.parts.values()) for _, b in rows if b)]) / unit_bytes
    note = t("bud.assumed", lang, r=fmt_bytes(RUNTIME_BYTES, units), g=fmt_bytes(VLLM_GRAPHS_BYTES, units),
             t=f"{vllm_batch(g)[0]:,}")
    return BudgetChart(
        t("bud.title", lang, m=model_name(model, get(model).name, lang), g=g.name),
        _subtitle(g, par, bytes_per_parameter, lang, units), note, t("bud.x", lang, u=unit),
        tuple(BudgetRow(tuple(_head(engine, b, lang, units, refused.get(engine))),
                        () if b is None else tuple(_values(b, lang, units))) for engine, b in rows),
        parts, g.reported_bytes / unit_bytes, longest,
        tuple(_record(model, g, engine, par, b, refused.get(engine)) for engine, b in rows))


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
