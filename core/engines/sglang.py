"""What SGLang 0.5.23 allocates for a model's KV cache: its rules (SGLANG_RULES, and SGLANG_PLAN_RULES for the
planner's modes), its defaults, and `allocate`, what one request holds on one GPU rank.

Read from its released source, the PyPI wheel, which records no commit (paths are the repository's, under
python/). Defaults are SGLang's on a Hopper GPU (H100, H200): FlashAttention 3, pages of 1 token. The pools are
split before the first request: full attention's tokens, a window pool for the sliding layers of the
architectures on its list, a state pool for a hybrid's states, V4's full and window pools and its
compress-state rings.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import cost
from ..models import Model
from ..parallel import published_config
from ..registry import get
from .common import (
    DSA_BLOCK,
    DSA_FP8,
    FIELDS,
    INDEX,
    MLA_FP8,
    SCALE,
    V4_ALIGN,
    V4_BLOCK,
    V4_KINDS,
    V4_LAYOUT,
    V4_STATE_BYTES,
    V4_STATE_WINDOW,
    EngineError,
    Held,
    Rule,
    element_bytes,
    element_is_fp8_block,
    gqa_token,
    index_token,
    mla_token,
    round_up,
    rule_table,
    state_bytes,
    v4_entry,
)

SGLANG_PAGE = 1  # sglang overrides.py:1341-1363
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
# SGLang's compress-state rings (mem_cache/deepseek_v4_memory_pool.py:60-79): rows a ring holds without
# speculative decoding; a ratio-4 ring for each page of the window pool, a ratio-128 ring for each request slot
SGLANG_V4_RING = {4: 8, 128: 128}
SGLANG_V4_RUNNING = 256  # max_running_requests, V4's default (arg_groups/deepseek_v4_hook.py:138-145)
# model types whose sliding layers SGLang keeps in a window pool (configs/model_config.py:2651-2699)
SGLANG_SWA_FAMILIES = frozenset({"gpt_oss", "llama4", "llama4_text", "gemma4", "gemma4_text", "mimo_v2_flash",
                                 "deepseek_v4", "step3p5"})
# SGLang's max_running_requests a dp worker when the user sets none (mem_cache/kv_cache_configurator.py:3119-3132):
# the pool's tokens over the context length × 512, held between these, then at most half the pool's tokens
SGLANG_RUNNING_PER_CONTEXT = 512
SGLANG_RUNNING_BOUNDS = (2048, 4096)
# SGLang's context length keys, the first a config has (utils/hf_transformers/common.py:668-694)
SGLANG_CONTEXT_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length",
                       "max_position_embeddings")
SGLANG_DEFAULT_CONTEXT = 2048
CONV_KERNEL_KEYS = ("linear_conv_kernel_dim", "conv_kernel", "mamba_d_conv")
_FIELDS = {
    **FIELDS, "page": SGLANG_PAGE, "swa": f"{float(SGLANG_SWA_RATIO):g}", "v4swa": f"{float(SGLANG_V4_SWA_RATIO):g}",
    "state": f"{float(SGLANG_STATE_RATIO):g}", "whole": f"{float(1 + SGLANG_STATE_RATIO):g}",
    "slots": SGLANG_STATE_SLOTS, "extra": SGLANG_STATE_SLOTS + SGLANG_TRACKING_SLOTS, "evict": SGLANG_EVICT - 1,
    "ring4": SGLANG_V4_RING[4], "ring128": SGLANG_V4_RING[128], "running": SGLANG_V4_RUNNING,
}
SGLANG_RULES = rule_table(
    "sglang",
    ("page", "pages of {page} token by default (FlashAttention 3 on Hopper), the pool floored to whole pages",
     "sglang/srt/arg_groups/overrides.py:1341-1363; model_executor/pool_configurator.py:637-653"),
    ("dsa-page", "sparse MLA (DSA) takes pages of {dsa} tokens",
     "sglang/srt/arg_groups/model_overrides/deepseek_v2.py:160-175"),
    ("v4-page", "V4 takes pages of {v4} tokens (one compressed entry per m), each rounded up to {align} B",
     "sglang/srt/arg_groups/model_overrides/deepseek_v4.py:51-61; kernels/ops/attention/dsv4/kv_layout.py:103-105"),
    ("mla-fp8", MLA_FP8, "sglang/srt/mem_cache/memory_pool.py:4793-4797"),
    ("dsa-fp8", DSA_FP8, "sglang/srt/mem_cache/kv_cache_configurator.py:3458-3472"),
    ("index-fp8", INDEX, "sglang/srt/model_executor/pool_configurator.py:567-573"),
    ("v4-layout", V4_LAYOUT, "sglang/srt/mem_cache/deepseek_v4_memory_pool.py:295-318"),
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
    ("fp8-scale", SCALE, "sglang/srt/layers/radix_attention.py:94-97"),
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
    fields=_FIELDS,
)
# the planner's modes: decode context parallelism, speculative decoding, the cap on running requests, admission
SGLANG_PLAN_RULES = rule_table(
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
    fields={"running": SGLANG_V4_RUNNING, "per_context": SGLANG_RUNNING_PER_CONTEXT, "low": SGLANG_RUNNING_BOUNDS[0],
            "high": SGLANG_RUNNING_BOUNDS[1], "slots": SGLANG_STATE_SLOTS,
            "extra": SGLANG_STATE_SLOTS + SGLANG_TRACKING_SLOTS},
)


def allocate(m: Model, n, p: cost.Precision, tp: int, block: int | None, hybrid: bool, dcp: int = 1, spec: int = 0,
             draft: int = 0):
    """What one request at context n holds on one of tp ranks under SGLang: its parts (Held), each pool's share
    of the KV budget and the rules it follows (core.engines.allocation checks the arguments; `hybrid`, vLLM's
    switch, is not SGLang's)."""
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
            full += gqa_token(m, False, element_bytes(p, m, "main_kv"), heads_tp)
        elif ly.kind == "SWA":
            one = gqa_token(m, True, element_bytes(p, m, "local_kv"), tp)
            window, full = (window + one, full) if pooled else (window, full + one)
        elif ly.kind in ("MLA", "DSA"):
            full += mla_token(m, p, SGLANG_RULES, ly.kind == "DSA", rules)
            index += index_token(m, p, SGLANG_RULES, rules) if ly.kind == "DSA" else 0
    if any(ly.kind == "SWA" for ly in m.layers) and not pooled:
        rules.append(R["no-swa-pool"])
    if element_is_fp8_block(m, p):
        rules.append(R["fp8-scale"])
    slots = n + spec  # the k draft tokens' slots beside the context
    one_layer = _sglang_full_layer(m, p, tp, rules) if draft else 0  # before DCP: a draft never joins the group
    if spec:
        rules.append(SGLANG_PLAN_RULES["spec-lookahead"])
    if dcp > 1:  # the widened allocator: pages of P × dcp tokens, P rows of latent a rank, every index key whole
        pages = -(-slots // (P * dcp))
        held = [Held("full", 1, P * dcp, full * P, pages)] if full else []
        if index:
            held.append(Held("index", 1, P * dcp, index * P * dcp, pages))
        rules.append(SGLANG_PLAN_RULES["dcp"])
    else:
        pages = -(-slots // P)
        held = [Held("full", 1, P, (full + index) * P, pages)] if full + index else []
    if draft:  # the draft pool: as many tokens, MTP layers like a full layer of the model's, never DCP-split
        width = P * dcp
        held.append(Held("draft", draft, width, one_layer * width, -(-slots // width)))
        rules.append(SGLANG_PLAN_RULES["spec-draft"])
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
        state = state_bytes(m, tp, ssm_fp32=True)
        kv = [(pool, s / (1 + SGLANG_STATE_RATIO)) for pool, s in shares]
        shares = [*kv, ("state", SGLANG_STATE_RATIO / (1 + SGLANG_STATE_RATIO))]
        extra = m.family in SGLANG_EXTRA_BUFFER_FAMILIES  # extra_buffer: 2 tracking slots beside the 3
        state_slots = SGLANG_STATE_SLOTS + SGLANG_TRACKING_SLOTS * extra
        held.append(Held("state", m.n_state, 0, state, n * 0 + state_slots, "state"))
        rules += [R["state-pool"], R["state-extra" if extra else "state-slots"]]
        if spec:  # each running request's draft-token states (memory_pool.py:864-945)
            held.append(Held("state-spec", m.n_state, 0, _sglang_spec_state(m, tp, spec), n * 0 + 1, "state"))
            rules.append(SGLANG_PLAN_RULES["spec-state"])
        if any(what != "convolution" and dt.bits != 32 for what, _, dt in m.state.parts):
            rules.append(R["state-fp32"])
    return held, tuple(shares), rules + [R["extra-page"], R["budget"]]


def _sglang_window_pages(n, window: int, P: int):
    """Pages a request holds of its window at its worst: positions before n − W (W rounded up to whole pages)
    are freed a page at a time, so up to W + P − 1 positions stay, in ⌈(W + P − 1)/P⌉ pages; fewer before the
    window fills (and up to 127 positions more between evictions, not counted)."""
    kept = round_up(max(window, P), P)
    return np.minimum(-(-n // P), -(-(kept + P - 1) // P))


def _sglang_full_layer(m: Model, p: cost.Precision, tp: int, rules: list[Rule]) -> int:
    """Bytes a token takes in one full-attention layer of the model (its first), as a draft (MTP) layer holds it:
    a draft ignores DCP, its heads split over all tp ranks (model_config.py:1703-1709)."""
    for ly in m.layers:
        if ly.kind in ("MHA", "GQA") and not ly.shared:
            return gqa_token(m, False, element_bytes(p, m, "main_kv"), tp)
        if ly.kind in ("MLA", "DSA"):
            return mla_token(m, p, SGLANG_RULES, ly.kind == "DSA", rules) + (
                index_token(m, p, SGLANG_RULES, rules) if ly.kind == "DSA" else 0)
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
    entry = v4_entry(m, p, SGLANG_RULES, rules)
    key = index_token(m, p, SGLANG_RULES, rules, "v4-index")
    held = _v4_compressed(m, n, entry, key)
    window_page = round_up(V4_BLOCK * entry, V4_ALIGN)
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


def _v4_compressed(m: Model, n, entry: int, key: int) -> list[Held]:
    """V4's compressed entries and index keys in SGLang's pools: 256-token pages holding 256/m entries of a ratio m,
    each entry page rounded up to 576 B, the index keys unpadded."""
    held = []
    for ratio in sorted({ly.ratio for ly in m.layers if ly.stores_global}):
        layers = m.count(lambda ly, r=ratio: ly.stores_global and ly.ratio == r)
        keyed = m.count(lambda ly, r=ratio: ly.stores_index_key and ly.ratio == r)
        entries, blocks = V4_BLOCK // ratio, -(-n // V4_BLOCK)
        held.append(Held(f"compressed m={ratio}", layers, V4_BLOCK, round_up(entries * entry, V4_ALIGN), blocks))
        held.append(Held(f"index m={ratio}", keyed, V4_BLOCK, entries * key, blocks))
    return held


def admission_blocks(h: Held, chunk: int) -> tuple[int, int]:
    """Pages a window part `h` holds while a request is admitted, and once its window slides: SGLang's window pool
    reserves max(chunk − W, 0) + W + page positions (estimate_swa_kv_tokens, prefill_budget.py:27-59) against the
    W + page − 1 it keeps (core.engines.Allocation.admission)."""
    positions = max(chunk - h.window, 0) + h.window + h.tokens
    reserve = -(-positions // h.tokens)
    steady = -(-(round_up(max(h.window, h.tokens), h.tokens) + h.tokens - 1) // h.tokens)
    return reserve, steady


def reserved(m: Model, dp: int) -> int:
    """Bytes set aside from each GPU's KV budget before any request, on one of dp attention ranks: V4's ratio-128
    compress-state rings, one for each of ⌊max_running_requests / dp⌋ + 1 request slots, rows padded to a
    multiple of 128 (pool_configurator.py:1504-1528); 0 for any other model."""
    layers = m.count(lambda ly: ly.stores_global and ly.ratio == 128 and ly.kind in V4_KINDS)
    if not layers:
        return 0
    ring = SGLANG_V4_RING[128]
    rows = round_up((max(1, SGLANG_V4_RUNNING // dp) + 1) * ring + ring + 1, 128)
    return rows * 2 * m.dims.head_dim * V4_STATE_BYTES * layers


def max_running_requests(m: Model, kv_tokens: int | None, state_slots: int | None,
                         dp: int) -> tuple[int | None, Rule | None]:
    """The most requests one dp worker runs at once when the user sets no max_running_requests, and the rule:
    V4's 256 for the server (⌊256 / dp⌋ a worker); else derived from `kv_tokens`, the full pool's tokens on one
    worker (core.engines.request_cap says how). (None, None) where a pool size it needs is not given."""
    if any(ly.kind in V4_KINDS for ly in m.layers):
        cap = max(1, SGLANG_V4_RUNNING // dp)
        return (cap if kv_tokens is None else min(cap, kv_tokens // 2)), SGLANG_PLAN_RULES["cap-v4"]
    if kv_tokens is None:
        return None, None
    estimated = int(kv_tokens / sglang_context_length(m) * SGLANG_RUNNING_PER_CONTEXT)
    cap = min(max(min(estimated, SGLANG_RUNNING_BOUNDS[1]), SGLANG_RUNNING_BOUNDS[0]), kv_tokens // 2)
    if m.state:
        if state_slots is None:
            return None, None
        slots = SGLANG_STATE_SLOTS + SGLANG_TRACKING_SLOTS * (m.family in SGLANG_EXTRA_BUFFER_FAMILIES)
        cap = min(cap, state_slots // slots)
    return cap, SGLANG_PLAN_RULES["cap"]


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
