"""One GPU's memory as a capacity review splits it: runtime, weights, activation peak, CUDA graphs, the
engine's margins, the KV pool, a states pool and what is left, under three rules side by side.

- **theory**: the planner's rule (`core.capacity.plan`): the data sheet's memory (141 × 10⁹ B for an
  H200) less a flat reserve (10 %) and the weights is the KV budget. What the card has beyond its data
  sheet (an H200 reports 143,771 MiB, 150,754,820,096 B; `core.gpus`) is `left`: the planner does not
  count it.
- **vLLM 0.34.0** (`vllm`): on CUDA and ROCm the KV cache is *extensible* by default: it is sized after
  warmup and CUDA graph capture from the memory then free, with gpu_memory_utilization resolving to
  1.0 (vllm/config/cache.py:395-406, 495-501; vllm/config/vllm.py:3181-3256). What it keeps free:
  the activation peak, and beside it a margin of max(1 GiB, 0.75 × peak) (3 GiB on ROCm)
  (vllm/v1/worker/extensible_kv_cache.py:50-65, 592-618). `extensible=False` is the estimate-based
  sizing it falls back to where the driver lacks virtual memory management: gpu_memory_utilization
  0.92 (vllm/config/cache.py:186) of the total, rounded up (vllm/v1/worker/utils.py:743), less the
  weights, the profiled activation peak and the CUDA graphs (vllm/v1/worker/gpu_worker.py:715-780);
  the runtime sits in the 8 % left.
- **SGLang 0.5.23** (`sglang`): mem_fraction_static f, its default computed from the GPU's memory and
  the layout (sglang/srt/arg_groups/memory_hook.py:90-346), times the memory free before the weights
  load, less the weights, is the pool (sglang/srt/mem_cache/kv_cache_configurator.py:2990-3060: the
  slack (1 − f) × free is kept for activations and CUDA graphs). A hybrid's states get 0.9/1.9 of the
  pool (`core.engines.SGLANG_STATE_RATIO`; kv_cache_configurator.py:3350-3358).

Every part is in bytes and the parts sum to the card's memory as its driver reports it
(`GPU.reported_bytes`); where the model does not fit (`Budget.fits` False: no pool, `short` the bytes
missing), `left` is what remains once the rule's other parts are taken, negative where they exceed
the card.

**The activation peak** (vLLM): the engine measures it with a profile run (vllm/v1/worker/gpu/
model_runner.py:1070-1097): one forward pass of max_num_batched_tokens tokens T, then the sampler on
R = min(max_num_seqs, T) rows. The estimate here, in bytes, is the larger of the two:

    forward = 2 × T × (2·D + max(3·I/tp, k·(max(E/tp, D) + max(2·E/tp, D))))
    sampler = R × V × (2 + 4 + 4)

D the hidden size, I a dense MLP's width, E a routed expert's, k the experts per token, V the vocabulary,
tp the tensor-parallel ranks (D, I, E, k, V from the model's config.json). Assumptions: activations
in BF16 (2 B); what is live at a layer's peak is the residual stream and the layer's input (2·D a
token) beside either a dense MLP's gate-and-up output and its activation (3·I/tp) or vLLM's Triton
fused-MoE workspaces (vllm/model_executor/layers/fused_moe/experts/triton_moe.py:278-293: (T, k,
max(N/2, D)) and (T, k, max(N, D)) values for N = 2·E/tp gate-and-up columns, the output reusing the
first: modular_kernel.py:1243-1248; other expert kernels size theirs otherwise); attention's
projections and a shared expert run beside these and are left out (smaller here); under DP attention
the MoE takes every DP rank's tokens (dp × T rows: vLLM's default all2all, allgather_reducescatter,
vllm/config/parallel.py:229, gathers them: distributed/device_communicators/all2all.py:118-146).
The sampler holds the model-dtype logits (2 B), their FP32 copy (vllm/v1/worker/gpu/sample/
sampler.py:238-239) and one FP32 temporary of their size (4 B: the softmax or log-softmax of the
warmup pass, which asks for logprobs: gpu/model_runner.py:1056-1062).
T and max_num_seqs are `vllm serve`'s defaults for the GPU (vllm/engine/arg_utils.py:3010-3043:
16,384 and 1,024 from 160 GiB, 8,192 and 1,024 from 70 GiB (not on an A100), else 2,048 and 256).

**Stated assumptions** (measured by the engines, computed by neither): the runtime (CUDA context, cuBLAS
and NCCL buffers, taken before vLLM's first memory snapshot and SGLang's free-memory reading:
vllm/v1/worker/gpu_worker.py:526-551, sglang/srt/distributed/bootstrap.py:193-223) is RUNTIME_BYTES;
vLLM's CUDA graphs (captured and measured: gpu_worker.py:1100-1103) are VLLM_GRAPHS_BYTES. SGLang
computes its own graph reserve in MiB (memory_hook.py:357-390), which is its `graphs`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from . import capacity, engines
from .checks import int_at_least, one_of
from .engines import ENGINES, vllm_batch  # re-exported: `vllm serve`'s batch by the GPU (the A100 row included)
from .gpus import GPU, MiB, get_gpu
from .models import Model
from .parallel import ONE_GPU, Parallel, published_config
from .registry import get

GiB = 1 << 30
BUDGET_PARTS = ("runtime", "weights", "activations", "graphs", "margin", "reserve", "kv", "states", "left")

# --- stated assumptions (the engines measure these; neither computes them) ---------------------------
RUNTIME_BYTES = 1 * GiB  # CUDA context, cuBLAS handles and workspaces, NCCL buffers on each GPU
# vLLM's captured CUDA graphs: it logs 0.36 GiB for 16 piecewise graphs of a small model
# (gpustack/runner#251) and 2.51 GiB for DeepSeek-V4-Flash's 51 (vllm-project/vllm#50576)
VLLM_GRAPHS_BYTES = 2 * GiB
ACTIVATION_BYTES = 2  # BF16 activations
SAMPLER_BYTES = 2 + 4 + 4  # per logit: model-dtype logits, their FP32 copy, one FP32 temporary

# --- vLLM 0.34.0 --------------------------------------------------------------------------------------
VLLM_UTILIZATION = Fraction(92, 100)  # vllm/config/cache.py:186, without the extensible KV cache
VLLM_EXTENSIBLE_UTILIZATION = Fraction(1)  # vllm/config/cache.py:499-500
VLLM_MARGIN_FLOOR = {"cuda": 1 * GiB, "rocm": 3 * GiB}  # KV_CACHE_MARGIN_FLOOR_BYTES, extensible_kv_cache.py:64
VLLM_MARGIN_FRACTION = Fraction(75, 100)  # KV_CACHE_MARGIN_FRACTION, extensible_kv_cache.py:65

# --- SGLang 0.5.23 (sizes in MiB, as sglang/srt/arg_groups/memory_hook.py computes them) --------------
# (below this many MiB of GPU memory: chunked_prefill_size, decode graphs' max batch at tp < 4, at tp ≥ 4),
# memory_hook.py:90-168 (the last row: B200, MI300)
SGLANG_TIERS = ((20 * 1024, 2048, 8, 8), (35 * 1024, 4096, 48, 160), (60 * 1024, 4096, 32, 160),
                (90 * 1024, 8192, 256, 512), (160 * 1024, 8192, 256, 512), (math.inf, 16384, 512, 512))
SGLANG_BASE_MIB = 512  # memory_hook.py:309, "constant meta data + activation slack"
SGLANG_PER_TOKEN_MIB = Fraction(3, 2)  # memory_hook.py:310, × max(chunked_prefill_size, 2048) (:305)
SGLANG_PER_8_RANKS_MIB = 1024  # memory_hook.py:312, × tp_size × pp_size / 8
SGLANG_FLOOR_MIB = 10 * 1024  # memory_hook.py:314-315, on GPUs of more than 60 GiB
SGLANG_DECODE_GRAPH_MIB = 2  # memory_hook.py:368, × the decode graphs' max batch
SGLANG_DP_GRAPH_MIB = (3, Fraction(3, 2), 300)  # memory_hook.py:371-378: × max_bs × dp, more past 300
SGLANG_MLA_PREFILL_GRAPH_MIB = 1536  # memory_hook.py:387-389
SGLANG_PREFILL_GRAPH_MIB = 8  # memory_hook.py:384-386, × the prefill graphs captured
SGLANG_AITER = Fraction(85, 100)  # attention_hook.py:244-269: aiter on ROCm, context over 8,192
SGLANG_AITER_CONTEXT = 8192


class Basis(NamedTuple):
    """What one part rests on: the part, the rule or assumption in words, its source."""

    part: str
    what: str
    source: str


@dataclass(frozen=True, kw_only=True)
class Budget:
    """One GPU's memory under one rule: every part in bytes, summing to `total`, the card's memory as its
    driver reports it. `kv` is the pool the engine's KV cache (and, in vLLM and the theory, the states)
    gets; `states` a states pool of its own (SGLang's hybrids); `left` what no part takes."""

    engine: str
    gpu: GPU
    parallel: Parallel
    total: int
    runtime: int = 0
    weights: int = 0
    activations: int = 0
    graphs: int = 0
    margin: int = 0
    reserve: int = 0
    kv: int = 0
    states: int = 0
    left: int = 0
    short: int = 0  # bytes the rule lacks before any pool is left (0 when it has one)
    basis: tuple[Basis, ...] = ()

    def __post_init__(self):
        one_of("engine", self.engine, ENGINES)
        for name in (*BUDGET_PARTS[:-1], "short"):
            int_at_least(name, getattr(self, name), 0)
        if sum(self.parts.values()) != self.total:
            raise ValueError(f"{self.engine}: parts sum to {sum(self.parts.values()):,} B, not {self.total:,} B")

    @property
    def parts(self) -> dict[str, int]:
        """Every part by name (BUDGET_PARTS), zeros included."""
        return {name: getattr(self, name) for name in BUDGET_PARTS}

    @property
    def pool(self) -> int:
        """What the engine hands its caches: the KV pool and a states pool."""
        return self.kv + self.states

    @property
    def fits(self) -> bool:
        """The weights and what the rule sets aside leave a pool."""
        return self.pool > 0


# --- the model's widths -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Widths:
    """What the activation estimate and SGLang's backend choice read from a model's config.json."""

    hidden: int  # hidden_size D
    intermediate: int  # a dense MLP's width I (intermediate_size_mlp, or intermediate_size beside experts'); 0
    expert: int  # a routed expert's width E (moe_intermediate_size, else intermediate_size); 0: no experts
    experts_per_token: int  # k; 0: no experts
    vocab: int  # vocab_size V
    kv_heads: int  # num_key_value_heads (num_attention_heads where it names none)
    context: int  # max_position_embeddings

    @classmethod
    def of(cls, config: dict) -> Widths:
        """The widths of a config (its language model's: text_config's where the config nests one).

        A config whose every MLP is experts may still name a dense intermediate_size (Qwen3-Next): it is read
        as a dense width all the same, which only matters where 3·I/tp would exceed the MoE's term (in none of
        the presets)."""
        c = config.get("text_config", config) if "hidden_size" not in config else config
        if not isinstance(c, dict):
            raise ValueError("the config has no language model's fields")

        def first(*keys: str) -> int:
            """The first of these fields the config gives as a positive integer (a per-layer list: its largest)."""
            for key in keys:
                value = c.get(key)
                value = max(value, default=0) if isinstance(value, list) and all(
                    isinstance(v, int) and not isinstance(v, bool) for v in value) else value
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    return value
            return 0

        experts = first("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")
        k = first("num_experts_per_tok", "experts_per_token", "num_experts_per_token", "top_k_experts",
                  "moe_topk") if experts else 0
        expert = first("moe_intermediate_size", "intermediate_size") if k else 0
        dense = first("intermediate_size_mlp") or (first("intermediate_size") if first("moe_intermediate_size")
                                                    or not k else 0)
        hidden, vocab = first("hidden_size"), first("vocab_size")
        if not hidden or not vocab:
            raise ValueError("the config names no hidden_size or vocab_size: the activation peak needs both")
        return cls(hidden=hidden, intermediate=dense, expert=expert, experts_per_token=k, vocab=vocab,
                   kv_heads=first("num_key_value_heads", "num_attention_heads"),
                   context=first("max_position_embeddings"))


def widths(model: Model | str, config: dict | None = None) -> Widths:
    """The model's widths: from `config` (a config.json as a dict) when given, else from its published config
    on file (`core.parallel.published_config`: an open preset's, or V3's, V3.2's, V4-Flash's)."""
    if config is not None:
        return Widths.of(config)
    m = get(model)
    if published_config(m) is None:
        raise ValueError(f"{m.name}: no config.json is kept for it, and the activation peak needs its widths")
    return _widths(m.id)


@lru_cache(maxsize=64)
def _widths(model_id: str) -> Widths:
    return Widths.of(published_config(model_id))


def splittable(model: Model | str) -> bool:
    """Whether all three rules split a GPU for the model: it has a published parameter count, and a
    config.json with the widths the activation estimate reads."""
    try:
        m = get(model)
        widths(m)
    except (ValueError, OSError):
        return False
    return m.parameters > 0


# --- weights ------------------------------------------------------------------------------------------

def weights(model: Model | str, parallel: Parallel = ONE_GPU, bytes_per_parameter: float = 1.0,
            engine: str = "theory") -> int:
    """Weights on the most loaded GPU: the checkpoint's stored bytes, or the model's published parameter count ×
    bytes per parameter (`capacity.model_weights`), spread as the planner spreads them (`capacity.weights_per_gpu`;
    under DP attention what `engine` keeps whole on each rank, `capacity.whole_weights_bytes`)."""
    m = get(model)
    total = _weights(m, bytes_per_parameter)
    return capacity.weights_per_gpu(total, capacity.whole_weights_bytes(m, total, engine), parallel)


def _weights_basis(m: Model, parallel: Parallel, bytes_per_parameter: float, engine: str) -> Basis:
    whole = "" if parallel.dp == 1 else (
        f", {capacity.whole_weights_bytes(m, _weights(m, bytes_per_parameter), engine):,} B of them whole on each rank")
    per = (f"{m.stored_bytes:,} B as its checkpoint stores them" if m.stored_bytes else
           f"{m.parameters:,} parameters × {bytes_per_parameter:g} B")
    return Basis("weights", f"{per}, spread as {parallel.name}{whole}",
                 "core/capacity.py model_weights, weights_per_gpu, whole_weights_bytes")


def _weights(m: Model, bytes_per_parameter: float) -> int:
    """The whole model's weights, bytes."""
    if not m.parameters:
        raise ValueError(f"{m.name}: no published parameter count, so no weights to place")
    return capacity.model_weights(m, bytes_per_parameter)


# --- the theory: the planner's rule ---------------------------------------------------------------------

def theory(model: Model | str, gpu: GPU | str, parallel: Parallel = ONE_GPU,
           bytes_per_parameter: float = 1.0, reserved: float = 0.1) -> Budget:
    """The planner's split (`capacity.plan`, engine "theory", at a flat reserve of `reserved`, 10 % by default):
    its weights, its reserve of the data sheet's memory, the KV budget; `left` the reported memory the data sheet
    leaves out."""
    m, g = get(model), get_gpu(gpu)
    p = capacity.plan(m, 1, g, _weights(m, bytes_per_parameter), parallel=parallel, reserved=reserved)
    kv = p.kv_budget_per_gpu_bytes
    total = g.reported_bytes
    short = max(p.weights_per_gpu_bytes + p.reserved_per_gpu_bytes - g.memory_bytes, 0)
    basis = (
        _weights_basis(m, parallel, bytes_per_parameter, "theory"),
        Basis("reserve", f"the planner's flat reserve of the data sheet's {g.memory_bytes:,} B",
              "core/capacity.py plan (reserved)"),
        Basis("kv", "the data sheet's memory less the reserve and the weights", "core/capacity.py plan"),
        Basis("left", f"what the driver reports ({total:,} B) beyond the data sheet's {g.memory_bytes:,} B",
              g.reported_source or g.source),
    )
    return Budget(engine="theory", gpu=g, parallel=parallel, total=total, weights=p.weights_per_gpu_bytes,
                  reserve=p.reserved_per_gpu_bytes, kv=kv,
                  left=total - p.weights_per_gpu_bytes - p.reserved_per_gpu_bytes - kv, short=short, basis=basis)


# --- vLLM 0.34.0 ----------------------------------------------------------------------------------------

class Peak(NamedTuple):
    """The activation estimate's terms, bytes: a forward pass of `tokens` tokens, the sampler on `rows`."""

    tokens: int
    rows: int
    forward: int
    sampler: int

    @property
    def peak(self) -> int:
        return max(self.forward, self.sampler)


def activation_peak(w: Widths, tokens: int, rows: int, parallel: Parallel = ONE_GPU) -> Peak:
    """vLLM's profiled activation peak, estimated (the module's formula) on one GPU of `parallel`."""
    tokens, rows = int_at_least("tokens", tokens), int_at_least("rows", rows)
    tp, D = parallel.tp, w.hidden
    stream = 2 * D
    dense = stream + 3 * w.intermediate // tp if w.intermediate else 0
    forward = ACTIVATION_BYTES * tokens * dense
    if w.experts_per_token:
        n = 2 * w.expert // tp  # gate-and-up columns on a rank; experts' widths split over tp
        moe_rows = tokens * parallel.dp  # DP attention: every rank's tokens meet at the experts
        moe = stream * tokens + w.experts_per_token * moe_rows * (max(n // 2, D) + max(n, D))
        forward = max(forward, ACTIVATION_BYTES * moe)
    return Peak(tokens, rows, forward, rows * w.vocab * SAMPLER_BYTES)


def vllm(model: Model | str, gpu: GPU | str, parallel: Parallel = ONE_GPU, bytes_per_parameter: float = 1.0, *,
         extensible: bool = True, config: dict | None = None) -> Budget:
    """vLLM 0.34.0's split of one GPU: with the extensible KV cache (its default on CUDA and ROCm) the pool
    is what is free after the weights, the runtime, the graphs, the activation peak and a margin; without
    it, 0.92 of the total less the weights, the activation peak and the graphs."""
    m, g = get(model), get_gpu(gpu)
    total, w = g.reported_bytes, widths(m, config)
    tokens, seqs = vllm_batch(g)
    p = activation_peak(w, tokens, min(seqs, tokens), parallel)
    on_gpu = weights(m, parallel, bytes_per_parameter, "vllm")
    peak, graphs, runtime = p.peak, VLLM_GRAPHS_BYTES, RUNTIME_BYTES
    basis = [
        _weights_basis(m, parallel, bytes_per_parameter, "vllm"),
        Basis("activations", f"estimated: the larger of a forward pass of max_num_batched_tokens = {tokens:,} tokens "
                             f"({p.forward:,} B) and the sampler on {p.rows:,} rows of {w.vocab:,} logits "
                             f"({p.sampler:,} B)", "vllm/engine/arg_utils.py:3010-3043; "
                             "v1/worker/gpu/model_runner.py:1039-1097; fused_moe/experts/triton_moe.py:278-293"),
        Basis("graphs", f"assumed: {graphs:,} B of captured CUDA graphs (vLLM measures them)",
              "vllm/v1/worker/gpu_worker.py:1100-1103"),
        Basis("runtime", f"assumed: {runtime:,} B of CUDA context and NCCL buffers (vLLM measures them)",
              "vllm/v1/worker/gpu_worker.py:526-551"),
    ]
    if extensible:
        margin = max(VLLM_MARGIN_FLOOR[g.platform], math.floor(VLLM_MARGIN_FRACTION * peak))
        pool = total - runtime - on_gpu - graphs - peak - margin
        kv, left = max(pool, 0), min(pool, 0)
        basis += [Basis("margin", f"max({VLLM_MARGIN_FLOOR[g.platform]:,} B, 0.75 × the activation peak)",
                        "vllm/v1/worker/extensible_kv_cache.py:50-65, 592-618"),
                  Basis("kv", "the extensible KV cache: what is free after warmup and graph capture, less the "
                              "activation peak and the margin (gpu_memory_utilization 1.0)",
                        "vllm/config/cache.py:395-406, 495-501; vllm/config/vllm.py:3181-3256; "
                        "v1/worker/gpu_worker.py:1225-1237")]
        parts = dict(runtime=runtime, weights=on_gpu, activations=peak, graphs=graphs, margin=margin, kv=kv,
                     left=left)
    else:
        requested = math.ceil(VLLM_UTILIZATION * total)
        pool = requested - on_gpu - peak - graphs
        kv = max(pool, 0)
        basis += [Basis("kv", f"gpu_memory_utilization 0.92 × the total = {requested:,} B, less the weights, the "
                              "activation peak and the graphs", "vllm/config/cache.py:186; v1/worker/utils.py:743; "
                              "v1/worker/gpu_worker.py:715-780"),
                  Basis("left", "the 8 % gpu_memory_utilization leaves, the runtime in it", "vllm/config/cache.py:186")]
        parts = dict(runtime=runtime, weights=on_gpu, activations=peak, graphs=graphs, kv=kv,
                     left=total - runtime - on_gpu - peak - graphs - kv)
    return Budget(engine="vllm", gpu=g, parallel=parallel, total=total, short=max(-pool, 0), basis=tuple(basis),
                  **parts)


# --- SGLang 0.5.23 --------------------------------------------------------------------------------------

class SGLangFraction(NamedTuple):
    """How SGLang arrives at mem_fraction_static for a GPU and layout: sizes in MiB."""

    gpu_mib: Fraction  # the GPU's memory as nvidia-smi (rocminfo) reports it
    chunked_prefill: int  # chunked_prefill_size
    max_bs: int  # the decode CUDA graphs' largest batch
    activation_mib: Fraction  # 512 + 1.5 × max(chunked_prefill, 2048) + tp × pp / 8 × 1024
    graph_mib: Fraction  # reserve_for_graph_mb
    reserved_mib: Fraction  # their sum, at least 10 GiB on a GPU of more than 60 GiB
    fraction: Fraction  # round((gpu − reserved) / gpu, 3), × 0.85 under aiter


def _prefill_graphs(max_tokens: int) -> int:
    """How many prefill CUDA graphs SGLang captures up to `max_tokens` tokens
    (sglang/srt/arg_groups/cuda_graph_hook.py:480-497)."""
    sizes = [*range(4, 33, 4), *range(48, 257, 16), *range(288, 513, 32), *range(576, 1025, 64),
             *range(1280, 4097, 256), *range(4608, max_tokens + 1, 512)]
    return sum(1 for s in sizes if s <= max_tokens)


def sglang_fraction(model: Model | str, gpu: GPU | str, parallel: Parallel = ONE_GPU,
                    config: dict | None = None) -> SGLangFraction:
    """SGLang 0.5.23's default mem_fraction_static (sglang/srt/arg_groups/memory_hook.py:281-346) for the
    model on this GPU spread as `parallel`: its --tp-size is the GPUs of a stage (tp × dp: DP attention's
    ranks share it), its attention DP size dp. Post-capture KV sizing is off by default
    (sglang/srt/environ.py:640), so the graph and activation reserve applies."""
    m, g = get(model), get_gpu(gpu)
    gpu_mib = Fraction(g.reported_bytes, MiB)
    tp_size, pp, dp = parallel.tp * parallel.dp, parallel.pp, parallel.dp
    _, chunk, small, large = next(row for row in SGLANG_TIERS if gpu_mib < row[0])
    max_bs = small if tp_size < 4 else large
    mla = m.dims.kv_lora_rank > 0  # attention_arch MLA: sglang/srt/configs/model_config.py:1366-1400
    v4 = any(ly.kind in engines.V4_KINDS for ly in m.layers)
    activation = SGLANG_BASE_MIB + SGLANG_PER_TOKEN_MIB * max(chunk, 2048) + Fraction(
        tp_size * pp * SGLANG_PER_8_RANKS_MIB, 8)
    graph = Fraction(SGLANG_DECODE_GRAPH_MIB * max_bs)  # decode graphs: FULL by default (cuda_graph_config.py:148-150)
    if dp > 1:
        per, more, past = SGLANG_DP_GRAPH_MIB
        graph += per * max_bs * dp + (more * max_bs * dp if max_bs > past else 0)
    # prefill graphs: breakable by default on CUDA (cuda_graph_config.py:119-123, 151-153), off with pipeline
    # stages (cuda_graph_hook.py:150-162), for KDA hybrids (Kimi Linear) and DeepSeek-V4 (:183-201); none on ROCm
    kda = any(ly.kind == "KDA" or ly.beside == "KDA" for ly in m.layers)
    if pp == 1 and not v4 and not kda and g.platform == "cuda":
        graph += SGLANG_MLA_PREFILL_GRAPH_MIB if mla else SGLANG_PREFILL_GRAPH_MIB * _prefill_graphs(chunk)
    reserved = activation + graph
    if gpu_mib > 60 * 1024:
        reserved = max(reserved, Fraction(SGLANG_FLOOR_MIB))
    fraction = Fraction(str(round(float((gpu_mib - reserved) / gpu_mib), 3)))
    if g.platform == "rocm" and _aiter(m, widths(m, config), tp_size):
        fraction *= SGLANG_AITER
    return SGLangFraction(gpu_mib, chunk, max_bs, activation, graph, reserved, fraction)


def _aiter(m: Model, w: Widths, tp_size: int) -> bool:
    """Whether SGLang on ROCm picks aiter attention for a model whose context passes 8,192 (which then scales
    mem_fraction_static by 0.85): always for MHA/GQA, for MLA with 16 or 128 KV heads a rank
    (sglang/srt/arg_groups/model_override_base.py:326-341; attention_hook.py:244-269)."""
    if w.context <= SGLANG_AITER_CONTEXT:
        return False
    return not m.dims.kv_lora_rank or max(1, w.kv_heads // tp_size) in (16, 128)


def sglang(model: Model | str, gpu: GPU | str, parallel: Parallel = ONE_GPU, bytes_per_parameter: float = 1.0, *,
           config: dict | None = None) -> Budget:
    """SGLang 0.5.23's split of one GPU: the pool is mem_fraction_static f of the memory free before the
    weights load, less the weights; the slack (1 − f) × free is its reserve for CUDA graphs (its own graph
    estimate) and activations (the rest). Exact arithmetic (SGLang's GiB floats differ by under a KiB)."""
    m, g = get(model), get_gpu(gpu)
    total = g.reported_bytes
    s = sglang_fraction(m, g, parallel, config)
    on_gpu = weights(m, parallel, bytes_per_parameter, "sglang")
    free = max(total - RUNTIME_BYTES, 0)  # a card smaller than the runtime: nothing free, nothing pooled
    static = math.floor(free * s.fraction)
    slack = free - static
    graphs = max(min(math.floor(s.graph_mib * MiB), slack), 0)
    pool = static - on_gpu
    rest = max(pool, 0)
    states = math.floor(rest * engines.SGLANG_STATE_RATIO / (1 + engines.SGLANG_STATE_RATIO)) if m.n_state else 0
    basis = [
        _weights_basis(m, parallel, bytes_per_parameter, "sglang"),
        Basis("runtime", f"assumed: {RUNTIME_BYTES:,} B of CUDA context and NCCL buffers, used before SGLang reads "
                         "the free memory", "sglang/srt/distributed/bootstrap.py:193-223"),
        Basis("graphs", f"SGLang's CUDA graph reserve: {float(s.graph_mib):g} MiB (decode graphs up to batch "
                        f"{s.max_bs})", "sglang/srt/arg_groups/memory_hook.py:357-390"),
        Basis("activations", f"the rest of the slack (1 − {float(s.fraction):g}) × the free memory: SGLang's "
                             f"activation reserve of {float(s.activation_mib):g} MiB for chunks of "
                             f"{s.chunked_prefill:,} tokens, floored at 10 GiB with the graphs, rounded in f",
              "sglang/srt/arg_groups/memory_hook.py:90-168, 281-346"),
        Basis("kv", f"mem_fraction_static {float(s.fraction):g} × the free memory ({free:,} B), less the weights",
              "sglang/srt/mem_cache/kv_cache_configurator.py:2990-3060"),
    ]
    if states:
        basis.append(Basis("states", "mamba_full_memory_ratio 0.9: states get 0.9/1.9 of the pool",
                           "sglang/srt/mem_cache/kv_cache_configurator.py:3350-3358"))
    return Budget(engine="sglang", gpu=g, parallel=parallel, total=total, runtime=RUNTIME_BYTES, weights=on_gpu,
                  activations=slack - graphs, graphs=graphs, kv=rest - states, states=states,
                  left=min(pool, 0), short=max(-pool, 0), basis=tuple(basis))


# --- all three, and the CLI's JSON -----------------------------------------------------------------------

def gpu_budget(model: Model | str, gpu: GPU | str, engine: str = "theory", parallel: Parallel = ONE_GPU,
               bytes_per_parameter: float = 1.0, *, config: dict | None = None, reserved: float = 0.1) -> Budget:
    """One rule's split of one GPU (ENGINES); `reserved` the theory's flat reserve."""
    one_of("engine", engine, ENGINES)
    if engine == "theory":
        return theory(model, gpu, parallel, bytes_per_parameter, reserved)
    return (vllm if engine == "vllm" else sglang)(model, gpu, parallel, bytes_per_parameter, config=config)


def budgets_side_by_side(model: Model | str, gpu: GPU | str, parallel: Parallel = ONE_GPU,
                         bytes_per_parameter: float = 1.0, *, config: dict | None = None) -> tuple[Budget, ...]:
    """The theory's, vLLM's and SGLang's splits of the same GPU."""
    return tuple(gpu_budget(model, gpu, e, parallel, bytes_per_parameter, config=config) for e in ENGINES)


def as_json(model: Model | str, gpu: GPU | str, engine: str = "theory", parallel: Parallel = ONE_GPU,
            bytes_per_parameter: float = 1.0, *, config: dict | None = None) -> dict:
    """The memory budget of one GPU as the cost CLI's --json gives it: every part in bytes (they sum to
    total_bytes), the pool, whether it fits, and what each part rests on; for a model the rule cannot
    split (no parameter count, no config.json for the activation estimate), {"error": why}."""
    try:
        b = gpu_budget(model, gpu, engine, parallel, bytes_per_parameter, config=config)
    except ValueError as e:
        return {"engine": engine, "error": str(e)}
    release = {"vllm": engines.VLLM, "sglang": engines.SGLANG}.get(engine, "the planner (core.capacity)")
    return {"engine": engine, "release": release, "gpu": b.gpu.id, "gpu_name": b.gpu.name,
            "reported_mib": b.gpu.reported_mib or None, "data_sheet_bytes": b.gpu.memory_bytes,
            "total_bytes": b.total, "parallel": {f.name: getattr(b.parallel, f.name) for f in fields(b.parallel)},
            "bytes_per_parameter": bytes_per_parameter,
            "parts": {f"{name}_bytes": value for name, value in b.parts.items()}, "pool_bytes": b.pool,
            "fits": b.fits, "short_bytes": b.short, "basis": [p._asdict() for p in b.basis]}
