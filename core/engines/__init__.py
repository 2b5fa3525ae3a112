"""What vLLM and SGLang allocate for a model, beside the theory of `core.cost`.

The theory counts entries: each layer's bytes per token, windows, states. An engine allocates
pages: whole blocks of tokens per layer, byte layouts of its own, pools whose split is fixed before
the first request, states in slots. `allocation(model, n, precision, engine)` gives, for one
request at context n on one GPU rank, what each kind of layer holds under the engine, the share of
the KV budget the request takes, and every way the engine departs from the theory for this model,
each a `Rule` that names the engine's file and lines.

Read from the engines' released source (the git snapshots were too large to fetch):
vLLM 0.34.0 (its PyPI wheel; vllm/_version.py: commit 62d4bc3c7) and SGLang 0.5.23 (its PyPI
wheel, which records no commit; paths are the repository's, under python/). Defaults are each
engine's on a Hopper GPU (H100, H200): SGLang picks FlashAttention 3 there (pages of 1 token),
vLLM FlashMLA for MLA, FlashInfer's prefill for Gated DeltaNet. What a request allocates is priced here; the
memory around it (CUDA graphs, activations, the runtime) is core.budget's, and the plan over both core.serving's.

Each engine's rules are a module of their own: core.engines.vllm and core.engines.sglang (its rule tables, its
defaults, what a request holds), both on core.engines.common (the rule type, the result types, the bytes a token
takes in each kind of layer). This module checks the arguments, dispatches to the engine and holds what is asked
of both.

The planner's modes, each with rules of its own (PLAN_RULES): decode context parallelism (`allocation(dcp=)`,
`dcp_supported`), speculative decoding with the model's MTP layers (`allocation(spec=)`, `mtp_layers`,
`draft_parameters`), the engines' caps on running requests (`request_cap`) and the sliding layers' admission
reserve (`Allocation.admission`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import reduce

import numpy as np

from .. import cost
from ..checks import int_at_least, one_of, whole_numbers
from ..gpus import get_gpu
from ..models import ATTENTION_KINDS, Model
from ..parallel import ENGINES, ONE_GPU, Parallel, mtp_layer_parameters, published_config, stage_of
from ..registry import get
from . import sglang, vllm
from .common import SGLANG, V4_KINDS, VLLM, EngineError, Held, Rule
from .sglang import (
    SGLANG_PAGE,
    SGLANG_PLAN_RULES,
    SGLANG_RULES,
    SGLANG_STATE_RATIO,
    SGLANG_SWA_FAMILIES,
    sglang_context_length,
)
from .vllm import (
    VLLM_BLOCK,
    VLLM_PLAN_RULES,
    VLLM_RULES,
    VLLM_SPARSE_FP8_MIXED_HEADS,
    VLLM_UTILIZATION,
    vllm_batch,
)

__all__ = [
    "ENGINES", "FULL_WINDOWS", "GENERAL_RULES", "MTP_DEFAULT", "MTP_KEYS", "PLAN_RULES", "RULES", "SGLANG",
    "SGLANG_PAGE", "SGLANG_RULES", "SGLANG_STATE_RATIO", "V4_KINDS", "VLLM", "VLLM_BLOCK", "VLLM_RULES",
    "VLLM_SPARSE_FP8_MIXED_HEADS", "VLLM_UTILIZATION", "Allocation", "EngineError", "Held", "Rule", "allocation",
    "dcp_reason", "dcp_supported", "draft_parameters", "fixed", "mtp_layers", "per_token", "request_cap",
    "sglang_context_length", "vllm_batch",
]

FULL_WINDOWS = 1 << 30  # a context past every window
RULES = {"vllm": VLLM_RULES, "sglang": SGLANG_RULES}
GENERAL_RULES = frozenset({"block", "page", "budget", "log", "extra-page"})  # rules that hold for every model
# the planner's modes: decode context parallelism, speculative decoding, caps, admission
PLAN_RULES = {"vllm": VLLM_PLAN_RULES, "sglang": SGLANG_PLAN_RULES}
# the config keys a model's MTP layers are counted by (vLLM deepseek_mtp.py:149, qwen3_5_mtp.py; SGLang
# configs/model_config.py:1602-1603): Qwen3-Next's config names none, and both engines take 1
# (vLLM qwen3_next_mtp.py:71; SGLang configs/model_config.py:1134-1136)
MTP_KEYS = ("num_nextn_predict_layers", "mtp_num_hidden_layers")
MTP_DEFAULT = {"qwen3_next": 1}


@dataclass(frozen=True)
class Allocation:
    """One request at context n on one rank, as `engine` allocates it."""

    engine: str
    model: Model
    context: object
    held: tuple[Held, ...]
    shares: tuple[tuple[str, Fraction], ...]  # each pool's fixed share of the KV budget
    rules: tuple[Rule, ...]

    def pool_bytes(self, pool: str):
        return sum((h.nbytes for h in self.held if h.pool == pool), start=self.context * 0)

    @property
    def charge(self):
        """Bytes of the whole KV budget one request takes: its largest need of a pool over that pool's share
        (with one pool, what it holds)."""
        most = reduce(np.maximum, [-(-self.pool_bytes(p) * s.denominator // s.numerator) for p, s in self.shares])
        return int(most) if np.ndim(self.context) == 0 else most

    @property
    def per_token(self) -> Fraction:
        """Bytes of the budget a long context adds per token (the binding pool's growth over its share)."""
        return max(sum((h.per_token for h in self.held if h.pool == p), start=Fraction(0)) / s for p, s in self.shares)

    def reserved(self, dp: int = 1) -> int:
        """Bytes the engine sets aside from each GPU's KV budget before any request, on one of dp attention
        ranks: SGLang's ratio-128 compress-state rings for V4, one for each of ⌊max_running_requests / dp⌋ + 1
        request slots, rows padded to a multiple of 128 (pool_configurator.py:1504-1528); 0 elsewhere."""
        dp = int_at_least("dp", dp)
        return sglang.reserved(self.model, dp) if self.engine == "sglang" else 0

    def admission(self, chunk: int) -> int:
        """Bytes a request being admitted holds in its sliding parts beyond what their steady windows hold, for a
        prompt longer than the reserve (whatever this allocation's context): vLLM reserves a sliding spec's blocks
        of W − 1 + 2 × chunk positions and one more (vLLM bounds it by max_model_len, a prompt longer than the
        reserve being assumed) (SlidingWindowSpec.max_admission_blocks_
        per_request, kv_cache_interface.py:932-958, checked when a request is admitted, scheduler_reserve_full_isl
        on by default, config/scheduler.py:202-206; 2 batches in flight: async scheduling, on by default, and one
        pipeline stage, config/vllm.py:560-577, 1610-1637; pp stages would make it pp + 1) against
        ⌈(W − 1)/B⌉ + 1 held once the window slides; SGLang's window pool reserves max(chunk − W, 0) + W + page
        positions (estimate_swa_kv_tokens, prefill_budget.py:27-59) against the W + page − 1 it keeps. `chunk`:
        max_num_batched_tokens (vLLM) or chunked_prefill_size (SGLang). 0 without sliding parts (admission_rule
        None)."""
        chunk = int_at_least("chunk", chunk)
        extra = 0
        for h in self.held:
            if not h.window or not h.tokens:
                continue
            blocks = vllm.admission_blocks if self.engine == "vllm" else sglang.admission_blocks
            reserve, steady = blocks(h, chunk)
            extra += max(reserve - steady, 0) * h.page * (1 if h.packed else h.layers)
        return extra

    @property
    def admission_rule(self) -> Rule | None:
        """The rule `admission` follows, None where the request has no sliding part."""
        return PLAN_RULES[self.engine]["admission"] if any(h.window and h.tokens for h in self.held) else None


def allocation(model: Model | str, n, precision: cost.Precision = cost.DEPLOYED, engine: str = "vllm", *,
               tp: int = 1, block: int | None = None, hybrid: bool = True, dcp: int = 1, spec: int = 0) -> Allocation:
    """What `engine` allocates for one request at context n on one of tp ranks. `block`: the user's
    --block-size (vLLM) or --page-size (SGLang), None for the engine's default; a kernel that needs
    another size overrides it, as the engine does. `hybrid`: vLLM's hybrid KV cache manager on (its
    default); off, sliding layers hold the whole context. `dcp`: decode context parallelism over dcp of the
    tp ranks (the caches each engine splits by token split, the rest whole; PLAN_RULES[engine]["dcp"]); a
    model the engine offers no DCP for raises EngineError (why "dcp"), the layouts it refuses are
    core.layouts'. `spec`: k speculative tokens drafted by the model's MTP layers (mtp_layers; EngineError,
    why "spec", for a model without them: an EAGLE draft is not priced)."""
    one_of("engine", engine, ENGINES[1:])
    m = get(model)
    n = whole_numbers("context length", n, 1)
    tp = int_at_least("tp", tp)
    dcp = int_at_least("dcp", dcp)
    spec = int_at_least("spec", spec, 0)
    if block is not None:
        int_at_least("block", block)
    if any(ly.kind == "CSA2" for ly in m.layers):
        raise EngineError(f"{m.name}: CSA2 layers (shared KV and selections) are in neither engine's release read",
                          "csa2")
    if dcp > 1 and not dcp_supported(m, engine):
        raise EngineError(f"{m.name}: {_dcp_why(m, engine)}", "dcp")
    draft = 0
    if spec:
        draft = _draft_layers(m)
        if not draft:
            raise EngineError(f"{m.name}: {_spec_why(m)}", "spec")
        draft = max(draft, 0)
    p = cost.fitted(m, precision)
    build = vllm.allocate if engine == "vllm" else sglang.allocate
    held, shares, rules = build(m, n, p, tp, block, hybrid, dcp, spec, draft)
    ctx = int(n) if np.ndim(n) == 0 else n
    held = tuple(replace(h, blocks=int(h.blocks) if np.ndim(n) == 0 else h.blocks) for h in held if h.layers)
    return Allocation(engine, m, ctx, held, shares, tuple(dict.fromkeys(rules)))


def dcp_supported(model: Model | str, engine: str) -> bool:
    """Whether `engine` offers decode context parallelism for the model at all (a layout's own constraints, tp a
    multiple of dcp and the like, are core.layouts'). The theory: wherever a cache grows with the context.

    vLLM: every attention cache is DCP-sharded (AttentionSpec.dcp_sharded, v1/kv_cache_interface.py:559-560),
    and a sliding-window spec under DCP stops at "DCP not support sliding window" (kv_cache_interface.py:960-964;
    single_type_kv_cache_manager.py:989): no model with sliding layers (nor V4, whose windows are sliding specs).
    States are never sharded (MambaSpec, kv_cache_interface.py:1176-1178). SGLang: its window pools' allocators
    never widen under DCP (mem_cache/kv_cache_configurator.py:406-409), its V4 attention and pools have no DCP
    path (layers/attention/deepseek_v4_backend.py, mem_cache/deepseek_v4_memory_pool.py), and DSA under DCP is
    switched to its trtllm DSA backends (arg_groups/model_overrides/deepseek_v2.py:18-34), whose decode is
    FlashInfer's trtllm-gen MLA kernel (layers/attention/dsa/dsa_dcp.py:65-97), Blackwell's only
    (flashinfer-ai/flashinfer#1466): none of these on a Hopper GPU. (Its pricing of a DSA model under DCP, index
    keys whole on each rank, is kept for `sglang.allocate` and tested there.)"""
    one_of("engine", engine, ENGINES)
    return _dcp_why(get(model), engine) is None


def _dcp_why(m: Model, engine: str) -> str | None:
    found = dcp_reason(m, engine)
    return found[0] if found else None


def dcp_reason(m: Model, engine: str) -> tuple[str, str] | None:
    """Why `engine` offers no decode context parallelism for the model, and where its source says so; None where
    it does."""
    kinds = {ly.kind for ly in m.layers}
    if not kinds & {*ATTENTION_KINDS, "SWA", *V4_KINDS, "CSA2"}:
        return "no attention cache to split by token", "core/engines/__init__.py (dcp_supported)"
    if "CSA2" in kinds:
        return "CSA2 layers are in neither engine's release read", "core/engines/__init__.py (allocation)"
    if engine == "theory":
        return None
    vllm_window = "vllm/v1/kv_cache_interface.py:960-964; v1/core/single_type_kv_cache_manager.py:989"
    if kinds & set(V4_KINDS):
        if engine == "vllm":
            return ("V4's sliding windows are sliding-window specs, and vLLM stops at 'DCP not support sliding "
                    "window'", f"{vllm_window}; vllm/v1/attention/backends/mla/sparse_swa.py:128; "
                                      "models/deepseek_v4/compressor.py:184")
        return ("SGLang's V4 attention backend and pools have no DCP path",
                "sglang/srt/layers/attention/deepseek_v4_backend.py; mem_cache/deepseek_v4_memory_pool.py")
    if "DSA" in kinds and engine == "sglang":
        return ("its DSA layers under DCP run the trtllm DSA backends, FlashInfer's trtllm-gen MLA decode, which "
                "runs on Blackwell (SM100) only, not on a Hopper GPU",
                "sglang/srt/arg_groups/model_overrides/deepseek_v2.py:18-34; layers/attention/dsa/dsa_dcp.py:65-97; "
                "flashinfer-ai/flashinfer#1466")
    if "SWA" in kinds:
        if engine == "vllm":
            return "its sliding-window layers: vLLM stops at 'DCP not support sliding window'", vllm_window
        if m.family in SGLANG_SWA_FAMILIES:
            return ("its window pool's allocator never widens under DCP ('SWA allocators never widen under DCP')",
                    "sglang/srt/mem_cache/kv_cache_configurator.py:406-409")
    return None


def mtp_layers(model: Model | str) -> int:
    """The model's MTP (multi-token prediction) layers, as both engines count them: the published config's
    num_nextn_predict_layers or mtp_num_hidden_layers (MTP_KEYS), 1 for Qwen3-Next whose config names none; 0
    for a model with none or no config on file."""
    m = get(model)
    c = published_config(m) or {}
    for key in MTP_KEYS:
        if isinstance(c.get(key), int) and not isinstance(c.get(key), bool):
            return max(0, c[key])
    return MTP_DEFAULT.get(m.family, 0) if c else 0


def _draft_layers(m: Model) -> int:
    """MTP layers a stage prices: all of them on a whole model or the stage that holds its last layer (vLLM builds
    its speculator on the last pipeline rank only, v1/worker/gpu/model_runner.py:312-313), none on an earlier
    stage (-1: the model has them, the stage holds none). V4's MTP is not priced."""
    if any(ly.kind in V4_KINDS for ly in m.layers):
        return 0
    layers = mtp_layers(m)
    at = stage_of(m)
    return -1 if layers and at and at[0] != at[1] - 1 else layers


def _spec_why(m: Model) -> str:
    if any(ly.kind in V4_KINDS for ly in m.layers):
        return "V4's MTP layers are not priced here"
    return "its config names no MTP layers: speculative decoding would need an EAGLE draft, not priced here"


def draft_parameters(model: Model | str) -> int:
    """Parameters of the model's MTP layers, from its config's widths as core.parallel.weights counts them: each
    layer's projection of [embedding; hidden] (2D × D), its attention and its MLP (a MoE layer's experts, shared
    experts and router, or a dense MLP); the embedding and the output head are the target's, shared with the draft
    (vLLM v1/worker/gpu/spec_decode/eagle/utils.py:45-115). 0 without MTP layers or a config on file."""
    m = get(model)
    layers = mtp_layers(m)
    one = mtp_layer_parameters(m) if layers else None
    return layers * one if one else 0


def request_cap(model: Model | str, engine: str, gpu, *, kv_tokens: int | None = None,
                state_slots: int | None = None, parallel: Parallel = ONE_GPU) -> tuple[int | None, Rule | None]:
    """The most requests one scheduler of `engine` runs at once whatever the memory (one data-parallel rank of
    `parallel`; a node of dp ranks runs dp times as many), and the rule that says so; (None, None) for the theory,
    or where the cap depends on a pool size not given.

    vLLM: `vllm serve`'s max_num_seqs by the GPU's total memory (vllm.VLLM_BATCH_TIERS: 1,024 on an H100 or H200).
    SGLang: max_running_requests a dp worker, derived from the token pool when the user sets none: `kv_tokens`,
    the full pool's tokens on one worker (max_total_num_tokens), ÷ the model's context length × 512, held between
    2,048 and 4,096, then at most kv_tokens // 2; a hybrid's at most `state_slots` (the state pool's slots,
    max_mamba_cache_size) ÷ the slots a running request takes (3, or 5 with extra_buffer). V4: 256 for the server
    (⌊256 / dp⌋ a worker), at most kv_tokens // 2."""
    one_of("engine", engine, ENGINES)
    m, g = get(model), get_gpu(gpu)
    if engine == "theory":
        return None, None
    if kv_tokens is not None:
        kv_tokens = int_at_least("kv_tokens", kv_tokens)
    if state_slots is not None:
        state_slots = int_at_least("state_slots", state_slots, 0)
    if engine == "vllm":
        return vllm_batch(g)[1], PLAN_RULES["vllm"]["cap"]
    return sglang.max_running_requests(m, kv_tokens, state_slots, parallel.dp)


def per_token(model: Model | str, precision: cost.Precision = cost.DEPLOYED, engine: str = "theory", **kw):
    """Bytes of the KV budget a long context adds per token: the theory's storage_per_token, or the engine's."""
    if engine == "theory":
        return cost.storage_per_token(model, precision).total
    return allocation(model, 1, precision, engine, **kw).per_token


def fixed(model: Model | str, precision: cost.Precision = cost.DEPLOYED, engine: str = "vllm", **kw) -> int:
    """What a request holds whatever its length once its windows are full: its windows' blocks and its states."""
    a = allocation(model, FULL_WINDOWS, precision, engine, **kw)
    return sum(h.nbytes for h in a.held if h.fixed)
