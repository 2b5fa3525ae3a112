"""What vLLM 0.34.0 allocates for a model's KV cache: its rules (VLLM_RULES, and VLLM_PLAN_RULES for the
planner's modes), its defaults, and `allocate`, what one request holds on one GPU rank.

Read from its released source, the PyPI wheel (vllm/_version.py: commit 62d4bc3c7). Defaults are vLLM's on a
Hopper GPU (H100, H200): blocks of 64 tokens, FlashMLA for MLA, FlashInfer's prefill for Gated DeltaNet. A
request holds whole blocks in every layer; layers of different kinds share one page size, in groups of one size
(kv_cache_planning.py); a state takes pages of the attention page's bytes; V4's caches share one packed pool.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import cost
from ..gpus import get_gpu
from ..models import ATTENTION_KINDS, Model
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
    V4_STATE_BLOCK,
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

VLLM_BLOCK = 64  # vllm/config/cache.py:185
VLLM_V4_WINDOW_BLOCK = 64
VLLM_KERNEL_MULTIPLE = 16  # FlashAttention, Triton: MultipleOf(16)
VLLM_MLA_STATE_ALIGN = 128  # the least kernel alignment for an MLA hybrid's block (interface.py:1100)
VLLM_UTILIZATION = ("0.92", "1.0")  # gpu_memory_utilization, without and with the extensible KV cache
VLLM_IN_FLIGHT = 2  # batches in flight with async scheduling (pp + 1): the window's admission reserve
# vLLM's state kinds whose spec declares a prefill checkpoint page with prefix caching on a Hopper GPU: Mamba2
# (mamba_mixer2.py:1089-1099) and Gated DeltaNet, whose prefill is FlashInfer's on SM90
# (qwen_gdn_linear_attn.py:321-344, 848-858, 901-911); its checkpoints sit on a 64-token grid (gdn_attn.py:35)
VLLM_CHECKPOINT_STATES = ("Mamba2", "GDN")
VLLM_GDN_GRID = 64
GiB = 1 << 30
# `vllm serve`'s (OPENAI_API_SERVER) max_num_batched_tokens and max_num_seqs by the GPU's total memory,
# vllm/engine/arg_utils.py:3010-3043: (at least this many bytes, tokens, sequences). An A100 (and a GB10) of 70 GiB
# and more takes the last row (arg_utils.py:3020-3024).
VLLM_BATCH_TIERS = ((160 * GiB, 16_384, 1_024), (70 * GiB, 8_192, 1_024), (0, 2_048, 256))
# vLLM's FlashMLA sparse FP8 decode kernel takes 64 or 128 query heads; DCP gathers dcp × the rank's heads, which
# must pad like the rank's own, and only a rank of fewer than 32 heads runs the mixed batch DCP needs
# (v1/attention/backends/mla/flashmla_sparse.py:75, 447-451, 460-493, 730-733)
VLLM_SPARSE_FP8_MIXED_HEADS = 32
_FIELDS = {
    **FIELDS, "block": VLLM_BLOCK, "v4w": VLLM_V4_WINDOW_BLOCK, "util": VLLM_UTILIZATION[0],
    "util2": VLLM_UTILIZATION[1], "flight": VLLM_IN_FLIGHT, "grid": VLLM_GDN_GRID, "s4": V4_STATE_BLOCK[4],
    "s128": V4_STATE_BLOCK[128], "w4": V4_STATE_WINDOW[4], "w128": V4_STATE_WINDOW[128],
}
VLLM_RULES = rule_table(
    "vllm",
    ("block", "a request holds whole pages (vLLM's blocks) of {block} tokens by default in every layer",
     "vllm/config/cache.py:185; vllm/platforms/interface.py:759-800"),
    ("dsa-block", "sparse MLA and its indexer need pages of a multiple of {dsa} tokens",
     "vllm/v1/attention/backends/mla/flashmla_sparse.py:165-173; mla/indexer.py:237-238"),
    ("v4-block", ("V4's compressed entries and index keys in pages of {v4} tokens (one entry per m tokens), its "
                  "windows in pages of {v4w}, every page rounded up to {align} B"),
     "vllm/models/deepseek_v4/sparse_mla.py:60-61; v1/attention/backends/mla/sparse_swa.py:76-150"),
    ("mla-fp8", MLA_FP8, "vllm/model_executor/layers/attention/mla_attention.py:490"),
    ("dsa-fp8", DSA_FP8, "vllm/v1/attention/backend.py:1017-1018; mla_attention.py:367-377"),
    ("index-fp8", INDEX, "vllm/model_executor/models/deepseek_v2.py:724-736"),
    ("v4-layout", V4_LAYOUT, "vllm/models/deepseek_v4/attention.py:95-124, 817-840"),
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
    ("fp8-scale", SCALE, "vllm/model_executor/layers/attention/attention.py:148-165"),
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
    fields=_FIELDS,
)
# the planner's modes: decode context parallelism, speculative decoding, the cap on running requests, admission
VLLM_PLAN_RULES = rule_table(
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
    fields={"flight": VLLM_IN_FLIGHT},
)


def allocate(m: Model, n, p: cost.Precision, tp: int, block: int | None, hybrid: bool, dcp: int = 1, spec: int = 0,
             draft: int = 0):
    """What one request at context n holds on one of tp ranks under vLLM: its parts (Held), each pool's share of
    the KV budget (one pool) and the rules it follows (core.engines.allocation checks the arguments)."""
    R, rules = VLLM_RULES, []
    kinds = {ly.kind for ly in m.layers}
    if kinds & set(V4_KINDS):
        return _vllm_v4(m, n, p, rules)
    B = block or VLLM_BLOCK
    if block is None:
        rules.append(R["block"])
    if "DSA" in kinds and B % DSA_BLOCK:
        B = round_up(B, DSA_BLOCK)
        rules.append(R["dsa-block"])
    B = round_up(B, VLLM_KERNEL_MULTIPLE)
    per: dict[str, int] = {}  # bytes a token takes in one layer of each spec
    for ly in m.layers:
        if ly.shared:
            continue  # allocates nothing, as the theory says
        if ly.kind in ("MHA", "GQA"):
            per["full"] = gqa_token(m, False, element_bytes(p, m, "main_kv"), tp)
        elif ly.kind == "SWA":
            per["window"] = gqa_token(m, True, element_bytes(p, m, "local_kv"), tp)
        elif ly.kind in ("MLA", "DSA"):
            per["full"] = mla_token(m, p, VLLM_RULES, ly.kind == "DSA", rules) + (
                index_token(m, p, VLLM_RULES, rules) if ly.kind == "DSA" else 0)
    if element_is_fp8_block(m, p):
        rules.append(R["fp8-scale"])
    counts = _spec_counts(m, hybrid)
    if spec:  # the MTP layers: full-attention layers of the model's kind, grouped with the rest
        if draft:
            if "full" not in per:
                raise EngineError(f"{m.name}: its MTP layers' attention is not read here", "spec")
            counts["full"] = counts.get("full", 0) + draft
            rules.append(VLLM_PLAN_RULES["spec-draft"])
        rules.append(VLLM_PLAN_RULES["spec-lookahead"])
    if m.state:
        per["state"] = state_bytes(m, tp)
    if "window" in per and not hybrid:
        per["window-as-full"] = per.pop("window")
    pages, state_pages = _vllm_pages(m, per, B, rules)
    if spec and m.state:  # num_speculative_blocks = k pages more a state layer
        state_pages += spec
        rules.append(VLLM_PLAN_RULES["spec-state"])
    if dcp > 1:  # every attention spec is DCP-sharded: a block spans B × dcp tokens, B of them on this rank
        pages = {k: (tokens * dcp if k != "state" else tokens, page) for k, (tokens, page) in pages.items()}
        rules.append(VLLM_PLAN_RULES["dcp"])
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
            out.append(_Spec("compressed", "full", V4_BLOCK, 0, round_up(V4_BLOCK // r * entry, V4_ALIGN)))
            if ly.stores_index_key:
                out.append(_Spec("compressed", "full", V4_BLOCK, 0, round_up(V4_BLOCK // r * key, V4_ALIGN)))
            tokens, window = V4_STATE_BLOCK[r], V4_STATE_WINDOW[r]
            for width in (d.head_dim, d.index_head_dim if ly.stores_index_key else 0):
                if width:
                    state = 2 * (window // r) * width * V4_STATE_BYTES  # kv and score, coff = window / m
                    page = round_up(tokens * state, V4_ALIGN)
                    out.append(_Spec(f"compressor m={r}", "window", tokens, window, page))
        if ly.stores_local:
            w = VLLM_V4_WINDOW_BLOCK
            out.append(_Spec("window", "window", w, m.window, round_up(w * entry, V4_ALIGN)))
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
    entry = v4_entry(m, p, VLLM_RULES, rules)
    key = index_token(m, p, VLLM_RULES, rules, "v4-index")
    block, groups = _packed_groups(_vllm_v4_specs(m, entry, key))
    held = []
    for sp, layers, _ in groups:
        blocks = -(-n // sp.tokens) if sp.kind == "full" else _window_blocks(n, sp.window, sp.tokens)
        held.append(Held(sp.what, layers, sp.tokens, block, blocks, packed=True,
                         window=sp.window if sp.kind == "window" else 0))
    rules += [R["v4-block"], R["window"], R["v4-compressor"], R["v4-packed"], R["budget"], R["log"]]
    return held, (("kv", Fraction(1)),), rules


def admission_blocks(h: Held, chunk: int) -> tuple[int, int]:
    """Blocks a sliding part `h` holds while a request is admitted, and once its window slides: vLLM reserves
    the blocks of W − 1 + 2 × chunk positions and one more (kv_cache_interface.py:932-958) against
    ⌈(W − 1)/B⌉ + 1 (core.engines.Allocation.admission)."""
    reserve = -(-(h.window - 1 + VLLM_IN_FLIGHT * chunk) // h.tokens) + 1
    steady = -(-(h.window - 1) // h.tokens) + 1
    return reserve, steady


def vllm_batch(gpu) -> tuple[int, int]:
    """`vllm serve`'s max_num_batched_tokens and max_num_seqs on this GPU: the first row of VLLM_BATCH_TIERS whose
    least bytes its reported memory reaches, an A100 skipping the 70 GiB row (arg_utils.py:3020-3024)."""
    g = get_gpu(gpu)
    total, a100 = g.reported_bytes, "a100" in g.name.lower() or "a100" in g.id.lower()
    return next((tokens, seqs) for least, tokens, seqs in VLLM_BATCH_TIERS
                if total >= least and not (a100 and least == VLLM_BATCH_TIERS[1][0]))
