"""The GPU plan as an engine runs it: how many requests one node serves at a context, and the longest
context at which N requests still fit, with each engine's memory budget, caps and modes.

`core.capacity.plan` is the planner's own rule (the data sheet's memory less a flat reserve); here the
budget is what `core.budget` splits for the rule asked (the theory's flat reserve, vLLM 0.34.0's or
SGLang 0.5.23's), from the memory the card's driver reports. On top of it, per GPU:

- **What a request holds**: `core.engines.allocation` on one rank (tp, decode context parallelism `dcp`,
  speculative tokens `spec`); for the theory `core.capacity.per_gpu_bytes`, MLA's latent sharded by
  ⌈N/dcp⌉ tokens under DCP (index keys, windows and states stay whole) and no draft.
- **What comes off the pool before any request**: the engine's set-aside (SGLang's ratio-128
  compress-state rings for V4, `Allocation.reserved`), the draft (MTP) layers' weights when `spec` > 0
  (`core.engines.draft_parameters`), and the sliding layers' admission reserve for one prefill chunk
  (`Allocation.admission`, the chunk the engine's budget assumes: vLLM's max_num_batched_tokens,
  SGLang's chunked_prefill_size). Under pipeline parallelism each is its stage's layers', the most loaded
  stage's taken (`core.parallel.stages`, as `core.capacity.engine_reserved_bytes`).
- **Caps** (`core.engines.request_cap`): the most requests each scheduler runs at once, whatever the
  memory: vLLM's max_num_seqs, SGLang's max_running_requests. Each DP attention rank schedules its own.
- **Assumptions said**: a part of the budget no engine computes (the runtime, vLLM's CUDA graphs and
  activation estimate, the theory's flat reserve) is named on a count it moves by more than 10 %
  (`Served.assumptions`: the count without it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import NamedTuple

from . import budget as B
from . import capacity, cost, engines, layouts
from .checks import MAX_CONTEXT, int_between, one_of
from .gpus import GPU, get_gpu
from .models import Model
from .parallel import ENGINES, ONE_GPU, Parallel, stages
from .registry import get

MAX_SPEC = 8  # the most speculative tokens a plan drafts (the CLI's --spec bound too)
MAX_REQUESTS = 1 << 40  # the most requests the question asked the other way round takes
MOVES = 0.1  # an assumption is said where leaving it out moves the count by more than this fraction
# the parts of each rule's budget that are assumed, not read from the engine (core.budget's stated assumptions)
ASSUMED = {"theory": ("reserve",), "vllm": ("runtime", "graphs", "activations"), "sglang": ("runtime",)}


class Refused(ValueError):
    """The engine refuses the layout (core.layouts.Refusal): nothing is priced."""

    def __init__(self, refusal: layouts.Refusal):
        super().__init__(str(refusal))
        self.refusal = refusal


class Assumption(NamedTuple):
    """A part of the budget the count rests on that no engine computes: its bytes on one GPU, and the
    requests that would fit without it."""

    part: str
    nbytes: int
    without: int


@dataclass(frozen=True, kw_only=True)
class Served:
    """One node serving one model at one context under one rule: per GPU bytes, the count and what binds it."""

    model: Model
    gpu: GPU
    engine: str
    parallel: Parallel
    context: int
    spec: int
    budget: B.Budget  # one GPU's memory under the rule
    draft_weights: int  # the draft (MTP) layers' weights on one GPU
    set_aside: int  # what the engine keeps from the pool before any request
    admission: int  # the sliding layers' reserve for one request's prefill chunk
    share: int  # what one request holds on the most loaded GPU
    by_memory: int  # requests the memory holds on the node
    cap: int | None  # requests the schedulers run at once on the node (None: no cap)
    cap_source: str
    assumptions: tuple[Assumption, ...] = ()

    @property
    def pool(self) -> int:
        """Bytes of one GPU left for requests: the rule's pool less what comes off it first."""
        return max(self._room, 0)

    @property
    def _room(self) -> int:
        """The pool less what comes off it, negative by what is missing where the weights do not fit."""
        return self.budget.pool - self.budget.short - self.draft_weights - self.set_aside - self.admission

    @property
    def requests(self) -> int:
        return self.by_memory if self.cap is None else min(self.by_memory, self.cap)

    @property
    def capped(self) -> bool:
        """The scheduler's cap, not the memory, binds the count."""
        return self.cap is not None and self.cap < self.by_memory


def serve(model: Model | str, context: int, gpu: GPU | str, engine: str = "vllm", parallel: Parallel = ONE_GPU,
          bytes_per_parameter: float = 1.0, precision: cost.Precision = cost.DEPLOYED, *, spec: int = 0,
          block: int | None = None, reserved: float = 0.1) -> Served:
    """How many requests of `context` tokens a node of `gpu`s spread as `parallel` serves under `engine` (the
    module's rules). Raises Refused for a layout the engine refuses, core.engines.EngineError for a model it does
    not serve, ValueError for a model the budget cannot split (no parameter count or config.json). `reserved`:
    the theory's flat reserve; `block`: the theory's block (16 by default), an engine's --block-size."""
    m, g, par, n, spec = _checked(model, gpu, engine, parallel, context, spec)
    fixed = _fixed(m, g, engine, par, bytes_per_parameter, precision, spec, reserved)
    share = _share(m, n, precision, engine, par, spec, block)
    return _served(m, g, engine, par, n, spec, fixed, share)


def longest_context(model: Model | str, requests: int, gpu: GPU | str, engine: str = "vllm",
                    parallel: Parallel = ONE_GPU, bytes_per_parameter: float = 1.0,
                    precision: cost.Precision = cost.DEPLOYED, *, spec: int = 0, block: int | None = None,
                    reserved: float = 0.1) -> int:
    """The longest context (up to core.checks.MAX_CONTEXT) at which `requests` requests fit on the node, or 0
    when they do not fit even at one token (or exceed the schedulers' cap). A request's share never falls as
    its context grows, so the answer is found by bisection."""
    m, g, par, _, spec = _checked(model, gpu, engine, parallel, 1, spec)
    requests = int_between("requests", requests, 1, MAX_REQUESTS)
    fixed = _fixed(m, g, engine, par, bytes_per_parameter, precision, spec, reserved)

    def fits(n: int) -> bool:
        return _served(m, g, engine, par, n, spec, fixed, _share(m, n, precision, engine, par, spec, block)) \
            .requests >= requests

    if not fits(1):
        return 0
    low, high = 1, MAX_CONTEXT
    if fits(high):
        return high
    while high - low > 1:  # fits(low), not fits(high)
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low


def widest_dcp(model: Model | str, engine: str, tp: int) -> int | None:
    """The most decode-context-parallel ranks `engine` accepts for the model over `tp` TP ranks (a divisor of tp
    above 1, core.layouts deciding), or None where it accepts none."""
    tp = int_between("tp", tp, 1, 1 << 10)
    for dcp in sorted((d for d in range(2, tp + 1) if tp % d == 0), reverse=True):
        if layouts.refusal(model, Parallel(tp=tp, dcp=dcp), engine) is None:
            return dcp
    return None


# --- the parts --------------------------------------------------------------------------------------------


class _Fixed(NamedTuple):
    """What does not depend on the context: the budget, what comes off its pool, the cap."""

    budget: B.Budget
    draft_weights: int
    set_aside: int
    admission: int
    cap: int | None
    cap_source: str


def _checked(model, gpu, engine: str, parallel: Parallel, context, spec):
    one_of("engine", engine, ENGINES)
    m, g = get(model), get_gpu(gpu)
    n = int_between("context", context, 1, MAX_CONTEXT)
    spec = int_between("spec", spec, 0, MAX_SPEC)
    refused = layouts.refusal(m, parallel, engine)
    if refused:
        raise Refused(refused)
    if spec and engine == "theory":
        raise ValueError("the theory prices no draft: speculative decoding is an engine's (vllm, sglang)")
    return m, g, parallel, n, spec


def _fixed(m: Model, g: GPU, engine: str, par: Parallel, bytes_per_parameter: float, precision, spec: int,
           reserved: float) -> _Fixed:
    budget = B.gpu_budget(m, g, engine, par, bytes_per_parameter, reserved=reserved)
    if engine == "theory":
        return _Fixed(budget, 0, 0, 0, None, "")
    # per pipeline stage: each stage's GPUs set aside, reserve and pool for their own layers; the most loaded binds
    ones = [engines.allocation(s, 1, precision, engine, tp=par.tp, dcp=par.dcp, spec=spec) for s in _stages(m, par)]
    draft = 0
    if spec:  # the MTP layers' weights, split over the stage's tensor-parallel ranks as the rest is
        draft = -(-capacity.model_weights(m, bytes_per_parameter, engines.draft_parameters(m)) // par.tp)
    chunk = engines.vllm_batch(g)[0] if engine == "vllm" else B.sglang_fraction(m, g, par).chunked_prefill
    set_aside = max(one.reserved(par.dp) for one in ones)
    admission = max(one.admission(chunk) for one in ones)
    room = budget.pool - budget.short - draft - set_aside - admission
    cap, rule = engines.request_cap(m, engine, g, parallel=par, **_pools(ones, budget, room))
    return _Fixed(budget, draft, set_aside, admission, None if cap is None else cap * par.dp,
                  rule.source if rule else "")


def _pools(ones: list[engines.Allocation], budget: B.Budget, room: int) -> dict:
    """What SGLang derives its cap from, on one worker: the tokens its full pool holds (max_total_num_tokens:
    the room over a token's bytes of it) and the slots its states pool holds (its bytes over a slot's), each
    the least over the pipeline stages (`ones`, one allocation a stage): the stage whose pool holds least binds."""
    if ones[0].engine != "sglang" or room <= 0:
        return {}
    pools: dict[str, int] = {}
    for one in ones:
        grown = sum((h.per_token for h in one.held if h.pool == "kv"), start=0)
        full = dict(one.shares).get("kv", 1)
        if grown:
            pools["kv_tokens"] = min(pools.get("kv_tokens", 1 << 62), max(int(room * full / grown), 1))
        slot = sum(h.layers * h.page for h in one.held if h.what == "state")
        if slot:
            pools["state_slots"] = min(pools.get("state_slots", 1 << 62), budget.states // slot)
    return pools


def _share(m: Model, n: int, precision, engine: str, par: Parallel, spec: int, block: int | None) -> int:
    """What one request holds on the most loaded GPU (capacity.per_gpu_bytes; an engine's at its default block)."""
    if engine == "theory":
        return capacity.per_gpu_bytes(m, n, precision, par, "theory", block or 16)
    shares = [engines.allocation(s, n, precision, engine, tp=par.tp, block=block, dcp=par.dcp, spec=spec).charge
              for s in _stages(m, par)]
    return max(shares)


def _stages(m: Model, par: Parallel) -> tuple[Model, ...]:
    return stages(m, par.pp) if par.pp > 1 else (m,)


def _served(m, g, engine, par, n, spec, f: _Fixed, share: int) -> Served:
    s = Served(model=m, gpu=g, engine=engine, parallel=par, context=n, spec=spec, budget=f.budget,
               draft_weights=f.draft_weights, set_aside=f.set_aside, admission=f.admission, share=share,
               by_memory=0, cap=f.cap, cap_source=f.cap_source)
    s = replace(s, by_memory=_count(s.pool, share, par))
    said = []
    for part in ASSUMED[engine]:
        nbytes = getattr(f.budget, part)
        if not nbytes:
            continue
        without = _count(max(s._room + _freed(m, f.budget, part), 0), share, par)
        without = without if s.cap is None else min(without, s.cap)
        if abs(without - s.requests) > MOVES * max(s.requests, 1):
            said.append(Assumption(part, nbytes, without))
    return replace(s, assumptions=tuple(said))


def _freed(m: Model, b: B.Budget, part: str) -> int:
    """Bytes the pool would gain without an assumed part: the part; for vLLM's activation peak the margin it sets
    above the floor (max(floor, 0.75 × peak)) too; for SGLang's runtime only mem_fraction_static f of it (the pool
    is ⌊f × the free memory⌋ less the weights: ⌊f × total⌋ − ⌊f × (total − runtime)⌋)."""
    if b.engine == "sglang" and part == "runtime":
        f = B.sglang_fraction(m, b.gpu, b.parallel).fraction
        return math.floor(b.total * f) - math.floor(max(b.total - b.runtime, 0) * f)
    if part != "activations" or not b.margin:
        return getattr(b, part)
    return b.activations + b.margin - B.VLLM_MARGIN_FLOOR[b.gpu.platform]


def _count(pool: int, share: int, par: Parallel) -> int:
    """Requests on the node: each DP attention rank fills its GPUs' pool with its own requests."""
    return pool // share * par.dp if share else 0

