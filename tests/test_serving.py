"""The GPU plan as an engine runs it (core.serving): each engine's own budget under each count, the caps, the
assumptions said on a count, and the question asked the other way round; values worked out by hand from
tests/test_budget.py's budgets and docs/engine-vectors.md's allocations."""

from __future__ import annotations

from fractions import Fraction

import pytest

from core import DEPLOYED, capacity
from core.parallel import Parallel
from core.serving import Refused, longest_context, serve

N = 131_072
TP8 = Parallel(tp=8)
GiB = 1 << 30
# DeepSeek-V3.2 on 8 × H200 at TP 8, FP8 weights (tests/test_budget.py): each rule's pool on one GPU
VLLM_POOL, SGLANG_POOL, THEORY_POOL = 59_959_218_496, 48_742_435_348, 43_025_000_000
# a request's latent in the deployed FP8 layout (656 B) and its index key (132 B), whole on every TP rank:
# 61 layers × 788 B a token, in vLLM's and SGLang's 64-token pages
V32_SHARE = 61 * (656 + 132) * N
assert V32_SHARE == 6_300_368_896


def test_v32_on_8_h200s_fills_each_engines_own_pool():
    vllm, sglang = serve("v3.2", N, "h200", "vllm", TP8), serve("v3.2", N, "h200", "sglang", TP8)
    assert (vllm.budget.pool, vllm.share, vllm.pool) == (VLLM_POOL, V32_SHARE, VLLM_POOL)
    assert vllm.requests == VLLM_POOL // V32_SHARE == 9
    assert (sglang.budget.pool, sglang.share) == (SGLANG_POOL, V32_SHARE)
    assert sglang.requests == SGLANG_POOL // V32_SHARE == 7
    theory = serve("v3.2", N, "h200", "theory", TP8)
    flat = capacity.plan("v3.2", N, "h200", 671 * 10**9, DEPLOYED, parallel=TP8)  # the planner's own rule
    assert theory.budget.pool == flat.kv_budget_per_gpu_bytes == THEORY_POOL
    assert theory.requests == flat.max_requests


def test_an_assumption_that_moves_a_count_more_than_a_tenth_is_said():
    """vLLM, Kimi K2 (BF16 latent, 61 × 1,152 B a token) at 8,192 tokens on 8 × H200: 32 requests. Without the
    assumed 2 GiB of graphs the pool holds 36 (+12 %); without the estimated activation peak (and the margin it
    sets above the 1 GiB floor) 37; without the 1 GiB runtime 34 (+6 %): not said."""
    s = serve("kimi-k2", 8192, "h200", "vllm", TP8)
    share, pool, b = 61 * 1_152 * 8192, s.pool, s.budget
    assert (s.share, s.requests) == (share, pool // share) == (575_668_224, 32)
    said = {a.part: (a.nbytes, a.without) for a in s.assumptions}
    assert said == {"graphs": (2 * GiB, (pool + 2 * GiB) // share),
                    "activations": (b.activations, (pool + b.activations + b.margin - GiB) // share)}
    assert (said["graphs"][1], said["activations"][1]) == (36, 37)
    assert (pool + GiB) // share == 34  # the runtime moves it 6 %: not said


def test_sglangs_pool_gains_only_its_fraction_of_the_runtime():
    """SGLang's pool is ⌊f × the free memory⌋ less the weights (f = mem_fraction_static, 443/500 for Kimi K2 at
    TP 8 on an H200): without the assumed 1 GiB runtime it grows by ⌊f × total⌋ − ⌊f × (total − 1 GiB)⌋ =
    951,335,257 B (443/500 × 1,073,741,824 = 951,335,256.06), not 1 GiB. Kimi K2 at 8,192 tokens (61 × 1,152 B a
    token): 13 requests, 14 without the runtime (+8 %: not said; the whole GiB would have made it 15)."""
    from core.budget import sglang_fraction
    s = serve("kimi-k2", 8192, "h200", "sglang", TP8)
    share, pool, total = 61 * 1_152 * 8192, s.pool, s.budget.total
    assert sglang_fraction("kimi-k2", "h200", TP8).fraction == Fraction(443, 500)
    assert total * 443 // 500 - (total - GiB) * 443 // 500 == 951_335_257
    assert (s.share, s.requests) == (share, pool // share) == (575_668_224, 13)
    assert ((pool + 951_335_257) // share, (pool + GiB) // share) == (14, 15)
    assert s.assumptions == ()


def test_the_longest_context_for_n_requests_is_the_last_that_fits():
    """vLLM holds a V3.2 request in 64-token blocks of 61 × 788 B a token: 5 requests of k blocks fit while
    5 × 61 × 788 × 64 × k ≤ 59,959,218,496, so k = 3,898, 249,472 tokens."""
    assert VLLM_POOL // (5 * 61 * 788 * 64) == 3_898
    n = longest_context("v3.2", 5, "h200", "vllm", TP8)
    assert n == 3_898 * 64 == 249_472
    assert serve("v3.2", n, "h200", "vllm", TP8).requests >= 5 > serve("v3.2", n + 1, "h200", "vllm", TP8).requests
    assert longest_context("v3.2", 6, "h200", "vllm", TP8) < n
    assert longest_context("v3.2", 10**6, "h200", "vllm", TP8) == 0  # not even at one token


def test_a_layout_the_engine_refuses_is_not_priced():
    with pytest.raises(Refused, match="divisible"):
        serve("llama-3.1-8b", 8192, "h200", "vllm", Parallel(tp=3))
    with pytest.raises(Refused):
        longest_context("llama-3.1-8b", 1, "h200", "vllm", Parallel(tp=3))


@pytest.mark.parametrize("bad", [0, -1, 1 << 31, 1.5, "8192"])
def test_a_context_out_of_range_is_one_clear_error(bad):
    with pytest.raises(ValueError, match="context"):
        serve("v3.2", bad, "h200", "vllm", TP8)


def test_the_schedulers_cap_binds_where_memory_would_hold_more():
    """vLLM's max_num_seqs on an H200 is 1,024 (arg_utils.py:3010-3043): Llama 3.1 8B at 8,192 tokens, TP 8,
    memory for more; SGLang runs at most 256 V4 requests (deepseek_v4_hook.py:138-145)."""
    llama = serve("llama-3.1-8b", 8192, "h200", "vllm", TP8)
    assert llama.by_memory == llama.pool // llama.share > 1_024 and llama.requests == llama.cap == 1_024
    assert llama.capped
    v4 = serve("v4-flash", 8192, "h200", "sglang", TP8)
    assert v4.by_memory > 256 and v4.requests == 256 and v4.capped
    assert serve("v3.2", N, "h200", "vllm", TP8).capped is False


def test_what_comes_off_the_pool_before_any_request():
    """SGLang's ratio-128 rings for V4 (core.engines.Allocation.reserved), and the sliding layers' reserve for one
    prefill chunk; both come off each GPU's pool before requests are counted."""
    from core.engines import allocation
    v4 = serve("v4-flash", N, "h200", "sglang", TP8)
    one = allocation("v4-flash", 1, DEPLOYED, "sglang", tp=8)
    assert v4.set_aside == one.reserved() == 2_715_811_840
    # chunked_prefill_size 8,192 on an H200; V4's window pool (43 window layers of 149,760 B a 256-token page, 21
    # compressor layers of 81,920 B, W = 128) reserves max(8192 − 128, 0) + 128 + 256 = 8,448 positions, ⌈8448 / 256⌉
    # = 33 pages, against the ⌈(256 + 255) / 256⌉ = 2 it keeps (docs/engine-vectors.md's admission rule):
    # (33 − 2) × (43 × 149760 + 21 × 81920) = 31 × 8,160,000
    assert v4.admission == 31 * (43 * 149_760 + 21 * 81_920) == 252_960_000
    assert v4.pool == v4.budget.pool - v4.set_aside - v4.admission
    assert v4.by_memory == v4.pool // v4.share


def test_what_comes_off_the_pool_is_taken_per_pipeline_stage():
    """At PP 2 each stage's GPUs hold half V4-Flash's layers, so half its ratio-128 rings: the set-aside is the
    most loaded stage's (as core.capacity.engine_reserved_bytes), not the whole model's 2,715,811,840 B."""
    from core.capacity import engine_reserved_bytes
    pp2 = Parallel(tp=4, pp=2)
    v4 = serve("v4-flash", N, "h200", "sglang", pp2)
    assert v4.set_aside == engine_reserved_bytes("v4-flash", DEPLOYED, pp2, "sglang") == 1_357_905_920
    assert v4.set_aside == 2_715_811_840 // 2
    assert v4.admission < serve("v4-flash", N, "h200", "sglang", TP8).admission


def test_dcp_over_as_many_ranks_as_the_engine_accepts():
    """V3.2's sparse FP8 decode kernel pads a rank's heads to 64: at TP 8 a rank has 128 / 8 = 16, and DCP 8
    would gather 128 (padded to 128), DCP 4 gathers 64 (padded to 64, as the local 16): vLLM takes DCP 4."""
    from core.serving import widest_dcp
    assert widest_dcp("v3.2", "vllm", 8) == 4
    assert widest_dcp("kimi-k2", "vllm", 8) == 8
    assert widest_dcp("v4-flash", "vllm", 8) is None  # V4's sliding windows: no DCP
    tp, dcp = serve("v3.2", N, "h200", "vllm", TP8), serve("v3.2", N, "h200", "vllm", Parallel(tp=8, dcp=4))
    assert dcp.pool == tp.pool and dcp.share < tp.share and dcp.requests == dcp.pool // dcp.share > tp.requests


def test_speculative_decoding_takes_the_draft_weights_and_its_kv():
    """V3.2's MTP layer: V3's 11,610,030,080 parameters (docs/engine-vectors.md) and its lightning indexer's
    1536 × 64 × 128 + 7168 × (128 + 64) = 13,959,168: 11,623,989,248 parameters, at 1 B each over TP 8
    ⌈11623989248 / 8⌉ = 1,452,998,656 B a GPU."""
    from core.engines import allocation
    plain, spec = serve("v3.2", N, "h200", "vllm", TP8), serve("v3.2", N, "h200", "vllm", TP8, spec=1)
    assert 11_610_030_080 + 1536 * 64 * 128 + 7168 * (128 + 64) == 11_623_989_248
    assert spec.draft_weights == -(-11_623_989_248 // 8) == 1_452_998_656
    assert spec.share == allocation("v3.2", N, DEPLOYED, "vllm", tp=8, spec=1).charge > plain.share
    assert spec.pool == plain.pool - spec.draft_weights
    with pytest.raises(ValueError, match="theory"):
        serve("v3.2", N, "h200", "theory", TP8, spec=1)
    from core.serving import MAX_SPEC
    assert MAX_SPEC == 8 and serve("v3.2", N, "h200", "vllm", TP8, spec=8).draft_weights == spec.draft_weights
    with pytest.raises(ValueError, match="spec"):
        serve("v3.2", N, "h200", "vllm", TP8, spec=9)
