"""Which ways of spreading a model over GPUs an engine refuses, and why, in the engine's own words.

`refusal(model, parallel, engine, gpus_per_node)` gives the first `Refusal` of a layout (tp × pp × dp
GPUs as `core.parallel.Parallel` describes them: dp attention ranks, each tp ranks wide and pp stages
deep), or None when the engine runs it; `block_refusal(model, engine, block)` does the same for a
--block-size / --page-size. A refused layout is never priced.

Read from the released wheels, as core.engines reads them: vLLM 0.34.0 (vllm/_version.py: commit
62d4bc3c7) and SGLang 0.5.23 (paths under sglang/srt/, the repository's python/ tree). Defaults are
each engine's on a Hopper GPU.

- **Attention heads.** vLLM checks the config before loading: "Total number of attention heads (H)
  must be divisible by tensor parallel size (tp)" (vllm/config/model.py:1576-1584). SGLang splits
  them in each layer, `divide(total_num_heads, tp_size)` over the attention-TP group
  (sglang/srt/layers/linear.py:1139; models/deepseek_v2.py:2051-2058 for MLA, deepseek_v4.py:1025-1037
  for V4), an assertion "H is not divisible by tp" (distributed/utils.py:68-79).
- **KV heads.** Both engines' QKVParallelLinear hold max(1, kv // tp) KV heads a rank: with tp ≥ kv
  each head is copied to tp / kv ranks, which must be whole (`divide(tp, kv)`); with tp < kv each rank
  takes kv / tp heads (`divide(kv, tp)`) (vllm/model_executor/layers/linear.py:1112-1119,
  vllm/distributed/utils.py:52-56, 143-147; sglang/srt/layers/linear.py:1139-1145). A TP wider than
  the KV heads is allowed when it is a multiple of them (Llama 3.1 8B: 8 KV heads at tp 16). MLA's
  latent and V4's entry have no heads to split: nothing is checked.
- **GPUs of one node.** vLLM: "World size (tp × pp) is larger than the number of available GPUs (g) in
  this node" (vllm/config/parallel.py:1057-1061, 1158-1170), and each of the dp engines takes tp × pp
  GPUs of its own, devices [r·w, (r+1)·w) (vllm/v1/engine/utils.py:439-485). SGLang counts attention
  DP inside its --tp-size (attn_tp = tp_size // attn_dp_size, sglang/srt/runtime_context.py:73-76),
  so its world is tp × dp × pp; rank (pp_rank, tp_rank) runs on GPU pp_rank·tp_size + tp_rank
  (entrypoints/engine.py:929-938), and a GPU past the node fails `assert gpu_id < num_gpus`
  (utils/common.py:435-436).
- **DP attention.** vLLM spreads attention over data-parallel ranks and the experts over all GPUs only
  for a model with experts: "Non-MoE DP ranks are completely independent" (each holds the whole model,
  vllm/v1/engine/core.py:1719-1728), and --enable-expert-parallel on such a model stops with "Number of
  experts in the model must be greater than 0 when expert parallelism is enabled"
  (vllm/config/model.py:1518-1523). Whether a model has experts is read as vLLM reads it
  (num_experts, moe_num_experts, n_routed_experts, num_local_experts;
  vllm/transformers_utils/config.py:65-70): from a preset's config file, or the config a caller gives.
  SGLang has no list: DP attention runs where a model's attention is split over the attention-TP
  group that --attn-dp-size narrows (`SGLANG_DP_ATTENTION`: models/deepseek_v2.py:2051-2058,
  deepseek_v4.py, qwen3.py, qwen3_moe.py, qwen3_next.py, qwen3_5.py, gpt_oss.py, llama4.py,
  mimo_v2.py, minimax_m2.py, nemotron_h.py, kimi_linear.py, glm4_moe.py); a model file that splits
  its heads over the whole TP group has none, and no check says so (llama.py:181-184 for Llama,
  Mistral and Phi-3; gemma3_causal.py, gemma3n_causal.py, gemma4_causal.py, granitemoehybrid.py).
- **Pipeline stages.** vLLM refuses PP for an architecture without the SupportsPP interface: "Pipeline
  parallelism is not supported for this model" (vllm/config/model.py:1589-1596; Gemma 3n's classes,
  model_executor/models/gemma3n_mm.py:575-577, gemma3n.py:1102). More stages than layers: neither
  engine checks it; their get_pp_indices give ⌊L/pp⌋ = 0 layers to some stages
  (vllm/distributed/utils.py:240-245; sglang/srt/distributed/utils.py:137-150), and the planner
  prices no stage without a layer (core.parallel.stages), the theory included.
- **Block sizes.** vLLM takes a user's --block-size only where an attention backend on Hopper takes it
  ("No valid attention backend found", vllm/platforms/cuda.py:136-152, 166-178, 511-516). Under
  vllm/v1/attention/backends/, every one needs a multiple of 16: flash_attn.py:357-367,
  flashinfer.py:587-606, triton_attn.py:339-346, flex_attention.py:153-154; for MLA
  mla/flashattn_mla.py:49-50, mla/flashmla.py:57-58 (64), mla/flashinfer_mla.py:204-205 (32, 64),
  mla/triton_mla.py:126-133; sparse MLA (DSA) a multiple of 64: mla/flashmla_sparse.py:165-173,
  mla/flashattn_mla_sparse.py:50-51, mla/flashinfer_mla_sparse_sm90.py:156-157. A hybrid with states
  raises the block itself (not refused); V4's pages are core.engines' 256 whatever is asked. SGLang sets
  DSA's page size to 64 and V4's to 256 itself, whatever --page-size says
  (sglang/srt/arg_groups/model_overrides/deepseek_v2.py:99-173, deepseek_v4.py:51-63).
- **The theory** refuses only what no engine could run: fewer than one rank, more ranks than the
  node's GPUs, a pipeline stage without a layer.

- **Decode context parallelism** (`dcp` of the tp ranks, `Parallel.dcp`). Where an engine offers it at all
  is core.engines.dcp_supported: vLLM not with sliding-window layers ("DCP not support sliding window",
  vllm/v1/kv_cache_interface.py:960-964, v1/core/single_type_kv_cache_manager.py:989), V4 included (its
  windows and compressor states are SlidingWindowMLASpecs, vllm/v1/attention/backends/mla/sparse_swa.py:128,
  models/deepseek_v4/compressor.py:184); SGLang
  not with a window pool, whose allocator "never widens under DCP" (sglang/srt/mem_cache/
  kv_cache_configurator.py:406-409), nor for V4, whose attention backend and pools have no DCP path
  (layers/attention/deepseek_v4_backend.py, mem_cache/deepseek_v4_memory_pool.py), nor for DSA on Hopper:
  under DCP it switches DSA to its trtllm backends (arg_groups/model_overrides/deepseek_v2.py:18-34), whose
  decode is FlashInfer's trtllm-gen MLA kernel (layers/attention/dsa/dsa_dcp.py:65-97), SM100's only
  (flashinfer-ai/flashinfer#1466). vLLM: "tp_size must be
  divisible by dcp_size" (vllm/config/parallel.py:636-641); for GQA/MQA (a model without MLA) tp must exceed
  the KV heads, dcp be at most tp ÷ KV heads and divide the query heads per KV head
  (vllm/config/model.py:1598-1626); under DCP a sparse MLA model runs FlashMLA sparse on Hopper (the first
  in Hopper's order, FlashAttention MLA sparse, takes no FP8 cache and no DCP: platforms/cuda.py:136-152,
  flashattn_mla_sparse.py:97-118), and with an FP8 cache (fp8_ds_mla) a rank must hold fewer than 32
  query heads (the mixed-batch path) and its heads and the dcp × its heads DCP gathers must pad alike to
  the kernel's 64 or 128 (v1/attention/backends/mla/flashmla_sparse.py:75, 447-451, 460-493, 730-733).
  SGLang cuts its DCP groups from each TP group dcp ranks at a time
  (sglang/srt/distributed/parallel_state.py:2716-2725), a short last group where dcp does not divide tp;
  only its XPU path checks it ("--dcp-size must divide --tp-size", arg_groups/attention_hook.py:64-65): the
  planner refuses it. The theory: dcp must divide tp (DCP reuses the TP ranks).

Not read here (each could refuse more): splits of linear-attention and state-space heads (GDN, Mamba2),
of MoE widths over TP × EP, and architectures an engine does not serve at all (core.engines says which it
prices).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from numbers import Integral

from . import cost
from .checks import int_at_least, one_of
from .engines import ENGINES, SGLANG, V4_KINDS, VLLM, VLLM_SPARSE_FP8_MIXED_HEADS, dcp_reason
from .models import Model
from .open_models import CONFIGS, OPEN_IMPORTS
from .registry import get

THEORY = "the theory (core)"
_VLLM_SRC, _SGLANG_SRC = "vllm/", "sglang/srt/"

# vLLM's names for a config's count of routed experts (vllm/transformers_utils/config.py:65-70)
EXPERT_KEYS = ("num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts")
# model types whose every release has routed experts, for the article's models that have no config
# file here (DeepSeek-V2, V3, V3.2, V4: vLLM builds their MLP as DeepseekV2MoE from n_routed_experts)
MOE_FAMILIES = frozenset({"deepseek_v2", "deepseek_v3", "deepseek_v32", "deepseek_v4"})

# SGLang 0.5.23: where each model type's attention splits its heads, and whether over the attention-TP
# group (DP attention runs) or the whole TP group (it has none). Files under sglang/srt/models/.
_DEEPSEEK_MLA = "deepseek_v2.py:2051-2058"
SGLANG_DP_ATTENTION: dict[str, tuple[bool, str]] = {
    **{t: (True, _DEEPSEEK_MLA) for t in ("deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "kimi_k25")},
    "glm_moe_dsa": (True, f"glm4_moe.py:1284 (DeepseekV2ForCausalLM); {_DEEPSEEK_MLA}"),
    "deepseek_v4": (True, "deepseek_v4.py:1025-1037"),
    "kimi_linear": (True, f"kimi_linear.py:52, 568-572 (DeepSeek's MLA); {_DEEPSEEK_MLA}"),
    "gpt_oss": (True, "gpt_oss.py:391-395"),
    "qwen3": (True, "qwen3.py:164-167"),
    "qwen3_moe": (True, "qwen3_moe.py:502-507"),
    "qwen3_next": (True, "qwen3_next.py:622-625"),
    "qwen3_5_text": (True, "qwen3_5.py:1281-1294"),
    "qwen3_5_moe_text": (True, "qwen3_5.py:1281-1294"),
    "llama4_text": (True, "llama4.py:221-225"),
    "mimo_v2_flash": (True, "mimo_v2.py:688-692"),
    "minimax_m2": (True, "minimax_m2.py:643-647"),
    "nemotron_h": (True, "nemotron_h.py:694-697"),
    "llama": (False, "llama.py:181-184"),
    "mistral": (False, "mistral.py:33 (LlamaForCausalLM); llama.py:181-184"),
    "phi3": (False, "llama.py:956 (LlamaForCausalLM); llama.py:181-184"),
    "gemma3_text": (False, "gemma3_causal.py:137-141"),
    "gemma3n_text": (False, "gemma3n_causal.py:328-332"),
    "gemma4_text": (False, "gemma4_causal.py:323-343"),
    "granitemoehybrid": (False, "granitemoehybrid.py:195-197"),
}
# vLLM 0.34.0 model types whose architecture lacks SupportsPP (Gemma3nForConditionalGeneration,
# Gemma3nForCausalLM), with the lines of their classes
VLLM_NO_PP: dict[str, str] = {
    "gemma3n_text": "vllm/model_executor/models/gemma3n_mm.py:575-577, gemma3n.py:1102",
    "gemma3n": "vllm/model_executor/models/gemma3n_mm.py:575-577, gemma3n.py:1102",
}

# Hopper attention backends and the --block-size each takes (vLLM 0.34.0)
VLLM_BLOCK_MULTIPLE = 16
VLLM_SPARSE_BLOCK_MULTIPLE = 64
SGLANG_FIXED_PAGE = {"DSA": 64, "V4": 256}


@dataclass(frozen=True)
class Refusal:
    """An engine refuses a layout: which rule, its reason (the engine's message, paraphrased faithfully,
    with the numbers filled in) and where its source says so."""

    rule: str  # ranks | node | heads | kv-heads | dp-attention | pp-support | pp-layers | block | dcp
    engine: str  # theory | vllm | sglang
    reason: str
    source: str  # file:lines at the release read (core's own module for the theory)

    @property
    def release(self) -> str:
        return {"vllm": VLLM, "sglang": SGLANG}.get(self.engine, THEORY)

    def __str__(self) -> str:
        return f"{self.release} refuses it: {self.reason} [{self.source}]"


def refusal(model: Model | str, parallel, engine: str = "theory", gpus_per_node: int | None = None, *,
            moe: bool | None = None, precision: cost.Precision | None = None) -> Refusal | None:
    """The first reason `engine` refuses to spread `model` as `parallel` (a core.parallel.Parallel, or any
    (tp, pp, dp) or (tp, pp, dp, dcp) of whole numbers, so that one below 1 can be asked about), or None when it
    runs it. `gpus_per_node`: the plan is for one node of that many GPUs (None: ranks may span nodes). `moe`:
    whether the model has routed experts, for a model whose config is not a preset's (None: read it
    from the preset's config, or unknown). `precision`: the KV cache's (default: the deployed formats), which
    decides a DCP layout of an FP8 sparse MLA cache in vLLM."""
    one_of("engine", engine, ENGINES)
    m = get(model)
    tp, pp, dp, dcp = _ranks(parallel)
    if gpus_per_node is not None:
        gpus_per_node = int_at_least("gpus_per_node", gpus_per_node)
    for check in _CHECKS[engine]:
        found = check(m, tp, pp, dp, gpus_per_node, moe, engine)
        if found:
            return found
    if dcp != 1:
        return _dcp(m, tp, dcp, engine, cost.DEPLOYED if precision is None else precision)
    return None


def block_refusal(model: Model | str, engine: str, block: int) -> Refusal | None:
    """Whether `engine` refuses (or sets itself, ignoring it) a user's --block-size / --page-size of
    `block` tokens for `model`; None when it takes it. The theory takes any block."""
    one_of("engine", engine, ENGINES)
    m, block = get(model), int_at_least("block", block)
    kinds = {ly.kind for ly in m.layers}
    if engine == "sglang":
        kind = "V4" if kinds & set(V4_KINDS) else "DSA" if "DSA" in kinds else None
        if kind and block != SGLANG_FIXED_PAGE[kind]:
            where = ("arg_groups/model_overrides/deepseek_v4.py:51-63" if kind == "V4"
                     else "arg_groups/model_overrides/deepseek_v2.py:99-173")
            return Refusal("block", engine, f"it sets {m.name}'s page size to {SGLANG_FIXED_PAGE[kind]} itself "
                           f"({kind}), whatever --page-size says; {block} is not used", _SGLANG_SRC + where)
    elif engine == "vllm" and not kinds & set(V4_KINDS):  # V4's own pages: core.engines prices them at 256
        if "DSA" in kinds and block % VLLM_SPARSE_BLOCK_MULTIPLE:
            return Refusal("block", engine, (
                f"no sparse MLA backend on Hopper takes --block-size {block} for {m.name} (FlashMLA sparse, "
                f"FlashAttention MLA sparse and FlashInfer MLA sparse need a multiple of "
                f"{VLLM_SPARSE_BLOCK_MULTIPLE}): 'No valid attention backend found'"),
                "vllm/platforms/cuda.py:511-516; v1/attention/backends/mla/flashmla_sparse.py:165-173, "
                "flashattn_mla_sparse.py:50-51, flashinfer_mla_sparse_sm90.py:156-157")
        if not any(ly.holds_state for ly in m.layers) and block % VLLM_BLOCK_MULTIPLE:
            return Refusal("block", engine, (
                f"no attention backend on Hopper takes --block-size {block} for {m.name} (each needs a "
                f"multiple of {VLLM_BLOCK_MULTIPLE}): 'No valid attention backend found'"),
                "vllm/platforms/cuda.py:136-152, 166-178, 511-516; v1/attention/backends/flash_attn.py:357-367, "
                "flashinfer.py:587-606, triton_attn.py:339-346, flex_attention.py:153-154, "
                "mla/flashattn_mla.py:49-50, mla/flashmla.py:57-58, mla/flashinfer_mla.py:204-205, "
                "mla/triton_mla.py:126-133")
    return None


def experts(config: dict) -> int:
    """Routed experts in a config.json, as vLLM reads them: the first of its names on the text config
    (a list's first value), else the most of a moe block's n_routed_experts
    (vllm/transformers_utils/model_arch_config_convertor.py:159-190); 0 for a dense model."""
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    for key in EXPERT_KEYS:
        value = text.get(key)
        if isinstance(value, list) and value:
            value = value[0]
        if isinstance(value, Integral) and not isinstance(value, bool) and value > 0:
            return int(value)
    blocks = text.get("block_configs")
    counts = [b.get("n_routed_experts", 0) for b in blocks if isinstance(b, dict) and b.get("block_type") == "moe"] \
        if isinstance(blocks, list) else []
    return max((c for c in counts if isinstance(c, Integral) and not isinstance(c, bool)), default=0)


def has_experts(model: Model | str) -> bool | None:
    """Whether the model has routed experts: from its preset's config file, or its DeepSeek family;
    None when nothing here says (a caller's own config: pass `moe` to `refusal`)."""
    m = get(model)
    if m.id in OPEN_IMPORTS:
        return _preset_experts(m.id) > 0
    if m.family in MOE_FAMILIES:
        return True
    return None


@lru_cache(maxsize=64)
def _preset_experts(model_id: str) -> int:
    return experts(json.loads((CONFIGS / f"{model_id}.json").read_bytes()))


def _ranks(parallel) -> tuple[int, int, int, int]:
    values = (parallel.tp, parallel.pp, parallel.dp, getattr(parallel, "dcp", 1)) if hasattr(parallel, "tp") \
        else tuple(parallel)
    if len(values) == 3:
        values = (*values, 1)
    if len(values) != 4 or not all(isinstance(v, Integral) and not isinstance(v, bool) for v in values):
        raise ValueError(f"a layout is three whole numbers (tp, pp, dp), or four with dcp, got {parallel!r}")
    return tuple(int(v) for v in values)


def _dcp(m: Model, tp: int, dcp: int, engine: str, precision: cost.Precision) -> Refusal | None:
    """Decode context parallelism over dcp of the tp ranks (the module's docstring says where each rule is)."""
    if dcp < 1:
        src = "vllm/config/parallel.py:427" if engine == "vllm" else (
            "sglang/srt/arg_groups/parallel_hook.py:243-248" if engine == "sglang" else "core/layouts.py")
        return Refusal("dcp", engine, f"the decode context parallel size counts ranks, at least 1: dcp = {dcp}", src)
    found = dcp_reason(m, engine)
    if found:
        return Refusal("dcp", engine, f"no decode context parallelism for {m.name}: {found[0]}", found[1])
    if tp % dcp:
        if engine == "vllm":
            return Refusal("dcp", engine, f"tp_size={tp} must be divisible by dcp_size={dcp}.",
                           "vllm/config/parallel.py:636-641")
        if engine == "sglang":
            return Refusal("dcp", engine, (
                f"its DCP groups are cut from the TP group {dcp} ranks at a time, the last of {tp} ranks short "
                f"(only its XPU path checks it: '--dcp-size {dcp} must divide --tp-size {tp}')"),
                "sglang/srt/distributed/parallel_state.py:2716-2725; arg_groups/attention_hook.py:64-65")
        return Refusal("dcp", engine, f"DCP reuses the TP ranks: dcp = {dcp} must divide tp = {tp}",
                       "core/layouts.py")
    if engine != "vllm":
        return None
    kinds = {ly.kind for ly in m.layers}
    d = m.dims
    if not kinds & {"MLA", "DSA"}:  # GQA/MQA
        kv, heads = d.num_key_value_heads or d.num_attention_heads, d.num_attention_heads
        src = "vllm/config/model.py:1598-1626"
        if tp <= kv:
            return Refusal("dcp", engine, (
                f"Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` ({tp}) to be greater "
                f"than the model's total number of KV heads ({kv})"), src)
        if dcp > tp // kv:
            return Refusal("dcp", engine, (
                f"`--decode-context-parallel-size` ({dcp}) exceeds the maximum supported value ({tp // kv}) for "
                f"`--tensor-parallel-size` ({tp}) and {kv} model KV heads"), src)
        if (heads // kv) % dcp:
            return Refusal("dcp", engine, (
                f"The model's number of query heads per KV head ({heads // kv}) must be divisible by "
                f"`--decode-context-parallel-size` ({dcp}) for GQA/MQA"), src)
        return None
    fp8 = precision.of(m.component("main_kv")) != "bf16" if "DSA" in kinds else False
    if fp8:  # FlashMLA sparse's FP8 decode under DCP
        local = d.num_attention_heads // tp
        src = ("vllm/v1/attention/backends/mla/flashmla_sparse.py:75, 447-451, 460-493, 730-733; "
               "flashattn_mla_sparse.py:97-118; platforms/cuda.py:136-152")
        if local >= VLLM_SPARSE_FP8_MIXED_HEADS:
            return Refusal("dcp", engine, (
                f"DCP for FlashMLA sparse is only supported on the mixed-batch fp8 path (num_heads < "
                f"{VLLM_SPARSE_FP8_MIXED_HEADS}); a rank holds {local}"), src)
        pad, gathered = (lambda h: 64 if h <= 64 else 128), local * dcp
        if pad(local) != pad(gathered):
            return Refusal("dcp", engine, (
                f"DCP for FlashMLA sparse requires the local and DCP-gathered head counts to pad to the same fp8 "
                f"decode kernel envelope; got {local} local heads (pad to {pad(local)}) vs {gathered} gathered "
                f"heads (pad to {pad(gathered)})"), src)
    return None


# --- the checks, each (model, tp, pp, dp, gpus_per_node, moe, engine) -> Refusal | None --------------


def _at_least_one(m, tp, pp, dp, node, moe, engine):
    low = [f"{name} = {v}" for name, v in (("tp", tp), ("pp", pp), ("dp", dp)) if v < 1]
    if low:
        if engine == "vllm":  # its ParallelConfig's fields are ge=1
            return Refusal("ranks", engine, f"tp, pp and dp count GPUs, each at least 1: {', '.join(low)}",
                           "vllm/config/parallel.py:148-156")
        return Refusal("ranks", "theory", f"tp, pp and dp count GPUs, each at least 1: {', '.join(low)}",
                       "core/layouts.py")
    return None


def _node(m, tp, pp, dp, node, moe, engine):
    if node is None or tp * pp * dp <= node:
        return None
    total = f"tp × pp × dp = {tp} × {pp} × {dp} = {tp * pp * dp:,} GPUs"
    if engine == "theory":
        return Refusal("node", engine, f"{total}, more than the node's {node}", "core/layouts.py")
    if engine == "vllm":
        if tp * pp > node:
            return Refusal("node", engine, f"World size ({tp * pp}) is larger than the number of available GPUs "
                           f"({node}) in this node", "vllm/config/parallel.py:1057-1061, 1158-1170")
        return Refusal("node", engine, f"each of the {dp} data-parallel engines takes tp × pp = {tp * pp} GPUs of "
                       f"its own: {total}, more than the node's {node}", "vllm/v1/engine/utils.py:439-485")
    return Refusal("node", engine, (
        f"its --tp-size counts attention DP ranks too ({tp} × {dp} = {tp * dp}), and rank (pp, tp) runs on GPU "
        f"pp × {tp * dp} + tp: {total}, past the node's {node} ('assert gpu_id < num_gpus')"),
        "sglang/srt/runtime_context.py:73-76; entrypoints/engine.py:929-938; utils/common.py:435-436")


def _dp_attention(m, tp, pp, dp, node, moe, engine):
    if dp == 1:
        return None
    if engine == "vllm":
        if (has_experts(m) if moe is None else moe) is False:
            return Refusal("dp-attention", engine, (
                f"{m.name} has no experts: its data-parallel ranks are independent engines, each with the whole "
                "model ('Non-MoE DP ranks are completely independent'), and --enable-expert-parallel stops with "
                "'Number of experts in the model must be greater than 0 when expert parallelism is enabled'"),
                "vllm/v1/engine/core.py:1719-1728; vllm/config/model.py:1518-1523")
        return None
    offered, where = SGLANG_DP_ATTENTION.get(m.family, (True, ""))
    if not offered:
        return Refusal("dp-attention", engine, (
            f"{m.name}'s model file splits its attention heads over the whole TP group (get_parallel().tp_size), "
            "not the attention-TP group --attn-dp-size narrows: it has no DP attention (no check says so)"),
            f"{_SGLANG_SRC}models/{where}; runtime_context.py:73-76")
    return None


def _heads(m, tp, pp, dp, node, moe, engine):
    heads = m.dims.num_attention_heads
    if heads % tp == 0:
        return None
    if engine == "vllm":
        return Refusal("heads", engine, f"Total number of attention heads ({heads}) must be divisible by tensor "
                       f"parallel size ({tp})", "vllm/config/model.py:1576-1584")
    kinds = {ly.kind for ly in m.layers}
    where = ("models/deepseek_v4.py:1025-1037" if kinds & set(V4_KINDS) else
             f"models/{_DEEPSEEK_MLA}" if kinds & {"MLA", "DSA"} else "layers/linear.py:1139")
    return Refusal("heads", engine, f"the {heads} attention heads split over {tp} attention-TP ranks: "
                   f"'{heads} is not divisible by {tp}'", f"{_SGLANG_SRC}{where}; distributed/utils.py:68-79")


def _kv_heads(m, tp, pp, dp, node, moe, engine):
    d = m.dims
    full = d.num_key_value_heads or d.num_attention_heads
    counts = {full} if any(ly.kind in ("MHA", "GQA") for ly in m.layers) else set()
    if any(ly.kind == "SWA" for ly in m.layers):
        counts.add(d.swa_num_key_value_heads or full)
    for kv in sorted(counts):
        if tp >= kv and tp % kv:
            why = (f"tp = {tp} is more than the {kv} KV heads, so each is copied to tp / {kv} ranks, which must be "
                   f"whole: '{tp} is not divisible by {kv}'")
        elif tp < kv and kv % tp:
            why = f"each of {tp} ranks holds {kv} / {tp} of the {kv} KV heads: '{kv} is not divisible by {tp}'"
        else:
            continue
        source = ("vllm/model_executor/layers/linear.py:1112-1119; vllm/distributed/utils.py:52-56, 143-147"
                  if engine == "vllm" else f"{_SGLANG_SRC}layers/linear.py:1139-1145; distributed/utils.py:68-79")
        return Refusal("kv-heads", engine, why, source)
    return None


def _pp_support(m, tp, pp, dp, node, moe, engine):
    if pp > 1 and engine == "vllm" and m.family in VLLM_NO_PP:
        return Refusal("pp-support", engine, f"{m.name}: 'Pipeline parallelism is not supported for this model. "
                       "Supported models implement the `SupportsPP` interface.'",
                       f"vllm/config/model.py:1589-1596; {VLLM_NO_PP[m.family]}")
    return None


def _pp_layers(m, tp, pp, dp, node, moe, engine):
    layers = m.n_layers
    if pp <= layers:
        return None
    why = f"pp = {pp} stages for {layers} layers: a pipeline stage holds at least one layer"
    if engine == "theory":
        return Refusal("pp-layers", engine, why, "core/parallel.py (stages)")
    source = ("vllm/distributed/utils.py:240-245" if engine == "vllm"
              else f"{_SGLANG_SRC}distributed/utils.py:137-150")
    return Refusal("pp-layers", engine, f"{why}; its get_pp_indices gives ⌊{layers}/{pp}⌋ = 0 layers to "
                   f"{pp - layers} of them (no check of its own: the planner prices no stage without a layer)",
                   f"{source}; core/parallel.py (stages)")


_CHECKS = {
    "theory": (_at_least_one, _node, _pp_layers),
    "vllm": (_at_least_one, _node, _dp_attention, _heads, _kv_heads, _pp_support, _pp_layers),
    "sglang": (_at_least_one, _node, _dp_attention, _heads, _kv_heads, _pp_layers),
}
