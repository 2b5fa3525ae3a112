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

The planner's modes, each with rules of its own (PLAN_RULES): decode context parallelism (`allocation(dcp=)`,
`dcp_supported`), speculative decoding with the model's MTP layers (`allocation(spec=)`, `mtp_layers`,
`draft_parameters`), the engines' caps on running requests (`request_cap`) and the sliding layers' admission
reserve (`Allocation.admission`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import reduce
from string import Formatter

import numpy as np

from . import cost
from . import formats as F
from .checks import int_at_least, one_of, whole_numbers
from .gpus import get as get_gpu
from .models import ATTENTION_KINDS, MODELS, Model
from .parallel import ENGINES, ONE_GPU, Parallel, published_config, stage_of
from .parallel import mtp_layer_parameters as _mtp_layer_parameters
from .registry import get

VLLM = "vLLM 0.34.0 (commit 62d4bc3c7)"
SGLANG = "SGLang 0.5.23"  # its release wheel records no commit
V4_KINDS = ("CSA", "HCA")
FULL_WINDOWS = 1 << 30  # a context past every window


@dataclass(frozen=True)
class Rule:
    """One way an engine's allocation departs from the theory: what (a template filled from `fields`, the
    page's languages in i18n's eng.rule.<engine>.<id>) and where its code says so."""

    id: str
    engine: str
    template: str
    source: str  # file:lines in the engine's source at the release read
    fields: tuple[tuple[str, object], ...] = ()

    @property
    def what(self) -> str:
        return self.template.format(**dict(self.fields))

    @property
    def release(self) -> str:
        return VLLM if self.engine == "vllm" else SGLANG


VLLM_BLOCK = 64  # vllm/config/cache.py:185
SGLANG_PAGE = 1  # sglang overrides.py:1341-1363
DSA_BLOCK = 64  # both engines' sparse MLA and indexer pages
V4_BLOCK = 256  # both engines' V4 pages (vLLM's window cache: 64)
VLLM_V4_WINDOW_BLOCK = 64
V4_ALIGN = 576  # a V4 page's bytes round up to a multiple of this (FP8 layouts)
VLLM_KERNEL_MULTIPLE = 16  # FlashAttention, Triton: MultipleOf(16)
VLLM_MLA_STATE_ALIGN = 128  # the least kernel alignment for an MLA hybrid's block (interface.py:1100)
VLLM_UTILIZATION = ("0.92", "1.0")  # gpu_memory_utilization, without and with the extensible KV cache
VLLM_IN_FLIGHT = 2  # batches in flight with async scheduling (pp + 1): the window's admission reserve
SGLANG_SWA_RATIO = Fraction(8, 10)  # swa_full_tokens_ratio
SGLANG_V4_SWA_RATIO = Fraction(1, 10)  # DSV4_DEFAULT_SWA_FULL_TOKENS_RATIO
SGLANG_STATE_RATIO = Fraction(9, 10)  # mamba_full_memory_ratio: states get 0.9 / 1.9 of the budget
SGLANG_STATE_SLOTS = 3  # MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO
SGLANG_TRACKING_SLOTS = 2  # get_mamba_tracking_slots(extra_buffer=True, overlap=True): the ping-pong pair
# model types of the architectures in SGLang's _MAMBA_EXTRA_BUFFER_ARCHS (arg_groups/overrides.py:403-435): with
# mamba_radix_cache_strategy "auto", overlap scheduling and the triton linear-attention backend (the defaults)
# they take the extra_buffer strategy, 3 + 2 state slots a running request
SGLANG_EXTRA_BUFFER_FAMILIES = frozenset({"qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text",
                                          "kimi_linear", "nemotron_h", "granitemoehybrid", "falcon_h1"})
SGLANG_EVICT = 128  # SGLANG_SWA_EVICTION_INTERVAL
# vLLM's state kinds whose spec declares a prefill checkpoint page with prefix caching on a Hopper GPU: Mamba2
# (mamba_mixer2.py:1089-1099) and Gated DeltaNet, whose prefill is FlashInfer's on SM90
# (qwen_gdn_linear_attn.py:321-344, 848-858, 901-911); its checkpoints sit on a 64-token grid (gdn_attn.py:35)
VLLM_CHECKPOINT_STATES = ("Mamba2", "GDN")
VLLM_GDN_GRID = 64
# V4's compressor states in vLLM (models/deepseek_v4/compressor.py:139-175, 290-301): FP32, 2 × coff × the
# compressed width a token (kv and score; coff = 2 where ratio-4 windows overlap), in sliding pages of 4 tokens
# (ratio 4) or 8 (ratio 128) over a window of coff × ratio tokens
V4_STATE_BLOCK = {4: 4, 128: 8}
V4_STATE_WINDOW = {r: (1 + (r == 4)) * r for r in V4_STATE_BLOCK}  # coff × ratio: 8 and 128 tokens
V4_STATE_BYTES = 4  # FP32, vLLM's and SGLang's (SGLANG_DSV4_COMPRESS_STATE_DTYPE) default
# SGLang's compress-state rings (mem_cache/deepseek_v4_memory_pool.py:60-79): rows a ring holds without
# speculative decoding; a ratio-4 ring for each page of the window pool, a ratio-128 ring for each request slot
SGLANG_V4_RING = {4: 8, 128: 128}
SGLANG_V4_RUNNING = 256  # max_running_requests, V4's default (arg_groups/deepseek_v4_hook.py:138-145)
# model types whose sliding layers SGLang keeps in a window pool (configs/model_config.py:2651-2699)
SGLANG_SWA_FAMILIES = frozenset({"gpt_oss", "llama4", "llama4_text", "gemma4", "gemma4_text", "mimo_v2_flash",
                                 "deepseek_v4", "step3p5"})
# the layouts the texts quote, as DeepSeek's models define them
_MLA, _INDEX_KEY, _V4 = (MODELS[m].component(r) for m, r in (("v3.2", "main_kv"), ("v3.2", "index_key"),
                                                            ("v4-flash", "main_kv")))
_FIELDS = {
    "block": VLLM_BLOCK, "page": SGLANG_PAGE, "dsa": DSA_BLOCK, "v4": V4_BLOCK, "v4w": VLLM_V4_WINDOW_BLOCK,
    "align": V4_ALIGN, "values": _MLA.dims, "scaled": _MLA.layouts["fp8"].nbytes,
    "key": _INDEX_KEY.layouts["fp8"].nbytes, "key4": _INDEX_KEY.layouts["fp4"].nbytes,
    "group": _INDEX_KEY.layouts["fp8"].segments[0].group, "entry": _V4.layouts["fp8"].nbytes,
    "util": VLLM_UTILIZATION[0], "util2": VLLM_UTILIZATION[1], "flight": VLLM_IN_FLIGHT,
    "swa": f"{float(SGLANG_SWA_RATIO):g}", "v4swa": f"{float(SGLANG_V4_SWA_RATIO):g}",
    "state": f"{float(SGLANG_STATE_RATIO):g}", "whole": f"{float(1 + SGLANG_STATE_RATIO):g}",
    "slots": SGLANG_STATE_SLOTS, "extra": SGLANG_STATE_SLOTS + SGLANG_TRACKING_SLOTS, "evict": SGLANG_EVICT - 1,
    "r4": min(V4_STATE_BLOCK), "r128": max(V4_STATE_BLOCK),  # V4's two compression ratios
    "grid": VLLM_GDN_GRID, "s4": V4_STATE_BLOCK[4], "s128": V4_STATE_BLOCK[128], "w4": V4_STATE_WINDOW[4],
    "w128": V4_STATE_WINDOW[128],
    "ring4": SGLANG_V4_RING[4], "ring128": SGLANG_V4_RING[128], "running": SGLANG_V4_RUNNING,
}


def _rules(engine: str, *rows: tuple[str, str, str], fields: dict | None = None) -> dict[str, Rule]:
    """Rules from (id, template, source); each keeps the fields its template names, from `fields` (default: the
    allocation rules' _FIELDS)."""
    fields = _FIELDS if fields is None else fields
    out = {}
    for rid, template, source in rows:
        names = {name for _, name, _, _ in Formatter().parse(template) if name}
        out[rid] = Rule(rid, engine, template, source, tuple((k, fields[k]) for k in sorted(names)))
    return out


_MLA_FP8 = "FP8 MLA on dense kernels stores all {values} values in FP8 with one scale a layer: {values} B, " \
           "not the scaled {scaled} B"
_DSA_FP8 = ("FP8 sparse MLA stores DeepSeek's scaled layout (FP8 latent, an FP32 scale per {group} values, a BF16 "
            "position key): {scaled} B")
_INDEX = "the index key is FP8 with an FP32 scale per {group} values ({key} B) whatever the cache dtype"
_SCALE = "FP8 KV keeps one scale a layer outside the pages: no scale per {group} values"
_V4_LAYOUT = "V4's entries in the {entry}-B FP8 layout whatever --kv-cache-dtype says"
VLLM_RULES = _rules(
    "vllm",
    ("block", "a request holds whole pages (vLLM's blocks) of {block} tokens by default in every layer",
     "vllm/config/cache.py:185; vllm/platforms/interface.py:759-800"),
    ("dsa-block", "sparse MLA and its indexer need pages of a multiple of {dsa} tokens",
     "vllm/v1/attention/backends/mla/flashmla_sparse.py:165-173; mla/indexer.py:237-238"),
    ("v4-block", ("V4's compressed entries and index keys in pages of {v4} tokens (one entry per m tokens), its "
                  "windows in pages of {v4w}, every page rounded up to {align} B"),
     "vllm/models/deepseek_v4/sparse_mla.py:60-61; v1/attention/backends/mla/sparse_swa.py:76-150"),
    ("mla-fp8", _MLA_FP8, "vllm/model_executor/layers/attention/mla_attention.py:490"),
    ("dsa-fp8", _DSA_FP8, "vllm/v1/attention/backend.py:1017-1018; mla_attention.py:367-377"),
    ("index-fp8", _INDEX, "vllm/model_executor/models/deepseek_v2.py:724-736"),
    ("v4-layout", _V4_LAYOUT, "vllm/models/deepseek_v4/attention.py:95-124, 817-840"),
    ("v4-index", "V4's index keys are FP8 with an FP32 scale per {group} values ({key} B): MXFP4 ({key4} B) needs "
                 "a Blackwell GPU",
     "vllm/config/attention.py:101-107; v1/attention/backends/mla/indexer.py:67-107; "
     "models/deepseek_v4/attention.py:925, 976-993"),
    ("v4-compressor", ("V4's compressor states, FP32, in sliding pages of their own: {s4} tokens a page over a window "
                       "of {w4} in a ratio-{r4} layer (and its indexer), {s128} over {w128} in a ratio-{r128} layer"),
     "vllm/models/deepseek_v4/compressor.py:139-197, 290-301; v1/kv_cache_interface.py:731-738, 1022-1118"),
    ("v4-packed", ("V4's caches share one packed pool: a block of every group takes the bytes of the largest group's "
                   "block, its layers' pages side by side"),
     "vllm/v1/core/kv_cache_planning.py:620-648, 923-1085, 1203-1208; v1/attention/backends/mla/indexer.py:297-303"),
    ("fp8-scale", _SCALE, "vllm/model_executor/layers/attention/attention.py:148-165"),
    ("window", ("pages wholly behind the window are freed: ⌈(W−1)/P⌉ + 1 pages at most (W the window, P the page "
                "size, both in tokens)"),
     "vllm/v1/core/single_type_kv_cache_manager.py:1153-1188"),
    ("window-reserve", "admitting a request reserves W − 1 + {flight} × max_num_batched_tokens positions for a "
                       "window: not in a request's bytes here, the planner keeps one such reserve free on each GPU",
     "vllm/v1/kv_cache_interface.py:951-958; vllm/config/vllm.py:560-577"),
    ("no-hybrid", "hybrid KV cache manager off: sliding-window layers hold the whole context",
     "vllm/v1/core/kv_cache_planning.py:783-856"),
    ("groups", ("layers of different kinds go in groups of one size; a kind's last group is padded with empty "
                "layers that take pages too"), "vllm/v1/core/kv_cache_planning.py:462-602"),
    ("state-page", "the attention page is raised until it holds a state, and each state page padded to it",
     "vllm/platforms/interface.py:1088-1140"),
    ("state-pages", ("with prefix caching (on by default) a state layer holds 2 pages; a Mamba2 layer, and a Gated "
                     "DeltaNet layer with FlashInfer's prefill (Hopper's), 3"),
     "vllm/v1/kv_cache_interface.py:1168-1174; model_executor/models/config.py:1094-1105; "
     "model_executor/layers/mamba/mamba_mixer2.py:1089-1099; "
     "model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py:321-344, 848-858, 901-911"),
    ("gdn-grid", "Gated DeltaNet's prefill checkpoints fall on block edges: its page a multiple of {grid} tokens",
     "vllm/platforms/interface.py:1101-1106; v1/attention/backends/gdn_attn.py:35"),
    ("budget", ("budget: gpu_memory_utilization ({util}, or {util2} with the extensible KV cache) of the total "
                "memory, less weights, activations' peak and CUDA graphs"),
     "vllm/v1/worker/utils.py:742-743; vllm/config/cache.py:495-501; v1/worker/gpu_worker.py:715-780"),
    ("log", ("its 'KV cache size' log line is max concurrency × max_model_len (the longest context one request "
             "may have), not token slots"),
     "vllm/v1/core/kv_cache_utils.py:1082-1175"),
)
SGLANG_RULES = _rules(
    "sglang",
    ("page", "pages of {page} token by default (FlashAttention 3 on Hopper), the pool floored to whole pages",
     "sglang/srt/arg_groups/overrides.py:1341-1363; model_executor/pool_configurator.py:637-653"),
    ("dsa-page", "sparse MLA (DSA) takes pages of {dsa} tokens",
     "sglang/srt/arg_groups/model_overrides/deepseek_v2.py:160-175"),
    ("v4-page", "V4 takes pages of {v4} tokens (one compressed entry per m), each rounded up to {align} B",
     "sglang/srt/arg_groups/model_overrides/deepseek_v4.py:51-61; kernels/ops/attention/dsv4/kv_layout.py:103-105"),
    ("mla-fp8", _MLA_FP8, "sglang/srt/mem_cache/memory_pool.py:4793-4797"),
    ("dsa-fp8", _DSA_FP8, "sglang/srt/mem_cache/kv_cache_configurator.py:3458-3472"),
    ("index-fp8", _INDEX, "sglang/srt/model_executor/pool_configurator.py:567-573"),
    ("v4-layout", _V4_LAYOUT, "sglang/srt/mem_cache/deepseek_v4_memory_pool.py:295-318"),
    ("v4-pools", "V4's window pool holds {v4swa} as many tokens as the full pool: every token of context reserves it",
     "sglang/srt/model_executor/pool_configurator.py:1046, 1437-1497"),
    ("v4-index", "V4's index keys are FP8 with an FP32 scale per {group} values ({key} B): MXFP4 ({key4} B) only "
                 "with --enable-deepseek-v4-fp4-indexer",
     "sglang/srt/arg_groups/fields/exec_.py:439-442; mem_cache/deepseek_v4_memory_pool.py:53-57, 560-591; "
     "model_executor/pool_configurator.py:1111-1115"),
    ("v4-compressor", ("V4's compress-state rings, FP32: {ring4} rows a ratio-{r4} layer (and its indexer) holds for "
                       "each page of the window pool, priced with it; {ring128} rows a ratio-{r128} layer holds for "
                       "each of max_running_requests + 1 request slots ({running} by default), set aside before the "
                       "pools"),
     "sglang/srt/model_executor/pool_configurator.py:1372-1388, 1496-1501, 1504-1528, 1638-1663; "
     "mem_cache/deepseek_v4_memory_pool.py:60-79; arg_groups/deepseek_v4_hook.py:138-145"),
    ("fp8-scale", _SCALE, "sglang/srt/layers/radix_attention.py:94-97"),
    ("swa-pool", ("sliding-window layers in a pool of their own, {swa} as many tokens as the full pool "
                  "(swa_full_tokens_ratio): every token of context reserves it"),
     "sglang/srt/model_executor/pool_configurator.py:797-803, 880-881; arg_groups/fields/schedule.py:150-161"),
    ("swa-evict", "window positions freed a page at a time: W to W + page − 1 kept (up to {evict} more between "
                  "evictions, not counted)", "sglang/srt/managers/schedule_batch.py:4068-4122"),
    ("no-swa-pool", ("this architecture is not on the window pool's list: sliding-window layers hold the whole "
                     "context"),
     "sglang/srt/configs/model_config.py:1215-1218, 2651-2699; arg_groups/model_overrides/gemma2_gemma3.py:13-26"),
    ("state-pool", "states get {state}/{whole} of the budget (mamba_full_memory_ratio), the KV the rest",
     "sglang/srt/mem_cache/kv_cache_configurator.py:3350-3385; arg_groups/fields/schedule.py:220-226"),
    ("state-slots", "{slots} state slots for each running request",
     "sglang/srt/mem_cache/kv_cache_configurator.py:227, 3062-3088, 3135-3150"),
    ("state-extra", ("{extra} state slots for each running request: {slots}, and the prefix cache's ping-pong pair "
                     "(extra_buffer, this architecture's default with overlap scheduling)"),
     "sglang/srt/arg_groups/overrides.py:403-435, 438-450, 453-487; arg_groups/fields/exec_.py:512-519, 542-548; "
     "mem_cache/kv_cache_configurator.py:227, 3062-3088; mem_cache/allocation_sizing.py:11-19"),
    ("state-fp32", "SSM states in FP32, not the config's dtype", "sglang/srt/configs/mamba_utils.py:68-71, 116-125"),
    ("shared", "a layer that reads another's KV is allocated anyway (and never written)",
     "sglang/srt/models/gemma3n_causal.py:374-385; model_runner_components/layer_setup.py:214-220"),
    ("extra-page", "not counted: one more page a layer in every pool, from the slack",
     "sglang/srt/mem_cache/memory_pool.py:2574, 4865-4867"),
    ("budget", "budget: mem_fraction_static (from the GPU's size) of the free memory before the weights load, "
               "less the weights", "sglang/srt/mem_cache/kv_cache_configurator.py:2990-3060; "
                                   "arg_groups/memory_hook.py:47-345"),
)
RULES = {"vllm": VLLM_RULES, "sglang": SGLANG_RULES}
GENERAL_RULES = frozenset({"block", "page", "budget", "log", "extra-page"})  # rules that hold for every model

# --- the planner's modes: decode context parallelism, speculative decoding, caps, admission ----------------------

GiB = 1 << 30
# `vllm serve`'s (OPENAI_API_SERVER) max_num_batched_tokens and max_num_seqs by the GPU's total memory,
# vllm/engine/arg_utils.py:3010-3043: (at least this many bytes, tokens, sequences). An A100 (and a GB10) of 70 GiB
# and more takes the last row (arg_utils.py:3020-3024).
VLLM_BATCH_TIERS = ((160 * GiB, 16_384, 1_024), (70 * GiB, 8_192, 1_024), (0, 2_048, 256))
# SGLang's max_running_requests a dp worker when the user sets none (mem_cache/kv_cache_configurator.py:3119-3132):
# the pool's tokens over the context length × 512, held between these, then at most half the pool's tokens
SGLANG_RUNNING_PER_CONTEXT = 512
SGLANG_RUNNING_BOUNDS = (2048, 4096)
# SGLang's context length keys, the first a config has (utils/hf_transformers/common.py:668-694)
SGLANG_CONTEXT_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                       "max_position_embeddings")
SGLANG_DEFAULT_CONTEXT = 2048
# vLLM's FlashMLA sparse FP8 decode kernel takes 64 or 128 query heads; DCP gathers dcp × the rank's heads, which
# must pad like the rank's own, and only a rank of fewer than 32 heads runs the mixed batch DCP needs
# (v1/attention/backends/mla/flashmla_sparse.py:75, 447-451, 460-493, 730-733)
VLLM_SPARSE_FP8_MIXED_HEADS = 32
# the config keys a model's MTP layers are counted by (vLLM deepseek_mtp.py:149, qwen3_5_mtp.py; SGLang
# configs/model_config.py:1602-1603): Qwen3-Next's config names none, and both engines take 1
# (vLLM qwen3_next_mtp.py:71; SGLang configs/model_config.py:1134-1136)
MTP_KEYS = ("num_nextn_predict_layers", "mtp_num_hidden_layers")
MTP_DEFAULT = {"qwen3_next": 1}
CONV_KERNEL_KEYS = ("linear_conv_kernel_dim", "conv_kernel", "mamba_d_conv")

_PLAN_FIELDS = {"running": SGLANG_V4_RUNNING, "per_context": SGLANG_RUNNING_PER_CONTEXT,
                "low": SGLANG_RUNNING_BOUNDS[0], "high": SGLANG_RUNNING_BOUNDS[1], "slots": SGLANG_STATE_SLOTS,
                "extra": SGLANG_STATE_SLOTS + SGLANG_TRACKING_SLOTS, "flight": VLLM_IN_FLIGHT}


PLAN_RULES = {
    "vllm": _rules(
        "vllm",
        ("dcp", ("decode context parallelism: every attention cache (MLA's latent, the indexer's keys, GQA's "
                 "heads, the MTP layers') split by token over the DCP ranks, a block of B × dcp tokens holding B on "
                 "each rank (one token a rank in turn: cp_kv_cache_interleave_size 1); states stay whole"),
         "vllm/config/parallel.py:427, 461-471, 636-641; v1/kv_cache_interface.py:196-197, 559-560, 620-625; "
         "v1/core/single_type_kv_cache_manager.py:108-110, 219; model_executor/models/deepseek_v2.py:658-666"),
        ("spec-draft", "speculative decoding: the MTP layers' KV, each like a full-attention layer of the model, in "
                       "the same groups", "vllm/model_executor/models/deepseek_mtp.py:103-108, 145-160; "
                                         "qwen3_next_mtp.py:71, 97-103; v1/worker/gpu/model_runner.py:632-642"),
        ("spec-lookahead", "speculative decoding: the k speculative tokens' slots beside the context",
         "vllm/v1/core/kv_cache_manager.py:570-574"),
        ("spec-state", "speculative decoding: k more pages a state layer (num_speculative_blocks)",
         "vllm/model_executor/layers/mamba/abstract.py:78-98; v1/kv_cache_interface.py:1168-1174; "
         "config/cache.py:332"),
        ("cap", "at most max_num_seqs running requests a scheduler (vllm serve's default by the GPU's memory)",
         "vllm/engine/arg_utils.py:3010-3043"),
        ("admission", ("admitting a request reserves, in a sliding layer, the blocks of W − 1 + {flight} × "
                       "max_num_batched_tokens positions (+ 1 block) until the prompt's chunks are computed"),
         "vllm/v1/kv_cache_interface.py:932-958; v1/core/kv_cache_manager.py:552-568; "
         "v1/core/single_type_kv_cache_manager.py:219-232; v1/core/sched/scheduler.py:1511; "
         "config/scheduler.py:202-206; config/vllm.py:560-577, 1610-1637"),
        fields=_PLAN_FIELDS,
    ),
    "sglang": _rules(
        "sglang",
        ("dcp", ("decode context parallelism: the latent (and GQA's rows) split by token over the DCP ranks, pages "
                 "of page × dcp tokens; the index keys stay whole on every rank"),
         "sglang/srt/arg_groups/fields/parallel.py:52-58; distributed/parallel_state.py:2716-2725; "
         "mem_cache/kv_cache_configurator.py:406-415, 2924-2932; model_executor/pool_configurator.py:398-409; "
         "configs/model_config.py:1700-1711"),
        ("spec-draft", ("speculative decoding: the MTP layers' KV in a draft pool of as many tokens, each layer like "
                        "a full-attention layer of the model, never split by DCP"),
         "sglang/srt/model_executor/pool_configurator.py:256-315; "
         "model_executor/model_runner_components/spec_aux_hidden_state.py:156-176; configs/model_config.py:1700-1711"),
        ("spec-lookahead", "speculative decoding: the k draft tokens' slots beside the context (k + 1 a step)",
         "sglang/srt/mem_cache/allocation_sizing.py:27-52; arg_groups/speculative_hook.py:1255-1266"),
        ("spec-state", ("speculative decoding: a running request keeps the recurrent state of each of its k + 1 "
                        "draft tokens and their convolution inputs (k + K − 1 columns)"),
         "sglang/srt/mem_cache/memory_pool.py:135-150, 600-632, 864-945; mem_cache/kv_cache_configurator.py:761"),
        ("cap", ("at most max_running_requests a dp worker: the pool's tokens ÷ the context length × {per_context}, "
                 "held between {low} and {high}, at most half the pool's tokens; a hybrid's at most its state "
                 "slots ÷ the slots a request takes ({slots}, or {extra} with extra_buffer)"),
         "sglang/srt/mem_cache/kv_cache_configurator.py:3062-3088, 3119-3150, 3184-3186; "
         "utils/hf_transformers/common.py:668-694"),
        ("cap-v4", "at most max_running_requests = {running} (V4's default), a dp worker its share",
         "sglang/srt/arg_groups/deepseek_v4_hook.py:138-145; mem_cache/kv_cache_configurator.py:3126-3129"),
        ("admission", ("admitting a request reserves in the window pool max(chunk − W, 0) + min(prompt, W) + a page "
                       "positions (its decode tokens up to the window not counted)"),
         "sglang/srt/mem_cache/prefill_budget.py:27-59, 230-262, 303-316"),
        fields=_PLAN_FIELDS,
    ),
}


class EngineError(ValueError):
    """A model or precision the engine's rules here do not price; `why` names which (i18n's eng.none.<why>)."""

    def __init__(self, message: str, why: str):
        super().__init__(message)
        self.why = why


@dataclass(frozen=True)
class Held:
    """What `layers` alike layers hold for one request on one rank: `blocks` blocks of `tokens`
    tokens, each `page` bytes a layer, drawn from `pool`. In a packed pool (`packed`, vLLM's for V4) `page`
    is one block of the pool, the group's layers' pages side by side and padded to the largest group's."""

    what: str  # full | window | state | index | compressed m=4 | compressor m=4 …
    layers: int
    tokens: int  # tokens a block spans (0: a state slot)
    page: int  # bytes a layer's block takes, padding included (packed: the whole block's)
    blocks: object  # blocks held at the context (int or array)
    pool: str = "kv"
    packed: bool = False
    window: int = 0  # a sliding part's window in tokens (vLLM's window specs, SGLang's window pool); 0 elsewhere

    @property
    def nbytes(self):
        return (1 if self.packed else self.layers) * self.page * self.blocks

    @property
    def fixed(self) -> bool:
        """Held whatever the context once full: a window's blocks, a state, a compressor's sliding state."""
        return self.what == "window" or self.what.startswith(("state", "compressor"))

    @property
    def per_token(self) -> Fraction:
        """Bytes a long context adds per token: a growing part's page over its span; 0 for a fixed part."""
        return Fraction((1 if self.packed else self.layers) * self.page, self.tokens) if not self.fixed else Fraction(0)


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
        layers = self.model.count(lambda ly: ly.stores_global and ly.ratio == 128 and ly.kind in V4_KINDS)
        if self.engine != "sglang" or not layers:
            return 0
        ring = SGLANG_V4_RING[128]
        rows = _round_up((max(1, SGLANG_V4_RUNNING // dp) + 1) * ring + ring + 1, 128)
        return rows * 2 * self.model.dims.head_dim * V4_STATE_BYTES * layers

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
            if self.engine == "vllm":
                reserve = -(-(h.window - 1 + VLLM_IN_FLIGHT * chunk) // h.tokens) + 1
                steady = -(-(h.window - 1) // h.tokens) + 1
            else:
                positions = max(chunk - h.window, 0) + h.window + h.tokens
                reserve = -(-positions // h.tokens)
                steady = -(-(_round_up(max(h.window, h.tokens), h.tokens) + h.tokens - 1) // h.tokens)
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
    build = _vllm if engine == "vllm" else _sglang
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
    keys whole on each rank, is kept for `_sglang` and tested there.)"""
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
        return "no attention cache to split by token", "core/engines.py (dcp_supported)"
    if "CSA2" in kinds:
        return "CSA2 layers are in neither engine's release read", "core/engines.py (allocation)"
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
    one = _mtp_layer_parameters(m) if layers else None
    return layers * one if one else 0


def vllm_batch(gpu) -> tuple[int, int]:
    """`vllm serve`'s max_num_batched_tokens and max_num_seqs on this GPU: the first row of VLLM_BATCH_TIERS whose
    least bytes its reported memory reaches, an A100 skipping the 70 GiB row (arg_utils.py:3020-3024)."""
    g = get_gpu(gpu)
    total, a100 = g.reported_bytes, "a100" in g.name.lower() or "a100" in g.id.lower()
    return next((tokens, seqs) for least, tokens, seqs in VLLM_BATCH_TIERS
                if total >= least and not (a100 and least == VLLM_BATCH_TIERS[1][0]))


def request_cap(model: Model | str, engine: str, gpu, *, kv_tokens: int | None = None,
                state_slots: int | None = None, parallel: Parallel = ONE_GPU) -> tuple[int | None, Rule | None]:
    """The most requests one scheduler of `engine` runs at once whatever the memory (one data-parallel rank of
    `parallel`; a node of dp ranks runs dp times as many), and the rule that says so; (None, None) for the theory,
    or where the cap depends on a pool size not given.

    vLLM: `vllm serve`'s max_num_seqs by the GPU's total memory (VLLM_BATCH_TIERS: 1,024 on an H100 or H200).
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
    R = PLAN_RULES[engine]
    if engine == "vllm":
        return vllm_batch(g)[1], R["cap"]
    if any(ly.kind in V4_KINDS for ly in m.layers):
        cap = max(1, SGLANG_V4_RUNNING // parallel.dp)
        return (cap if kv_tokens is None else min(cap, kv_tokens // 2)), R["cap-v4"]
    if kv_tokens is None:
        return None, None
    estimated = int(kv_tokens / sglang_context_length(m) * SGLANG_RUNNING_PER_CONTEXT)
    cap = min(max(min(estimated, SGLANG_RUNNING_BOUNDS[1]), SGLANG_RUNNING_BOUNDS[0]), kv_tokens // 2)
    if m.state:
        if state_slots is None:
            return None, None
        slots = SGLANG_STATE_SLOTS + SGLANG_TRACKING_SLOTS * (m.family in SGLANG_EXTRA_BUFFER_FAMILIES)
        cap = min(cap, state_slots // slots)
    return cap, R["cap"]


def sglang_context_length(model: Model | str) -> int:
    """The context length SGLang takes for a model (its model_config.context_len, get_context_length): the first
    of SGLANG_CONTEXT_KEYS its config has, × the rope scaling factor where one is given without
    original_max_position_embeddings and not of type llama3; 2,048 without (utils/hf_transformers/common.py:668-694).
    Read from the config on file, not the one transformers would build (which may add defaults)."""
    c = published_config(get(model)) or {}
    rope = c.get("rope_scaling") or {}
    factor = rope.get("factor", 1) if isinstance(rope, dict) else 1
    if isinstance(rope, dict) and ("original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3"):
        factor = 1
    for key in SGLANG_CONTEXT_KEYS:
        if c.get(key) is not None:
            return int(factor * c[key])
    return SGLANG_DEFAULT_CONTEXT


# --- bytes a token takes in each kind of layer, on one rank --------------------------------


def _kv_heads(m: Model, sliding: bool) -> tuple[int, int, int]:
    d = m.dims
    kv, k = d.num_key_value_heads or d.num_attention_heads, d.head_dim or d.hidden_size // d.num_attention_heads
    v = d.v_head_dim or k
    if sliding:
        kv, k = d.swa_num_key_value_heads or kv, d.swa_head_dim or k
        v = d.swa_v_head_dim or (k if d.swa_head_dim else v)
    return kv, k, v


def _gqa_token(m: Model, sliding: bool, element: int, tp: int) -> int:
    """K and V of the KV heads one rank holds: max(1, heads // tp), as both engines split them
    (vllm/config/model.py:1683-1703; sglang configs/model_config.py:1700-1711)."""
    kv, k, v = _kv_heads(m, sliding)
    return max(1, kv // tp) * (k + v) * element


def _element(p: cost.Precision, m: Model, role: str) -> int:
    """The engine's element size for a role: 2 in BF16, 1 in any FP8 (a per-layer scale, none in the pages)."""
    name = p.of(m.component(role))
    if name == "fp4":
        raise EngineError(f"{m.name}: FP4 {role.replace('_', ' ')} is not a KV cache dtype either engine offers here",
                          "fp4")
    return 2 if name == "bf16" else 1


def _theory(m: Model, p: cost.Precision, role: str) -> int:
    """The theory's bytes of one entry of a role in the precision asked for."""
    c = m.component(role)
    return c.layout(p.of(c)).nbytes


def _differs(engine_bytes: int, m: Model, p: cost.Precision, role: str, rule: Rule, rules: list[Rule]) -> int:
    """`engine_bytes`, noting `rule` where the theory stores the role's entry in other bytes."""
    if engine_bytes != _theory(m, p, role):
        rules.append(rule)
    return engine_bytes


def _mla_token(m: Model, p: cost.Precision, engine: str, dsa: bool, rules: list[Rule]) -> int:
    """MLA's latent and RoPE key: 576 values in BF16; in FP8, a sparse (DSA) model's scaled layout (656 B),
    a dense one's 576 B with one scale a layer."""
    d = m.dims
    n = d.kv_lora_rank + d.qk_rope_head_dim
    if _element(p, m, "main_kv") == 2:
        return 2 * n
    nbytes = F.mla_fp8(d.kv_lora_rank, d.qk_rope_head_dim).nbytes if dsa else n
    return _differs(nbytes, m, p, "main_kv", RULES[engine]["dsa-fp8" if dsa else "mla-fp8"], rules)


def _index_token(m: Model, p: cost.Precision, engine: str, rules: list[Rule], rule: str = "index-fp8") -> int:
    """An indexer key: FP8 with an FP32 scale per 128 whatever the cache dtype; V4's too on a Hopper GPU by default
    (vLLM's MXFP4 index cache needs Blackwell, SGLang's a switch: `rule` "v4-index")."""
    nbytes = F.fp8_blocks(m.dims.index_head_dim).nbytes
    return _differs(nbytes, m, p, "index_key", RULES[engine][rule], rules)


def _v4_entry(m: Model, p: cost.Precision, engine: str, rules: list[Rule]) -> int:
    """V4's K = V entry: both engines store it in the 584-B FP8 layout, whatever --kv-cache-dtype says."""
    nbytes = F.v4_fp8(m.dims.head_dim, m.dims.qk_rope_head_dim).nbytes
    for role in ("main_kv", "local_kv"):
        _differs(nbytes, m, p, role, RULES[engine]["v4-layout"], rules)
    return nbytes


def _round_up(x: int, to: int) -> int:
    return -(-x // to) * to


def _state_bytes(m: Model, tp: int, ssm_fp32: bool = False) -> int:
    """One state layer's state on one rank (its heads split by tp); with ssm_fp32, the recurrent part FP32."""
    s = m.state
    bits = sum(v * (32 if ssm_fp32 and what != "convolution" else dt.bits) for what, v, dt in s.parts)
    return -(-bits // 8 // tp)


# --- vLLM ----------------------------------------------------------------------------------


def _vllm(m: Model, n, p: cost.Precision, tp: int, block: int | None, hybrid: bool, dcp: int = 1, spec: int = 0,
          draft: int = 0):
    R, rules = VLLM_RULES, []
    kinds = {ly.kind for ly in m.layers}
    if kinds & set(V4_KINDS):
        return _vllm_v4(m, n, p, rules)
    B = block or VLLM_BLOCK
    if block is None:
        rules.append(R["block"])
    if "DSA" in kinds and B % DSA_BLOCK:
        B = _round_up(B, DSA_BLOCK)
        rules.append(R["dsa-block"])
    B = _round_up(B, VLLM_KERNEL_MULTIPLE)
    per: dict[str, int] = {}  # bytes a token takes in one layer of each spec
    for ly in m.layers:
        if ly.shared:
            continue  # allocates nothing, as the theory says
        if ly.kind in ("MHA", "GQA"):
            per["full"] = _gqa_token(m, False, _element(p, m, "main_kv"), tp)
        elif ly.kind == "SWA":
            per["window"] = _gqa_token(m, True, _element(p, m, "local_kv"), tp)
        elif ly.kind in ("MLA", "DSA"):
            per["full"] = _mla_token(m, p, "vllm", ly.kind == "DSA", rules) + (
                _index_token(m, p, "vllm", rules) if ly.kind == "DSA" else 0)
    if _element_is_fp8_block(m, p):
        rules.append(R["fp8-scale"])
    counts = _spec_counts(m, hybrid)
    if spec:  # the MTP layers: full-attention layers of the model's kind, grouped with the rest
        if draft:
            if "full" not in per:
                raise EngineError(f"{m.name}: its MTP layers' attention is not read here", "spec")
            counts["full"] = counts.get("full", 0) + draft
            rules.append(PLAN_RULES["vllm"]["spec-draft"])
        rules.append(PLAN_RULES["vllm"]["spec-lookahead"])
    if m.state:
        per["state"] = _state_bytes(m, tp)
    if "window" in per and not hybrid:
        per["window-as-full"] = per.pop("window")
    pages, state_pages = _vllm_pages(m, per, B, rules)
    if spec and m.state:  # num_speculative_blocks = k pages more a state layer
        state_pages += spec
        rules.append(PLAN_RULES["vllm"]["spec-state"])
    if dcp > 1:  # every attention spec is DCP-sharded: a block spans B × dcp tokens, B of them on this rank
        pages = {k: (tokens * dcp if k != "state" else tokens, page) for k, (tokens, page) in pages.items()}
        rules.append(PLAN_RULES["vllm"]["dcp"])
    held, slots = [], n + spec  # the k speculative tokens' slots (num_lookahead_tokens)
    for kind, layers in _vllm_groups(counts, rules).items():
        tokens, page = pages[kind]
        if kind == "state":
            held.append(Held("state", layers, 0, page, n * 0 + state_pages))
        elif kind == "window":
            rules += [R["window"], R["window-reserve"]]
            held.append(Held("window", layers, tokens, page, _window_blocks(slots, m.window, tokens), window=m.window))
        else:
            held.append(Held("full", layers, tokens, page, -(-slots // tokens)))
    return held, (("kv", Fraction(1)),), rules + [R["budget"], R["log"]]


def _element_is_fp8_block(m: Model, p: cost.Precision) -> bool:
    return any(p.of(c) == F.FP8_BLOCK for c in m.components)


def _spec_counts(m: Model, hybrid: bool) -> dict[str, int]:
    """Layers of each spec that allocate: full, window (promoted to full without the hybrid manager), state."""
    counts: dict[str, int] = {}
    for ly in m.layers:
        specs = []
        if ly.kind in ATTENTION_KINDS and not ly.shared:
            specs.append("full")
        elif ly.kind == "SWA" and not ly.shared:
            specs.append("window" if hybrid else "window-as-full")
        if ly.holds_state:
            specs.append("state")
        for s in specs:
            counts[s] = counts.get(s, 0) + 1
    return counts


def _vllm_pages(m: Model, per: dict[str, int], B: int, rules: list[Rule]) -> tuple[dict, int]:
    """Each spec's (tokens a block spans, page bytes) at block size B, unified as vLLM unifies them: a hybrid
    with states raises the attention block until its page holds a state and pads the state to it
    (interface.py:1088-1140); a smaller attention page spans more tokens where it divides the largest, else
    it is padded (kv_cache_planning.py:392-454). Also the pages a state layer holds."""
    state_pages = 0
    if "state" in per:
        attn = max((v for k, v in per.items() if k != "state"), default=0)
        if attn:
            a = max(B, VLLM_MLA_STATE_ALIGN if m.dims.kv_lora_rank else VLLM_KERNEL_MULTIPLE)
            if m.state.kind == "GDN" and a % VLLM_GDN_GRID:  # align mode: checkpoints on block edges
                a = math.lcm(a, VLLM_GDN_GRID)
                rules.append(VLLM_RULES["gdn-grid"])
            B = max(B, a * -(-per["state"] // (a * attn)))
            rules.append(VLLM_RULES["state-page"])
        # prefix caching on (the default): 2 pages a state layer, and a checkpoint page for the kinds whose
        # spec declares one (Mamba2; Gated DeltaNet with FlashInfer's prefill, Hopper's)
        state_pages = 2 + (m.state.kind in VLLM_CHECKPOINT_STATES)
        rules.append(VLLM_RULES["state-pages"])
    pages = {k: (B, v * B) for k, v in per.items() if k != "state"}
    biggest = max([page for _, page in pages.values()] + [per.get("state", 0)])
    for k, (tokens, page) in pages.items():
        if page != biggest:
            pages[k] = (tokens * biggest // page, biggest) if biggest % page == 0 else (tokens, biggest)
    if "state" in per:
        pages["state"] = (0, biggest)
    return pages, state_pages


def _vllm_groups(counts: dict[str, int], rules: list[Rule]) -> dict[str, int]:
    """Layers each spec allocates: with several kinds of spec, groups of one size, the last of a kind padded
    with layers that take pages too (kv_cache_planning.py:462-602). Sliding layers promoted to full
    attention (no hybrid manager) are of the full kind."""
    if "window-as-full" in counts:
        rules.append(VLLM_RULES["no-hybrid"])
    kinds = {"full": counts.get("full", 0) + counts.get("window-as-full", 0), "window": counts.get("window", 0),
             "state": counts.get("state", 0)}
    kinds = {k: v for k, v in kinds.items() if v}
    if len(kinds) < 2:
        return dict(counts)
    low, high = min(kinds.values()), max(kinds.values())
    size = high if high < 1.5 * low else low
    out = dict(counts)
    for kind, v in kinds.items():
        padding = -(-v // size) * size - v
        if padding:
            out["full" if kind == "full" and "full" in counts else
                "window-as-full" if kind == "full" else kind] += padding
            rules.append(VLLM_RULES["groups"])
    return out


def _window_blocks(n, window: int, B: int):
    """Blocks a request holds for a window of W positions: those behind it are freed, so ⌈(W−1)/B⌉ + 1 at
    most, ⌈n/B⌉ before it fills."""
    return np.minimum(-(-n // B), -(-(window - 1) // B) + 1)


def _v4_compressed(m: Model, n, entry: int, key: int) -> list[Held]:
    """V4's compressed entries and index keys in SGLang's pools: 256-token pages holding 256/m entries of a ratio m,
    each entry page rounded up to 576 B, the index keys unpadded."""
    held = []
    for ratio in sorted({ly.ratio for ly in m.layers if ly.stores_global}):
        layers = m.count(lambda ly, r=ratio: ly.stores_global and ly.ratio == r)
        keyed = m.count(lambda ly, r=ratio: ly.stores_index_key and ly.ratio == r)
        entries, blocks = V4_BLOCK // ratio, -(-n // V4_BLOCK)
        held.append(Held(f"compressed m={ratio}", layers, V4_BLOCK, _round_up(entries * entry, V4_ALIGN), blocks))
        held.append(Held(f"index m={ratio}", keyed, V4_BLOCK, entries * key, blocks))
    return held


@dataclass(frozen=True)
class _Spec:
    """One layer's cache as vLLM's planner sees it: its uniform type (full attention, or a sliding window of
    `window` tokens), the tokens a block spans and the bytes of its page."""

    what: str
    kind: str  # full | window
    tokens: int
    window: int
    page: int


def _vllm_v4_specs(m: Model, entry: int, key: int) -> list[_Spec]:
    """V4's caches in vLLM, layer by layer: each compressed layer's entries (256/m a 256-token block,
    attention.py:817-840) and a ratio-4 layer's index keys (attention.py:868-881, 976-993), each page rounded up to
    576 B; each compressor's state (compressor.py:139-197, 290-301: 2 × coff × its width FP32 values a token, in
    pages of 4 or 8 tokens over a window of coff × m); every layer's window (sparse_swa.py:76-147: 64-token pages)."""
    d, out = m.dims, []
    for ly in m.layers:
        if ly.stores_global:
            r = ly.ratio
            out.append(_Spec("compressed", "full", V4_BLOCK, 0, _round_up(V4_BLOCK // r * entry, V4_ALIGN)))
            if ly.stores_index_key:
                out.append(_Spec("compressed", "full", V4_BLOCK, 0, _round_up(V4_BLOCK // r * key, V4_ALIGN)))
            tokens, window = V4_STATE_BLOCK[r], V4_STATE_WINDOW[r]
            for width in (d.head_dim, d.index_head_dim if ly.stores_index_key else 0):
                if width:
                    state = 2 * (window // r) * width * V4_STATE_BYTES  # kv and score, coff = window / m
                    page = _round_up(tokens * state, V4_ALIGN)
                    out.append(_Spec(f"compressor m={r}", "window", tokens, window, page))
        if ly.stores_local:
            w = VLLM_V4_WINDOW_BLOCK
            out.append(_Spec("window", "window", w, m.window, _round_up(w * entry, V4_ALIGN)))
    return out


def _approximate_gcd(values: list[int], lower: int) -> int:
    """The d ≥ lower (up to the largest value) that pads the values least to multiples of d, the larger on a tie
    (kv_cache_planning.py:923-955)."""
    best, least = max(1, lower), None
    for d in range(max(1, lower), max(values) + 1):
        pad = sum((d - x % d) % d for x in values)
        if least is None or pad < least or (pad == least and d > best):
            best, least = d, pad
    return best


def _packed_groups(specs: list[_Spec]) -> tuple[int, list[tuple[_Spec, int, int]]]:
    """vLLM's packed pool (kv_cache_planning.py:958-1085, 620-648): layers of one uniform type and block size in a
    bucket; buckets whose page sizes come in equal numbers repeat a pattern and are cut into groups of a common
    number of repeats; every block of the pool takes the bytes of the largest group's block. The block's bytes and
    each group's (a spec of it, its layers, its pages' bytes)."""
    buckets: dict[tuple, list[_Spec]] = {}
    for sp in specs:
        buckets.setdefault((sp.kind, sp.tokens, sp.window), []).append(sp)
    info = []
    for members in buckets.values():
        pages = Counter(sp.page for sp in members)  # page size -> layers
        info.append((members, pages, len(set(pages.values())) == 1))
    floor = max((max(c.values()) for _, c, even in info if even and len(c) > 1), default=0)
    repeats = _approximate_gcd([max(c.values()) for _, c, even in info if even], floor) if floor else None

    def cut(pages: Counter, even: bool) -> int:
        return -(-max(pages.values()) // repeats) if even and repeats else 1

    def widest(pages: Counter, k: int) -> int:
        return sum(-(-count // k) * page for page, count in pages.items())

    state = [repeats is None and members[0].kind == "window" for members, _, _ in info]
    anchor = max(widest(c, len(ms) if st else cut(c, even)) for (ms, c, even), st in zip(info, state))
    groups = []
    for (members, pages, even), st in zip(info, state):
        k = cut(pages, even)
        if st:  # a state bucket is cut to the states a block already holds
            k = max(k, -(-len(members) // max(anchor // members[0].page, 1)))
        if k == 1:
            groups.append((members[0], len(members), sum(sp.page for sp in members)))
            continue
        patterns = min(pages.values())  # repeats of one layer of each page size
        for i in range(k):
            n = len(range(i, patterns, k))
            groups.append((members[0], n * len(pages), n * sum(pages)))
    return max(nbytes for *_, nbytes in groups), groups


def _vllm_v4(m: Model, n, p: cost.Precision, rules: list[Rule]):
    """V4 in vLLM's packed pool: its caches (_vllm_v4_specs) grouped as _packed_groups groups them, a request
    holding blocks of each group, every block the largest group's bytes."""
    R = VLLM_RULES
    entry = _v4_entry(m, p, "vllm", rules)
    key = _index_token(m, p, "vllm", rules, "v4-index")
    block, groups = _packed_groups(_vllm_v4_specs(m, entry, key))
    held = []
    for sp, layers, _ in groups:
        blocks = -(-n // sp.tokens) if sp.kind == "full" else _window_blocks(n, sp.window, sp.tokens)
        held.append(Held(sp.what, layers, sp.tokens, block, blocks, packed=True,
                         window=sp.window if sp.kind == "window" else 0))
    rules += [R["v4-block"], R["window"], R["v4-compressor"], R["v4-packed"], R["budget"], R["log"]]
    return held, (("kv", Fraction(1)),), rules


# --- SGLang --------------------------------------------------------------------------------


def _sglang(m: Model, n, p: cost.Precision, tp: int, block: int | None, hybrid: bool, dcp: int = 1, spec: int = 0,
            draft: int = 0):
    R, rules = SGLANG_RULES, []
    kinds = {ly.kind for ly in m.layers}
    if kinds & set(V4_KINDS):
        return _sglang_v4(m, n, p, rules)
    P = block or SGLANG_PAGE
    if block is None:
        rules.append(R["page"])
    if "DSA" in kinds and P != DSA_BLOCK:
        P = DSA_BLOCK
        rules.append(R["dsa-page"])
    pooled = m.family in SGLANG_SWA_FAMILIES
    full = window = index = 0  # bytes a token takes in all full layers, in all sliding layers, in index keys
    heads_tp = tp // dcp if dcp > 1 else tp  # DCP ranks hold their group's KV heads (model_config.py:1700-1711)
    for ly in m.layers:
        if ly.shared:
            rules.append(R["shared"])  # allocated like the layer it reads, never written
        if ly.kind in ("MHA", "GQA"):
            full += _gqa_token(m, False, _element(p, m, "main_kv"), heads_tp)
        elif ly.kind == "SWA":
            one = _gqa_token(m, True, _element(p, m, "local_kv"), tp)
            window, full = (window + one, full) if pooled else (window, full + one)
        elif ly.kind in ("MLA", "DSA"):
            full += _mla_token(m, p, "sglang", ly.kind == "DSA", rules)
            index += _index_token(m, p, "sglang", rules) if ly.kind == "DSA" else 0
    if any(ly.kind == "SWA" for ly in m.layers) and not pooled:
        rules.append(R["no-swa-pool"])
    if _element_is_fp8_block(m, p):
        rules.append(R["fp8-scale"])
    slots = n + spec  # the k draft tokens' slots beside the context
    one_layer = _sglang_full_layer(m, p, tp, rules) if draft else 0  # before DCP: a draft never joins the group
    if spec:
        rules.append(PLAN_RULES["sglang"]["spec-lookahead"])
    if dcp > 1:  # the widened allocator: pages of P × dcp tokens, P rows of latent a rank, every index key whole
        pages = -(-slots // (P * dcp))
        held = [Held("full", 1, P * dcp, full * P, pages)] if full else []
        if index:
            held.append(Held("index", 1, P * dcp, index * P * dcp, pages))
        rules.append(PLAN_RULES["sglang"]["dcp"])
    else:
        pages = -(-slots // P)
        held = [Held("full", 1, P, (full + index) * P, pages)] if full + index else []
    if draft:  # the draft pool: as many tokens, MTP layers like a full layer of the model's, never DCP-split
        width = P * dcp
        held.append(Held("draft", draft, width, one_layer * width, -(-slots // width)))
        rules.append(PLAN_RULES["sglang"]["spec-draft"])
    full += index + draft * one_layer
    shares: list[tuple[str, Fraction]] = []
    if window and full:  # two pools, split by swa_full_tokens_ratio: full pool tokens × 0.8 for the window's
        cell = full + SGLANG_SWA_RATIO * window
        shares += [("kv", full / cell), ("window", SGLANG_SWA_RATIO * window / cell)]
        held.append(Held("window", 1, P, window * P, _sglang_window_pages(slots, m.window, P), "window",
                         window=m.window))
        rules += [R["swa-pool"], R["swa-evict"]]
    elif window:  # every layer slides: one pool of windows
        shares.append(("kv", Fraction(1)))
        held.append(Held("window", 1, P, window * P, _sglang_window_pages(slots, m.window, P), window=m.window))
        rules.append(R["swa-evict"])
    else:
        shares.append(("kv", Fraction(1)))
    if m.state:
        state = _state_bytes(m, tp, ssm_fp32=True)
        kv = [(pool, s / (1 + SGLANG_STATE_RATIO)) for pool, s in shares]
        shares = [*kv, ("state", SGLANG_STATE_RATIO / (1 + SGLANG_STATE_RATIO))]
        extra = m.family in SGLANG_EXTRA_BUFFER_FAMILIES  # extra_buffer: 2 tracking slots beside the 3
        state_slots = SGLANG_STATE_SLOTS + SGLANG_TRACKING_SLOTS * extra
        held.append(Held("state", m.n_state, 0, state, n * 0 + state_slots, "state"))
        rules += [R["state-pool"], R["state-extra" if extra else "state-slots"]]
        if spec:  # each running request's draft-token states (memory_pool.py:864-945)
            held.append(Held("state-spec", m.n_state, 0, _sglang_spec_state(m, tp, spec), n * 0 + 1, "state"))
            rules.append(PLAN_RULES["sglang"]["spec-state"])
        if any(what != "convolution" and dt.bits != 32 for what, _, dt in m.state.parts):
            rules.append(R["state-fp32"])
    return held, tuple(shares), rules + [R["extra-page"], R["budget"]]


def _sglang_window_pages(n, window: int, P: int):
    """Pages a request holds of its window at its worst: positions before n − W (W rounded up to whole pages)
    are freed a page at a time, so up to W + P − 1 positions stay, in ⌈(W + P − 1)/P⌉ pages; fewer before the
    window fills (and up to 127 positions more between evictions, not counted)."""
    kept = _round_up(max(window, P), P)
    return np.minimum(-(-n // P), -(-(kept + P - 1) // P))


def _sglang_full_layer(m: Model, p: cost.Precision, tp: int, rules: list[Rule]) -> int:
    """Bytes a token takes in one full-attention layer of the model (its first), as a draft (MTP) layer holds it:
    a draft ignores DCP, its heads split over all tp ranks (model_config.py:1703-1709)."""
    for ly in m.layers:
        if ly.kind in ("MHA", "GQA") and not ly.shared:
            return _gqa_token(m, False, _element(p, m, "main_kv"), tp)
        if ly.kind in ("MLA", "DSA"):
            return _mla_token(m, p, "sglang", ly.kind == "DSA", rules) + (
                _index_token(m, p, "sglang", rules) if ly.kind == "DSA" else 0)
    raise EngineError(f"{m.name}: its MTP layers' attention is not read here", "spec")


def _sglang_spec_state(m: Model, tp: int, spec: int) -> int:
    """One state layer's draft-token states for one running request on one rank: the recurrent state of each of
    the k + 1 draft tokens (FP32, SGLang's SSM dtype), and the convolution's inputs, deduplicated on CUDA for a
    linear draft chain into conv_dim × (k + 1 + K − 2) values (dense, (k + 1) × (K − 1) a conv_dim, for KDA)
    (memory_pool.py:135-150, 600-632, 864-945). K: the config's convolution kernel."""
    c = published_config(m) or {}
    kernel = next((c[k] for k in CONV_KERNEL_KEYS if isinstance(c.get(k), int)), None)
    if kernel is None and isinstance(c.get("linear_attn_config"), dict):
        kernel = c["linear_attn_config"].get("short_conv_kernel_size")
    if not kernel:
        raise EngineError(f"{m.name}: its convolution kernel is not in a config on file", "spec")
    drafts, bits = spec + 1, 0
    for what, values, dt in m.state.parts:
        if what == "convolution":
            conv_dim = values // (kernel - 1)
            columns = drafts * (kernel - 1) if m.state.kind == "KDA" else drafts + kernel - 2
            bits += conv_dim * columns * dt.bits
        else:
            bits += drafts * values * 32
    return -(-bits // 8 // tp)


def _sglang_v4(m: Model, n, p: cost.Precision, rules: list[Rule]):
    """V4: a pool of full tokens (each ratio's entries, 256/m a page rounded up to 576 B, and FP8 index keys) and a
    window pool sized 0.1 of it (pages of 256 positions in every layer, and a ratio-4 compress-state ring for each
    window page); the ratio-128 rings set aside before both (Allocation.reserved)."""
    R = SGLANG_RULES
    d = m.dims
    entry = _v4_entry(m, p, "sglang", rules)
    key = _index_token(m, p, "sglang", rules, "v4-index")
    held = _v4_compressed(m, n, entry, key)
    window_page = _round_up(V4_BLOCK * entry, V4_ALIGN)
    pages = _sglang_window_pages(n, m.window, V4_BLOCK)
    held.append(Held("window", m.n_windowed, V4_BLOCK, window_page, pages, "window", window=m.window))
    c4 = m.count(lambda ly: ly.stores_global and ly.ratio == 4)
    if c4:  # kv and score, 2 × coff values of each width a row (pool_configurator.py:1372-1388)
        coff = V4_STATE_WINDOW[4] // 4
        row = 2 * coff * (d.head_dim + d.index_head_dim) * V4_STATE_BYTES
        held.append(Held("compressor m=4", c4, V4_BLOCK, SGLANG_V4_RING[4] * row, pages, "window", window=m.window))
    full = sum((h.per_token for h in held if h.pool == "kv"), start=Fraction(0))
    window = SGLANG_V4_SWA_RATIO * Fraction(sum(h.layers * h.page for h in held if h.pool == "window"), V4_BLOCK)
    cell = full + window
    rules += [R["v4-page"], R["v4-pools"], R["swa-evict"], R["v4-compressor"], R["budget"]]
    return held, (("kv", full / cell), ("window", window / cell)), rules


def per_token(model: Model | str, precision: cost.Precision = cost.DEPLOYED, engine: str = "theory", **kw):
    """Bytes of the KV budget a long context adds per token: the theory's storage_per_token, or the engine's."""
    if engine == "theory":
        return cost.storage_per_token(model, precision).total
    return allocation(model, 1, precision, engine, **kw).per_token


def fixed(model: Model | str, precision: cost.Precision = cost.DEPLOYED, engine: str = "vllm", **kw) -> int:
    """What a request holds whatever its length once its windows are full: its windows' blocks and its states."""
    a = allocation(model, FULL_WINDOWS, precision, engine, **kw)
    return sum(h.nbytes for h in a.held if h.fixed)
