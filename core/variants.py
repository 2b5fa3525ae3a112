"""Why published numbers disagree: each variant is a spec the cost model counts beside the article's.

A variant changes the spec, never the arithmetic: an extra layer, a precision override, a
padded layout, a wider key. It names its source and the models it changes; `core.cost` does
the counting. The article's numbers are what a model gives with no variant (`Varied.of`).
Variants apply one at a time, each against the article's default.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from functools import cache

import numpy as np

from . import cost
from . import formats as F
from .cost import ALL_BF16, DEPLOYED, Parts, Precision
from .models import MODELS, ROLES, Cache, Dims, Layer, Model
from .registry import get

SGLANG_PAGE_TOKENS = 256  # SGLang's DeepSeek-V4 page_size (model runner: "page_size must be 256")
V4_PAGE_ALIGN = 576  # KVLayout.V4.page_align: a page's stride is a multiple of the 576-B TMA row
EVERY_POSITION = int(np.iinfo(np.int64).max)  # a top-k no context reaches: every position is read
MTP_LAYERS = 1  # config num_nextn_predict_layers (V3, V3.2)


@dataclass(frozen=True)
class Spec:
    """A spec and the precision its bytes are counted in."""

    model: Model
    precision: Precision = DEPLOYED


@dataclass(frozen=True)
class Varied:
    """A variant applied to one model: the specs whose stored bytes add up, and those a decode step reads."""

    stored: tuple[Spec, ...]
    read: tuple[Spec, ...]

    @classmethod
    def of(cls, model: Model | str, precision: Precision = DEPLOYED) -> Varied:
        """One spec, stored and read as it is (the article's default with DEPLOYED)."""
        spec = (Spec(get(model), precision),)
        return cls(spec, spec)

    def storage_per_token(self) -> Parts:
        return _sum(cost.storage_per_token(s.model, s.precision) for s in self.stored)

    def cache_at(self, n) -> Parts:
        return _sum(cost.cache_at(s.model, n, s.precision) for s in self.stored)

    def reads(self, n) -> Parts:
        return _sum(cost.reads(s.model, n, s.precision) for s in self.read)


def _sum(parts) -> Parts:
    parts = list(parts)
    return Parts(*(sum(getattr(p, f.name) for p in parts) for f in fields(Parts)))


@dataclass(frozen=True, kw_only=True)
class Variant:
    id: str  # its name and what it changes are i18n's (var.<id>, var.<id>.desc)
    source: str  # URL or reference
    models: tuple[str, ...]  # the model ids it changes
    vary: Callable[[Model], Varied] = field(repr=False)

    def apply(self, model: Model | str) -> Varied:
        """The model under this variant; a model it does not change stays the article's."""
        m = get(model)
        return self.vary(m) if m.id in self.models else Varied.of(m)

    def ratio(self, model: Model | str, base: Model | str = "mha") -> float:
        """How many times smaller the model's per-token storage is than `base`'s, both under this variant."""
        return self.apply(base).storage_per_token().total / self.apply(model).storage_per_token().total


# --- the specs ------------------------------------------------------------------------


@cache
def _fp8_index_key(m: Model) -> Varied:
    return Varied.of(m, Precision(index_key="fp8"))


@cache
def _with_mtp_layers(m: Model) -> Varied:
    """The multi-token-prediction module is one more block with the model's own attention and cache."""
    return Varied.of(replace(m, layers=m.layers + (m.layers[-1],) * MTP_LAYERS))


def page_padded(layout: F.Layout, entries: int, align: int = V4_PAGE_ALIGN) -> F.Layout:
    """`layout` as a page of `entries` entries stores it: the page rounded up to a multiple of
    `align` bytes (SGLang's KVLayout.page_bytes), the padding shared by its entries."""
    page = -(-entries * layout.nbytes // align) * align
    if page % entries:
        raise ValueError(f"a page of {entries} entries pads to {page:,} B, not a whole number of bytes each")
    return replace(layout, pad=layout.pad + page // entries - layout.nbytes)


def _paged(c: Cache, entries: int) -> Cache:
    """`c` with its deployed layout stored in pages of `entries` entries."""

    def entry(d: Dims):
        holds, layouts = c.entry(d)
        padded = page_padded(layouts[c.deployed], entries)
        return f"{holds}, {entries} a page", {**layouts, c.deployed: padded}

    return replace(c, entry=entry)


@cache
def _v4_pages(m: Model) -> Varied:
    """SGLang's pools: the local KV in pages of 256 positions; each ratio m's entries in a pool of
    their own, 256/m entries a page (CSA 64, HCA 2); index keys unpadded. Padding is never read."""
    main, key, local = ({c.role: c for c in m.cache}[role] for role in ROLES)
    window = replace(m, layers=tuple(Layer("SWA") for ly in m.layers if ly.windowed),
                     cache=(_paged(local, SGLANG_PAGE_TOKENS),))
    ratios = sorted({ly.ratio for ly in m.layers if ly.stores_global})
    pools = [replace(m, layers=tuple(ly for ly in m.layers if ly.stores_global and ly.ratio == r),
                     cache=(_paged(main, SGLANG_PAGE_TOKENS // r), key)) for r in ratios]
    return Varied(stored=tuple(Spec(p) for p in (window, *pools)), read=(Spec(m),))


@cache
def _hf_reference(m: Model) -> Varied:
    """C^KV and K^R in BF16 buffers, the index key in FP8; every score is computed, then masked."""
    return Varied.of(replace(m, index_topk=EVERY_POSITION), Precision(main_kv="bf16"))


def mha_split_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """MHA with MLA's head widths: a key of qk_nope + qk_rope and a value of v_head_dim per head."""
    k, v, h = d.qk_nope_head_dim + d.qk_rope_head_dim, d.v_head_dim, d.num_attention_heads
    n = h * (k + v)
    return f"K {k} + V {v} per head × {h} heads", F.choices(F.bf16(n), F.fp8_blocks(n), F.nvfp4(n))


@cache
def _mha_v2_key(m: Model) -> Varied:
    v2 = get("v2").dims
    dims = replace(m.dims, qk_nope_head_dim=v2.qk_nope_head_dim, qk_rope_head_dim=v2.qk_rope_head_dim,
                   v_head_dim=v2.v_head_dim)
    return Varied.of(replace(m, dims=dims, cache=(Cache("main_kv", mha_split_entry, "bf16"),)))


@cache
def _all_bf16(m: Model) -> Varied:
    return Varied.of(m, ALL_BF16)


VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Variant(
            id="sglang-fp8-index-key",
            source="https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/mem_cache/"
                   "deepseek_v4_memory_pool.py (get_dsv4_indexer_bytes_per_token; "
                   "--enable-deepseek-v4-fp4-indexer is off by default)",
            models=("v4-flash",), vary=_fp8_index_key),
        Variant(
            id="mtp-layer",
            source="https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json "
                   "(num_nextn_predict_layers); DeepSeek-V3 report §2.2",
            models=("v3", "v3.2"), vary=_with_mtp_layers),
        Variant(
            id="v4-page-padding",
            source="https://github.com/sgl-project/sglang/blob/main/python/sglang/kernels/ops/attention/dsv4/"
                   "kv_layout.py (KVLayout.page_bytes) · https://github.com/sgl-project/sglang/blob/main/python/"
                   "sglang/srt/mem_cache/deepseek_v4_memory_pool.py (DeepSeekV4SingleKVPool.create_buffer)",
            models=("v4-flash",), vary=_v4_pages),
        Variant(
            id="hf-reference-v3.2",
            source="https://huggingface.co/deepseek-ai/DeepSeek-V3.2/tree/main/inference (model.py)",
            models=("v3.2",), vary=_hf_reference),
        Variant(
            id="mha-key-192",
            source="https://huggingface.co/deepseek-ai/DeepSeek-V2/blob/main/config.json "
                   "(qk_nope_head_dim, qk_rope_head_dim, v_head_dim)",
            models=("mha",), vary=_mha_v2_key),
        Variant(
            id="architecture-only",
            source="The article: its all-BF16 sizes of V3.2, V4-Flash and V4.1-Flash",
            models=tuple(i for i, m in MODELS.items() if any(c.deployed != "bf16" for c in m.components)),
            vary=_all_bf16),
    )
}
