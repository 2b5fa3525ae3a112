"""`python -m core --context N --precision deployed|bf16 [--engine vllm|sglang] [--tp N --pp N --dp N]
[--gpus-per-node N] [--json]`: the cost model as a tool.
`python -m core --budget --model ID --gpu ID [--tp N --pp N --dp N] [--engine theory|vllm|sglang]
[--bytes-per-parameter 2|1|0.5] [--json]`: one GPU's memory budget (core.budget).
`python -m core --plan --model ID --gpu ID (--context N | --requests N) [--tp N --pp N --dp N --dcp N]
[--spec K] [--engine theory|vllm|sglang] [--bytes-per-parameter 2|1|0.5] [--json]`: how many requests the
node serves at a context, or the longest context at which N requests fit, as each engine runs it
(core.serving).

With `--engine` each row also gives what that engine allocates (core.engines): bytes per token and for one
request at the context, its pools, what each kind of layer holds, and every difference from the theory with
the engine's file and lines. `--tp`, `--pp` and `--dp` say how a request is spread: each row's
per_gpu_bytes_per_sequence is what the most loaded GPU holds of it.

With `--config FILE` it prices one model read from a config.json instead of the article's,
in one row whose id is "custom", `--precision` naming the cache precision of every element
(bf16: 2 bytes, index keys included; fp8: 1 byte; fp8_block: FP8 with an FP32 scale per 128).
A config the importer refuses exits 2 with its one line on stderr and nothing on stdout.

Every argument is checked before anything is priced; a wrong one exits 2 with one line on stderr
naming it, nothing on stdout. Bounds: a context of 1 to 2^30 tokens (core.checks.MAX_CONTEXT, the
app's range), tp, pp, dp and --gpus-per-node whole numbers from 1 to 1,024, and tp × pp × dp at most
1,024 GPUs (core.checks.MAX_GPUS), --block one of 1, 16, 64, 256. A layout the engine refuses for a
model (core.layouts: a TP that does not divide the heads or the KV heads, more ranks than
--gpus-per-node, DP attention a model does not have, more stages than layers) and a --block the engine
refuses or sets itself exit 2 the same way, with the engine's reason and source; nothing is priced.

With `--budget` it splits one GPU's memory for one model (`--model`, an article or open-preset id) on one
GPU (`--gpu`: h100-sxm, h200, b200, mi300x) spread as --tp × --pp × --dp (dp: DP attention ranks, each tp
wide): runtime, weights, activation peak, CUDA graphs, margin, reserve, KV pool, states pool and what is
left, in bytes that sum to the memory the driver reports, under the planner's rule (theory), vLLM 0.34.0
and SGLang 0.5.23 (all three, or the one --engine names). --json prints {"model", "name", "gpu",
"parallel", "budgets": [core.budget.as_json per rule]}. An unknown model or GPU, a model the budget cannot
split (no published parameter count or no config.json for the activation estimate), a layout a rule's
engine refuses, and an option the budget does not read (--context, --precision, --config, --mtp, --block)
exit 2 with one line; nothing on stdout.

With `--plan` it counts, for the same model, GPU and layout (--dcp: decode-context-parallel ranks among the
tp, --spec: speculative tokens drafted by the model's MTP layers), under each rule or the one --engine names:
the requests that fit at --context (by memory, the scheduler's cap, what binds, each assumption that moves
the count more than 10 %), or with --requests N the longest context at which N fit. A layout, DCP width or
speculative decoding the engine refuses for the model is one line with its reason (exit 2).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

from . import budget as B
from . import cost, engines, gpus, hub, layouts, serving
from .capacity import BLOCK_TOKENS, per_gpu_bytes
from .checks import MAX_CONTEXT, MAX_GPUS
from .config_import import import_config
from .config_json import MAX_BYTES, ConfigError
from .formats import OPEN_PRECISIONS
from .models import ARTICLE_CONTEXT, MODELS
from .parallel import ONE_GPU, Parallel
from .registry import get
from .summary import summarise
from .units import exact, fmt_bytes, fmt_exact


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit status 2, no usage dump
        self.exit(2, f"error: {message}\n")


def parse_context(text: str) -> int:
    """'131072', '131,072', '128K' or '1M' (K = 1,024 tokens) -> an int from 1 to MAX_CONTEXT (2^30)."""
    t = text.strip().replace(",", "").replace("_", "").upper()
    mult = {"K": 1 << 10, "M": 1 << 20}.get(t[-1:], 1)
    t = t[:-1] if mult > 1 else t
    if not re.fullmatch(r"[+-]?[0-9]+", t):
        raise argparse.ArgumentTypeError(f"context must be a whole number of tokens, got {_short(text)}")
    digits = t.lstrip("+-").lstrip("0")
    if not digits or t.startswith("-"):
        raise argparse.ArgumentTypeError(f"context must be at least 1 token, got {_short(text)}")
    if len(digits) > 12 or int(digits) * mult > MAX_CONTEXT:  # 12 digits: past the bound, never read whole
        raise argparse.ArgumentTypeError(f"context must be at most {MAX_CONTEXT:,} tokens (2^30, the app's "
                                         f"longest), got {_short(text)}")
    return int(digits) * mult


def _short(text: str) -> str:
    """An argument as a message quotes it: at most 40 characters."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def report(n: int, preset: str, models=tuple(MODELS), engine: str = "theory", parallel: Parallel = ONE_GPU,
           block: int | None = None) -> dict:
    """One row per model (ids or specs) at context n, every role in `preset` (Precision.every); with an engine,
    what it allocates beside the theory; per GPU as `parallel` spreads a request."""
    rows = []
    precision = cost.Precision.every(preset)
    for m in models:
        s = summarise(m, n, precision)
        state = cost.state_bytes(s.model)
        row = _row(s, precision, state)
        try:
            row["per_gpu_bytes_per_sequence"] = per_gpu_bytes(
                s.model, n, cost.fitted(s.model, precision), parallel, engine,
                block or (engines.VLLM_BLOCK if engine == "vllm" else engines.SGLANG_PAGE))
        except ValueError as e:  # an engine that does not serve it, more stages than layers
            row["per_gpu_bytes_per_sequence"] = None
            row["not_priced"] = str(e)
        if engine != "theory":
            row["allocated"] = _allocated(s.model, n, precision, engine, block)
        rows.append(row)
    return {"context": n, "precision": preset, "engine": engine,
            "parallel": {"tp": parallel.tp, "pp": parallel.pp, "dp": parallel.dp}, "models": rows}


def _allocated(m, n: int, precision: cost.Precision, engine: str, block: int | None) -> dict:
    """What the engine allocates for one request at n on one GPU (tp 1), and each difference from the theory."""
    try:
        a = engines.allocation(m, n, cost.fitted(m, precision), engine, block=block)
    except engines.EngineError as e:
        return {"engine": engine, "error": str(e)}
    return {
        "engine": engine, "release": engines.VLLM if engine == "vllm" else engines.SGLANG,
        "bytes_per_token": exact(a.per_token), "bytes_per_sequence": a.charge,
        "fixed_bytes_per_sequence": engines.fixed(m, cost.fitted(m, precision), engine, block=block),
        "pools": {pool: exact(share) for pool, share in a.shares},
        "held": [{"what": h.what, "layers": h.layers, "tokens_per_block": h.tokens, "page_bytes": h.page,
                  "blocks": h.blocks, "bytes": h.nbytes, "pool": h.pool} for h in a.held],
        "differences": [{"rule": r.id, "what": r.what, "source": f"{r.release}: {r.source}"} for r in a.rules],
    }


def _row(s, precision: cost.Precision, state: int) -> dict:
    return {
        "id": s.model.id,
        "name": s.model.name,
        "storage_bytes_per_token": s.storage.total,
        "local_kv_bytes": s.local_kv,
        # held whatever the context (once the windows are full): local KV and linear layers' states
        "fixed_bytes_per_sequence": {"window": s.local_kv, "state": state, "total": s.local_kv + state},
        "cache_bytes_at_context": s.cache.total,
        "read_bytes": {"kv": s.read.kv, "index_key": s.read.index_key, "state": s.read.state,
                       "total": s.read.total},
        "layers": [{"kind": g.kind, "count": len(g.layers), "layers": list(g.layers),
                    "bytes_per_token": g.per_token, "window_bytes": g.window, "state_bytes": g.state,
                    "shares_kv": g.shared} for g in cost.layer_groups(s.model, precision)],
    }


def table(rep: dict) -> str:
    head = ("model", "storage/token", "local KV", "state", "cache at N", "read KV", "read key", "read total",
            "per GPU")
    engine = rep["engine"] if rep["engine"] != "theory" else ""
    if engine:
        head += (f"{engine}/token", f"{engine} at N")
    rows = [head]
    for m in rep["models"]:
        r = m["read_bytes"]
        gpu = m["per_gpu_bytes_per_sequence"]
        row = (m["name"], fmt_exact(m["storage_bytes_per_token"]), fmt_bytes(m["local_kv_bytes"]),
               fmt_bytes(m["fixed_bytes_per_sequence"]["state"]), fmt_bytes(m["cache_bytes_at_context"]),
               fmt_bytes(r["kv"]), fmt_bytes(r["index_key"]), fmt_bytes(r["total"]),
               "—" if gpu is None else fmt_bytes(gpu))
        if engine:
            a = m["allocated"]
            row += ("—", "—") if "error" in a else (fmt_exact(a["bytes_per_token"]), fmt_bytes(a["bytes_per_sequence"]))
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    par = rep["parallel"]
    lines = [f"context {rep['context']:,} tokens · precision {rep['precision']} · {rep['engine']} · "
             f"TP {par['tp']} × PP {par['pp']} × DP attention {par['dp']}"]
    lines += ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths)))
              for row in rows]
    return "\n".join(lines)


def _gpus(text: str) -> int:
    """A count of GPUs: a whole number from 1 to MAX_GPUS."""
    t = text.strip()
    if not re.fullmatch(r"\+?[0-9]{1,12}", t) or not 1 <= int(t) <= MAX_GPUS:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_GPUS:,} (GPUs), got {_short(text)}")
    return int(t)


def _check_gpus(p: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """Exit 2 where tp × pp × dp asks for more than MAX_GPUS GPUs (each alone is checked by _gpus)."""
    if a.tp * a.pp * a.dp > MAX_GPUS:
        p.error(f"arguments --tp, --pp, --dp: {a.tp} × {a.pp} × {a.dp} = {a.tp * a.pp * a.dp:,} GPUs, more than "
                f"the {MAX_GPUS:,} this tool prices")


def _requests(text: str) -> int:
    """A count of requests: a whole number from 1 to core.serving.MAX_REQUESTS."""
    t = text.strip().replace(",", "")
    if not re.fullmatch(r"\+?[0-9]{1,15}", t) or not 1 <= int(t) <= serving.MAX_REQUESTS:
        raise argparse.ArgumentTypeError(f"must be a whole number of requests from 1 to {serving.MAX_REQUESTS:,}, "
                                         f"got {_short(text)}")
    return int(t)


def main(argv=None) -> int:
    p = _Parser(prog="python -m core", description="KV cache storage and decode reads per model.")
    p.add_argument("--context", type=parse_context, default=None,
                   help=f"context length N in tokens (e.g. 131072 or 128K); default {ARTICLE_CONTEXT}")
    p.add_argument("--precision", choices=dict.fromkeys((*cost.PRESETS, *OPEN_PRECISIONS)), default=None,
                   help="deployed cache formats or all-BF16; with --config also fp8 (per-tensor) or fp8_block")
    p.add_argument("--config", type=Path, help="a model's config.json: price it alone, as model 'custom'")
    p.add_argument("--hf", metavar="ORG/NAME[@REV]", help="a model on the Hugging Face Hub by its id (its config.json "
                   "and safetensors headers, through HF_ENDPOINT): price it alone, as --config does")
    p.add_argument("--mtp", action="store_true", help="with --config, count the MTP layers too (they hold KV "
                   "while speculative decoding runs them)")
    p.add_argument("--engine", choices=engines.ENGINES, default=None,
                   help="beside the theory, what vLLM 0.34.0 or SGLang 0.5.23 allocates, each difference named; "
                        "with --budget, the one rule to split the GPU by (default: all three)")
    p.add_argument("--block", type=int, choices=BLOCK_TOKENS,
                   help="the engine's --block-size (vLLM) or --page-size (SGLang); default the engine's own")
    for name, what in (("tp", "tensor-parallel ranks"), ("pp", "pipeline stages"),
                       ("dp", "data-parallel attention ranks")):
        p.add_argument(f"--{name}", type=_gpus, default=1, help=f"{what} (per GPU bytes), 1 to {MAX_GPUS:,}; "
                       "default 1")
    p.add_argument("--gpus-per-node", type=_gpus, metavar="N",
                   help="the layout is for one node of N GPUs: more ranks than that are refused, as the engines "
                        "refuse them; default: ranks may span nodes")
    p.add_argument("--budget", action="store_true",
                   help="one GPU's memory split by part (weights, activations, graphs, KV pool, ...) for --model on "
                        "--gpu under the planner's rule, vLLM and SGLang")
    p.add_argument("--plan", action="store_true",
                   help="the requests --model serves at --context on --gpu × tp × pp × dp (or with --requests N, "
                        "the longest context for N) as each engine runs it")
    p.add_argument("--model", metavar="ID", help="with --budget or --plan: the model (an article or open-preset id, "
                   "e.g. v3.2)")
    p.add_argument("--gpu", metavar="ID", help=f"with --budget or --plan: the GPU ({', '.join(gpus.GPUS)})")
    p.add_argument("--bytes-per-parameter", choices=BYTES_PER_PARAMETER, metavar="B",
                   help=f"with --budget or --plan: the weights' bytes per parameter "
                        f"({', '.join(BYTES_PER_PARAMETER)}); default 1")
    p.add_argument("--dcp", type=_gpus, default=1, help="with --plan: decode-context-parallel ranks among the tp; "
                   "default 1")
    p.add_argument("--spec", type=int, choices=range(serving.MAX_SPEC + 1), default=0, metavar="K",
                   help=f"with --plan: speculative tokens the MTP layers draft (0 to {serving.MAX_SPEC}); default 0")
    p.add_argument("--requests", type=_requests, metavar="N", help="with --plan: the longest context at which N "
                   f"requests fit, instead of the requests at --context (1 to {serving.MAX_REQUESTS:,})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    a = p.parse_args(argv)
    if a.budget and a.plan:
        p.error("arguments --budget, --plan: one at a time")
    if a.plan:
        return _plan(p, a)
    for name in ("requests", "dcp", "spec"):
        if getattr(a, name) not in (None, 0, 1) or (name == "requests" and a.requests is not None):
            p.error(f"argument --{name}: only with --plan")
    if a.budget:
        return _budget(p, a)
    for name in ("model", "gpu", "bytes_per_parameter"):
        if getattr(a, name) is not None:
            p.error(f"argument --{name.replace('_', '-')}: only with --budget or --plan")
    a.context = ARTICLE_CONTEXT if a.context is None else a.context
    a.precision = a.precision or "deployed"
    a.engine = a.engine or "theory"
    if a.config is None and a.hf is None and a.precision not in cost.PRESETS:
        p.error(f"argument --precision: {a.precision} prices a --config model; the article's models take "
                f"{' or '.join(cost.PRESETS)}")
    if a.mtp and a.config is None and a.hf is None:
        p.error("argument --mtp: counts the MTP layers of a --config model")
    _check_gpus(p, a)
    if a.config and a.hf:
        p.error("arguments --config, --hf: one model at a time")
    fetched = None
    if a.hf:
        fetched, model, moe = _from_hub(p, a.hf, a.mtp)
        models = (model,)
    elif a.config:
        model, moe = _imported(p, a.config, a.mtp)
        models = (model,)
    else:
        models, moe = tuple(MODELS), None
    parallel = Parallel(a.tp, a.pp, a.dp)
    _refuse(p, models, a, parallel, moe)
    rep = report(a.context, a.precision, models, a.engine, parallel, a.block)
    if fetched:
        rep["hf"] = hub.as_json(fetched)
    print(json.dumps(rep) if a.json else table(rep))
    return 0


BYTES_PER_PARAMETER = ("2", "1", "0.5")  # BF16, FP8, FP4 weights, as the planner's figure offers them
BUDGET_IGNORES = ("context", "precision", "config", "mtp", "block")  # what the memory budget does not read


def _budget(p: argparse.ArgumentParser, a: argparse.Namespace) -> int:
    """--budget: one GPU's memory under each rule asked for (core.budget), as a table or JSON; exit 2 with one
    line for an option it does not read, an unknown or unsplittable model, an unknown GPU, a refused layout."""
    for name in BUDGET_IGNORES:
        if getattr(a, name) not in (None, False):
            p.error(f"argument --{name}: the memory budget does not read it (it splits one GPU's memory, "
                    "whatever the context)")
    model, gpu = _model_and_gpu(p, a, "--budget")
    if not B.splittable(model):
        p.error(f"argument --model: the memory budget cannot split a GPU for {model.name}: {_unsplittable(model)}")
    _check_gpus(p, a)
    parallel, rules = Parallel(a.tp, a.pp, a.dp), (a.engine,) if a.engine else B.ENGINES
    b = float(a.bytes_per_parameter or 1)
    flags = " ".join(f"--{k} {v}" for k, v in (("tp", a.tp), ("pp", a.pp), ("dp", a.dp)) if v != 1)
    for rule in rules:
        if r := layouts.refusal(model, parallel, rule, a.gpus_per_node):
            p.error(f"{flags or 'the layout'}: {model.name}: {r}")
    if a.json:
        print(json.dumps({"model": model.id, "name": model.name, "gpu": gpu.id,
                          "parallel": {"tp": parallel.tp, "pp": parallel.pp, "dp": parallel.dp},
                          "budgets": [B.as_json(model, gpu, rule, parallel, b) for rule in rules]}))
    else:
        print(budget_table(model, gpu, parallel, b, rules))
    return 0


PLAN_IGNORES = ("precision", "config", "mtp", "block")  # the plan prices the preset's deployed cache
ASSUMED = {"reserve": "the flat reserve", "runtime": "a runtime", "graphs": "CUDA graphs",
           "activations": "an activation peak"}  # core.serving.ASSUMED's parts, as a line names them


def _plan(p: argparse.ArgumentParser, a: argparse.Namespace) -> int:
    """--plan: the requests at --context, or the longest context for --requests N, under each rule asked for
    (core.serving), as lines or JSON; exit 2 with one line for what it cannot read or a layout refused."""
    for name in PLAN_IGNORES:
        if getattr(a, name) not in (None, False):
            p.error(f"argument --{name}: the plan prices the model's deployed cache as each engine runs it; "
                    "--{name} is not read".replace("{name}", name))
    if (a.context is None) == (a.requests is None):
        p.error("arguments --context, --requests: --plan needs one of them (requests at a context, or the "
                "longest context for N requests)")
    model, gpu = _model_and_gpu(p, a, "--plan")
    b, rules = float(a.bytes_per_parameter or 1), ((a.engine,) if a.engine else B.ENGINES)
    if not model.parameters or (set(rules) - {"theory"} and not B.splittable(model)):
        p.error(f"argument --model: the plan cannot count {model.name}'s weights and activations: "
                f"{_unsplittable(model)}")
    _check_gpus(p, a)
    if a.tp % a.dcp:
        p.error(f"argument --dcp: {a.dcp} ranks split a request by token among the tp ranks, so it divides "
                f"--tp ({a.tp})")
    parallel = Parallel(a.tp, a.pp, a.dp, a.dcp)
    rows = []
    for rule in rules:
        if r := layouts.refusal(model, parallel, rule, a.gpus_per_node):
            p.error(f"{parallel.name}: {model.name}: {r}")
        spec = a.spec if rule != "theory" else 0  # the theory drafts nothing
        try:
            if a.requests is not None:
                n = serving.longest_context(model, a.requests, gpu, rule, parallel, b, spec=spec)
                rows.append({"engine": rule, "spec": spec, "requests": a.requests, "longest_context": n})
            else:
                rows.append(_served(serving.serve(model, a.context, gpu, rule, parallel, b, spec=spec)))
        except serving.Refused as e:
            p.error(f"{parallel.name}: {model.name}: {e}")
        except engines.EngineError as e:  # a mode the engine does not offer for the model, or a model it lacks
            flag = {"spec": f"--spec {a.spec}", "dcp": f"--dcp {a.dcp}"}.get(e.why, f"--model {model.id}")
            p.error(f"argument {flag}: {engines.VLLM if rule == 'vllm' else engines.SGLANG}: {e}")
    head = {"model": model.id, "name": model.name, "gpu": gpu.id, "context": a.context, "spec": a.spec,
            "parallel": {"tp": parallel.tp, "pp": parallel.pp, "dp": parallel.dp, "dcp": parallel.dcp}}
    if a.json:
        print(json.dumps(head | {"plans": rows}))
        return 0
    what = (f"the longest context for {a.requests:,} requests" if a.requests is not None
            else f"requests at {a.context:,} tokens")
    print(f"{model.name} · {parallel.name} of {gpu.name} · {what}" + (f" · {a.spec} speculative tokens (the "
                                                                        "engines')" if a.spec else ""))
    for r in rows:
        print(f"  {RULE_NAMES[r['engine']]}: " + _plan_line(r))
    return 0


def _served(s: serving.Served) -> dict:
    """A count as --plan's JSON gives it: bytes on one GPU, the count and what binds it, the assumptions said."""
    return {"engine": s.engine, "spec": s.spec, "requests": s.requests, "requests_by_memory": s.by_memory, "cap": s.cap,
            "cap_source": s.cap_source or None, "pool_bytes": s.pool, "budget_pool_bytes": s.budget.pool,
            "draft_weights_bytes": s.draft_weights, "set_aside_bytes": s.set_aside, "admission_bytes": s.admission,
            "per_request_per_gpu_bytes": s.share,
            "assumptions": [{"part": x.part, "bytes": x.nbytes, "requests_without": x.without}
                            for x in s.assumptions]}


def _plan_line(r: dict) -> str:
    if "longest_context" in r:
        n = r["longest_context"]
        return f"{n:,} tokens" if n else "none: they do not fit even at one token (or pass the scheduler's cap)"
    line = (f"{r['requests']:,} requests ({r['pool_bytes']:,} B a GPU for requests, "
            f"{r['per_request_per_gpu_bytes']:,} B a request on each)")
    if r["cap"] is not None and r["cap"] < r["requests_by_memory"]:
        line += f"; capped by the scheduler at {r['cap']:,} (memory holds {r['requests_by_memory']:,})"
    for x in r["assumptions"]:
        line += f"; assumes {ASSUMED[x['part']]} of {x['bytes']:,} B, without it {x['requests_without']:,}"
    return line


def _model_and_gpu(p: argparse.ArgumentParser, a: argparse.Namespace, mode: str):
    """--model and --gpu, each one line and exit 2 when missing or unknown."""
    for name in ("model", "gpu"):
        if getattr(a, name) is None:
            p.error(f"argument --{name}: {mode} needs one")
    try:
        model = get(a.model)
    except ValueError as e:
        p.error(f"argument --model: {e}")
    try:
        gpu = gpus.get_gpu(a.gpu.strip().lower())
    except ValueError as e:
        p.error(f"argument --gpu: {e}")
    return model, gpu


def _unsplittable(model) -> str:
    return ("no published parameter count to place its weights" if not model.parameters
            else "no config.json is kept for it, and vLLM's activation estimate needs its widths")


RULE_NAMES = {"theory": "theory (planner)", "vllm": engines.VLLM.split(" (")[0],
              "sglang": engines.SGLANG.split(" (")[0]}


def budget_table(model, gpu, parallel: Parallel, bytes_per_parameter: float, rules=B.ENGINES) -> str:
    """The budget as a table: a row per part, a column per rule, exact bytes (the parts of a column sum to the
    total), the pool, and whether the weights leave one."""
    budgets = [B.gpu_budget(model, gpu, rule, parallel, bytes_per_parameter) for rule in rules]
    memory = (f"the driver reports {gpu.reported_mib:,} MiB = {gpu.reported_bytes:,} B" if gpu.reported_mib
              else f"{gpu.reported_bytes:,} B")
    lines = [f"{model.name} · one {gpu.name} · {parallel.name} · weights {bytes_per_parameter:g} B per parameter "
             f"· {memory} (data sheet {gpu.memory_bytes:,} B)"]
    rows = [("part", *(RULE_NAMES[r] for r in rules))]
    rows += [(part, *(f"{getattr(b, part):,}" if getattr(b, part) else "—" for b in budgets))
             for part in B.BUDGET_PARTS]
    rows += [("total", *(f"{b.total:,}" for b in budgets)), ("pool (kv + states)", *(f"{b.pool:,}" for b in budgets)),
             ("", *(fmt_bytes(b.pool) if b.fits else f"short by {fmt_bytes(b.short)}" for b in budgets))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines += ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
              for row in rows]
    lines.append(f"bytes; assumed: runtime {B.RUNTIME_BYTES:,} B (vLLM, SGLang), vLLM's CUDA graphs "
                 f"{B.VLLM_GRAPHS_BYTES:,} B; vLLM's activation peak estimated; the rest each engine's rule "
                 "(--json gives each part's source)")
    return "\n".join(lines)


def _refuse(p: argparse.ArgumentParser, models, a: argparse.Namespace, parallel: Parallel, moe: bool | None):
    """Exit 2 with one line when the engine refuses the layout or the --block for a model (core.layouts): the
    first model refused, its engine's reason and source, and how many more are."""
    flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in (("tp", a.tp), ("pp", a.pp), ("dp", a.dp),
                                                                  ("gpus_per_node", a.gpus_per_node))
                     if v not in (None, 1))
    checks = [(flags or "the layout", lambda m: layouts.refusal(m, parallel, a.engine, a.gpus_per_node, moe=moe))]
    if a.block is not None:
        checks.append((f"argument --block {a.block}", lambda m: layouts.block_refusal(m, a.engine, a.block)))
    if a.config:  # the reasons name the file, not "custom"
        models = tuple(replace(m, name=a.config.name) for m in models)
    models = tuple(get(m) for m in models)
    for what, check in checks:
        refused = [(m, r) for m in models if (r := check(m))]
        if refused:
            (m, r), more = refused[0], len(refused) - 1
            others = f" (and {more} more model{'s' * (more > 1)})" if more else ""
            p.error(f"{what}: {m.name}{others}: {r}")


def _from_hub(p: argparse.ArgumentParser, text: str, mtp: bool):
    """A model id's fetch, its spec and whether it has routed experts, or exit 2 with the Hub's one line."""
    try:
        found = hub.fetch(text)
        return found, hub.import_fetched(found, mtp=mtp).model, layouts.experts(found.config) > 0
    except hub.HubError as e:
        p.error(f"argument --hf: {e}")
    except ConfigError as e:
        p.error(f"argument --hf: {text}: {e}")


def _imported(p: argparse.ArgumentParser, path: Path, mtp: bool):
    """The spec of a config file and whether it has routed experts (core.layouts.experts), or exit 2 with one
    line saying what is wrong with it."""
    try:
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)  # one byte more tells an oversized file without reading it all
        model = import_config(data, mtp=mtp).model
    except OSError as e:
        p.error(f"argument --config: cannot read {str(path)!r}: {e.strerror or e}")
    except ConfigError as e:
        p.error(f"{path.name}: {e}")
    try:
        config = json.loads(data)
    except ValueError:
        return model, None
    return model, layouts.experts(config) > 0 if isinstance(config, dict) else None


if __name__ == "__main__":
    sys.exit(main())
