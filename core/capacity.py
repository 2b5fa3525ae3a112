"""How many requests fit on a GPU node, and the least time a decode step can spend reading its cache.

Every byte comes from `core.cost` (cache_at, local_kv, reads) or `core.engines`; this module rounds
what a request holds to whole blocks, divides the memory and spreads the cache over the GPUs.

Counting rules:

- **Blocks.** Paged KV hands out blocks of `block_tokens` tokens per layer, when a block's first
  token arrives. A layer that stores one entry per m tokens fills a block with ⌈B/m⌉ entries (at
  least one whole entry), so a block spans ⌈B/m⌉·m tokens and a request at context N holds
  ⌈N/span⌉ blocks: room for entries whose m tokens are not all there yet is already taken
  (V4-Flash at B = 64: a CSA block holds 16 entries, an HCA block one entry spanning 128 tokens).
- **Local KV.** Blocks wholly behind the window are freed; W positions can straddle
  ⌈(W−1)/B⌉ + 1 blocks, and a request holds that many at its worst, or ⌈N/B⌉ before its window
  fills (V4-Flash, W = 128, B = 16: 9 blocks, 144 positions).
- With block sizes and ratios that are powers of two (as in every engine), a larger block never
  holds fewer bytes and a longer context never fewer.
- **Tensor parallelism.** tp GPUs share each request: the weights are split evenly. MLA's latent (and
  V4's shared K = V entry, and every index key) has no heads to split, so each rank holds the whole
  cache of every request. GQA/MHA's KV heads are split: each rank holds ⌈heads/tp⌉ of them, so with
  tp > heads each head is replicated on tp/heads ranks.
- **Pipeline stages and DP attention** (`core.parallel`): the most loaded stage's GPU bounds the count;
  a DP attention rank holds its own requests whole, the count × dp, and the weights the engine keeps
  whole on it (`core.parallel.whole_parameters`: the attention's and the mixers' in SGLang and the theory,
  all but the routed experts in vLLM).
- **Engines** (`core.engines`): with engine="vllm" or "sglang" a request is what that engine
  allocates (its pages, layouts and pools) instead of the blocks above, and what the engine sets aside
  before any request (SGLang's ratio-128 compress-state rings for V4) comes off each GPU's budget.
- Not counted here: activations, CUDA graphs and the runtime (the reserved fraction stands for them;
  core.budget and core.serving price each engine's), the theory's compressor states (its not-yet-compressed
  tokens; the engines' are core.engines'), and prefix sharing between requests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from numbers import Real

import numpy as np

from . import cost, engines
from .checks import int_at_least, whole_numbers
from .gpus import GPU, get_gpu
from .models import Model
from .parallel import ONE_GPU, Parallel, stages, whole_parameters
from .registry import get

# Paged-KV block sizes in tokens that serving engines use (vLLM's default, 16 before 0.34 and 64 since;
# SGLang's 64 for DeepSeek's sparse MLA; 256-token pages for V4), and 1: no paging (SGLang's default).
BLOCK_TOKENS = (1, 16, 64, 256)
ENTRY_KINDS = frozenset({"CSA", "HCA", "CSA2"})  # V4's one K = V entry per position: no heads to split


def weights_bytes(parameters: int, bytes_per_parameter: float) -> int:
    """Memory of the weights, parameters × bytes per parameter (BF16 2, FP8 1, FP4 0.5 plus
    whatever its scales add), rounded up to a whole byte."""
    int_at_least("parameters", parameters)
    return math.ceil(parameters * _real("bytes_per_parameter", bytes_per_parameter, above=0))


def model_weights(m: Model, bytes_per_parameter: float, parameters: int | None = None) -> int:
    """Bytes of `parameters` of the model's weights (all of them by default): at the checkpoint's own stored
    bytes per parameter where it has them (`Model.stored_bytes`, quantized formats with their scales counted as
    stored), else at `bytes_per_parameter`."""
    n = m.parameters if parameters is None else parameters
    if m.stored_bytes and m.parameters:
        return -(-n * m.stored_bytes // m.parameters)
    return weights_bytes(n, bytes_per_parameter)


def kv_heads(model: Model | str) -> int | None:
    """KV heads tensor-parallel ranks can split, or None when every rank needs the whole
    entry (MLA's latent C^KV + K^R, V4's K = V entry)."""
    m = get(model)
    if m.dims.kv_lora_rank or any(ly.kind in ENTRY_KINDS for ly in m.layers):
        return None
    return getattr(m.dims, "num_key_value_heads", 0) or m.dims.num_attention_heads


def request_bytes(model: Model | str, context, precision: cost.Precision = cost.DEPLOYED,
                  block_tokens: int = 16) -> cost.Parts:
    """What one request holds at context N, in whole blocks (see the module's rules), by role."""
    m = get(model)
    n = whole_numbers("context length", context, 1)
    b = int_at_least("block_tokens", block_tokens)
    main = key = n * 0
    for ratio, part in _stores_by_ratio(m):
        span = -(-b // ratio) * ratio
        held = cost.cache_at(part, -(-n // span) * span, precision)
        main, key = main + held.main_kv, key + held.index_key
    straddled = -(-(m.window - 1) // b) + 1 if m.window else 0  # most blocks a window can touch
    local = cost.local_kv(m, precision, 1) * np.minimum(-(-n // b), straddled) * b
    state = n * 0 + cost.state_bytes(m)  # one per sequence, in a slot of its own
    return cost.Parts(*(_like(x, context) for x in (main, key, local, state)))


@lru_cache(maxsize=64)
def _stores_by_ratio(m: Model) -> tuple[tuple[int, Model], ...]:
    """The model's storing layers grouped by ratio, each group a spec of its own."""
    ratios = sorted({ly.ratio for ly in m.layers if ly.stores_global})
    return tuple((r, replace(m, layers=tuple(ly for ly in m.layers if ly.stores_global and ly.ratio == r)))
                 for r in ratios)


@dataclass(frozen=True, kw_only=True)
class Plan:
    """KV memory of a node (parallel.gpus GPUs) at a context: the budget, what a request holds, how many fit."""

    model: Model = field(repr=False)
    gpu: GPU
    context: object  # int, or an array of contexts
    parallel: Parallel
    block_tokens: int
    weights_bytes: int  # the whole model
    weights_per_gpu_bytes: int  # split over the GPUs; under DP attention what the engine keeps whole on each rank
    reserved_per_gpu_bytes: int  # activations, runtime: the reserved fraction of each GPU
    kv_budget_per_gpu_bytes: int  # what is left for KV on each GPU (0 when the weights do not fit)
    engine: str  # "theory" (core.cost in whole blocks) or an engine of core.engines
    per_request: cost.Parts | None  # the theory's request at context, block-rounded, one whole copy, by role
    per_request_bytes: object  # one request, one whole copy: the theory's total or the engine's charge at tp = 1
    kv_heads: int | None  # KV heads split over the TP ranks; None: every TP rank holds the whole cache
    per_request_per_gpu_bytes: object  # the share of a request the most loaded GPU holds
    max_requests: object  # dp × ⌊budget / share⌋, int or array
    notes: tuple[str, ...]
    whole_weights_bytes: int = 0  # weights each DP attention rank keeps whole (0 without DP attention)
    engine_reserved_per_gpu_bytes: int = 0  # what the engine sets aside before any request, off the KV budget

    @property
    def tp(self) -> int:
        return self.parallel.tp

    @property
    def fits(self) -> bool:
        """The weights and the reserve leave room for some KV."""
        return self.kv_budget_per_gpu_bytes > 0


def plan(model: Model | str, context, gpu: GPU | str, weights: int, precision: cost.Precision = cost.DEPLOYED,
         *, reserved: float = 0.1, block_tokens: int = 16, tp: int = 1, parallel: Parallel | None = None,
         attention_weights: int | None = None, engine: str = "theory") -> Plan:
    """Plan KV memory for `model` at context N on a node of `gpu`s, `weights` bytes of weights in all, spread as
    `parallel` (default: tp GPUs of tensor parallelism), a request's cache as `engine` allocates it
    (`block_tokens` its --block-size or --page-size where its kernels allow). Under DP attention each rank keeps
    whole the weights `engine` keeps whole (whole_weights_bytes); `attention_weights` overrides their bytes."""
    m, g = get(model), get_gpu(gpu)
    par = parallel or Parallel(tp=int_at_least("tp", tp))
    reserve = round(g.memory_bytes * _real("reserved", reserved, at_least=0, below=1))
    weights = math.ceil(_real("weights", weights, at_least=0))
    whole = (whole_weights_bytes(m, weights, engine) if attention_weights is None
             else math.ceil(_real("attention_weights", attention_weights, at_least=0)))
    per_gpu = weights_per_gpu(weights, whole, par)
    held = engine_reserved_bytes(m, precision, par, engine)
    left = g.memory_bytes - reserve - per_gpu - held
    heads = kv_heads(m)
    if engine == "theory":
        per_request = request_bytes(m, context, precision, block_tokens)
        one = per_request.total
    else:
        per_request = None
        one = engines.allocation(m, context, precision, engine, block=block_tokens).charge
    share = per_gpu_bytes(m, context, precision, par, engine, block_tokens)
    budget = max(left, 0)
    notes = [_split_note(heads, par.tp)]
    if held:
        notes.append(f"{engine} sets {held:,} B a GPU aside before any request")
    if left <= 0:
        notes.append(f"the weights ({per_gpu:,} B a GPU) and the reserve ({reserve + held:,} B) leave no room "
                     f"in the {g.memory_bytes:,} B of each GPU (short by {-left:,} B): no request fits")
    return Plan(model=m, gpu=g, context=context, parallel=par, block_tokens=block_tokens, weights_bytes=weights,
                weights_per_gpu_bytes=per_gpu, reserved_per_gpu_bytes=reserve, kv_budget_per_gpu_bytes=budget,
                engine=engine, per_request=per_request, per_request_bytes=_like(one, context), kv_heads=heads,
                per_request_per_gpu_bytes=share, max_requests=_like(budget // share * par.dp, context),
                notes=tuple(notes), whole_weights_bytes=whole if par.dp > 1 else 0,
                engine_reserved_per_gpu_bytes=held)


def weights_per_gpu(weights: int, whole: int, par: Parallel) -> int:
    """Weights on each GPU: all of them split over tp × pp; with DP attention `whole` of them whole on each of
    the dp ranks (split over its tp × pp) and the rest split over every GPU."""
    if whole > weights:
        raise ValueError(f"the weights kept whole ({whole:,} B) exceed the weights ({weights:,} B)")
    if par.dp == 1:
        return -(-weights // (par.tp * par.pp))
    return -(-whole // (par.tp * par.pp)) + -(-(weights - whole) // par.gpus)


def whole_weights_bytes(model: Model | str, weights: int, engine: str = "theory") -> int:
    """Bytes of the weights each DP attention rank keeps whole under `engine` (core.parallel.whole_parameters), at
    the bytes per parameter `weights` has over the model's parameter count; 0 without a count."""
    m = get(model)
    if not m.parameters:
        return 0
    return min(weights, -(-whole_parameters(m, engine) * weights // m.parameters))


def engine_reserved_bytes(model: Model | str, precision: cost.Precision, par: Parallel, engine: str) -> int:
    """Bytes `engine` sets aside from each GPU before any request (core.engines.Allocation.reserved), for the
    pipeline stage that sets aside the most; 0 for the theory."""
    if engine == "theory":
        return 0
    m = get(model)
    parts = stages(m, par.pp) if par.pp > 1 else (m,)
    return max(engines.allocation(s, 1, precision, engine).reserved(par.dp) for s in parts)


def per_gpu_bytes(model: Model | str, context, precision: cost.Precision = cost.DEPLOYED,
                  parallel: Parallel = ONE_GPU, engine: str = "theory", block_tokens: int = 16):
    """What the most loaded GPU holds of one request: its pipeline stage's layers, split over the TP ranks
    (data-parallel attention keeps the request on one rank of tp)."""
    m = get(model)
    parts = stages(m, parallel.pp) if parallel.pp > 1 else (m,)
    shares = [_rank_share(s, context, precision, block_tokens, parallel.tp, engine, parallel.dcp) for s in parts]
    return _like(np.maximum.reduce(shares) if np.ndim(context) else max(shares), context)


def _rank_share(m: Model, context, precision: cost.Precision, block_tokens: int, tp: int, engine: str,
                dcp: int = 1):
    """What one of tp ranks holds of a request to `m` (a whole model or one pipeline stage): the theory's KV
    split by heads (or whole) and its states by tp, or what the engine allocates on a rank. Under decode context
    parallelism (dcp ranks) the theory shards MLA's latent by token, ⌈N/dcp⌉ a rank; the rest stays whole."""
    if engine != "theory":
        return engines.allocation(m, context, precision, engine, tp=tp, block=block_tokens, dcp=dcp).charge
    held = request_bytes(m, context, precision, block_tokens)
    main = held.main_kv
    if dcp > 1 and kv_heads(m) is None:
        main = request_bytes(m, -(-np.asarray(context) // dcp), precision, block_tokens).main_kv
    return _share(held.total - held.state - held.main_kv + main, kv_heads(m), tp) + _state_share(held.state, tp)


def read_floor_seconds(model: Model | str, context, precision: cost.Precision, bandwidth_bytes_per_s: float,
                       batch: int = 1, tp: int = 1):
    """The least time one decode step can spend reading the cache: the bytes one tensor-parallel rank
    reads (its share of KV, index key and linear layers' states, core.cost.reads) × batch ÷ that GPU's
    bandwidth. A latent is replicated and read whole by every rank (so MLA's floor does not fall with
    tp); head-split KV is read a share per rank.

    A lower bound, not a speed prediction: reading the weights, compute, kernel efficiency and
    every overhead are left out (storage 1/4,400 of MHA's does not make decoding 4,400× faster).
    """
    bandwidth = _real("bandwidth_bytes_per_s", bandwidth_bytes_per_s, above=0)
    batch, tp = int_at_least("batch", batch), int_at_least("tp", tp)
    read = cost.reads(model, context, precision)
    per_gpu = _share((read.total - read.state) * batch, kv_heads(model), tp) + _state_share(read.state * batch, tp)
    return per_gpu / bandwidth


def _share(nbytes, heads: int | None, tp: int):
    """The bytes each of tp ranks holds (or reads): all of them, or ⌈heads/tp⌉ of `heads` heads."""
    if heads is None:
        return nbytes
    return -(-nbytes * -(-heads // tp) // heads)


def _state_share(nbytes, tp: int):
    """A linear layer's state, split by its heads over the ranks as vLLM splits it (its heads
    divide by tp in the models it serves): a tp-th each."""
    return -(-nbytes // tp)


def _split_note(heads: int | None, tp: int) -> str:
    if heads is None:
        return "latent KV, no heads to split: every GPU holds each request's whole cache"
    if tp <= heads:
        return f"KV heads split: each GPU holds {-(-heads // tp)} of the {heads} KV heads"
    copies = f"{tp // heads}" if tp % heads == 0 else f"{tp // heads}–{-(-tp // heads)}"
    return f"KV heads replicated: {tp} GPUs for {heads} KV heads, each GPU holds one, each head is on {copies} GPUs"


def _like(x, context):
    """An int when the caller passed one context, else an array."""
    return int(x) if np.ndim(context) == 0 else np.asarray(x)


def _real(name: str, value, *, above: float | None = None, at_least: float | None = None,
          below: float | None = None) -> float:
    """`value` when it is a finite real number in the stated range (a bool is not a number)."""
    ok = not isinstance(value, bool) and isinstance(value, Real) and math.isfinite(value)
    ok = ok and (above is None or value > above) and (at_least is None or value >= at_least)
    ok = ok and (below is None or value < below)
    if not ok:
        bounds = [f"> {above}" if above is not None else "", f"≥ {at_least}" if at_least is not None else "",
                  f"< {below}" if below is not None else ""]
        raise ValueError(f"{name} must be a number {' and '.join(b for b in bounds if b)}, got {value!r}")
    return value
