"""One frozen spec per model: attention widths, layer schedule, selection and cache.

Everything else (entry byte sizes, the cost model, the article's sizes in the mechanism
runs, the layer-layout figures, counts such as "4 layers store global KV") is derived
from these specs; no other module types a width, a layer count or a byte size. Field
names follow the models' config.json; each value was checked against the published
config (V2: DeepSeek-V2's config.json; V3, V3.2: the DeepSeek-V3 and V3.2-Exp inference
configs `config_671B*.json`; V4-Flash, V4.1-Flash: their config.json, whose
`compress_ratios`, `kv_source_layer_ids` and `index_source_layer_ids` the layer
schedules follow) or, where the configs are silent, against the article.

Open models (`core.open_models`) and imported config.json files (`core.config_import`) are
specs of the same type, built by the importer; `core.registry.get` resolves an id among the
article's models and the open presets, and passes an imported model, which comes as its Model, through.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from functools import cached_property

from . import formats as F
from .checks import int_at_least

ROLES = ("main_kv", "index_key", "local_kv")  # attention KV, indexer key, local (SWA) KV
ARTICLE_CONTEXT = 1 << 17  # 131,072: the context the article reads and costs at (128K)


@dataclass(frozen=True, kw_only=True)
class Dims:
    """A model's attention widths, named as in its config.json; 0 where it has no such part."""

    hidden_size: int  # D
    num_attention_heads: int  # n_h
    num_key_value_heads: int = 0  # GQA: heads that cache a key and a value (MQA 1, MHA n_h)
    head_dim: int = 0  # MHA, GQA: a head's key (and value) width; V4: the width c of one K = V entry
    q_lora_rank: int = 0  # r_q: the query latent C^Q (V4: c^Q)
    kv_lora_rank: int = 0  # r_kv: the cached KV latent C^KV
    qk_nope_head_dim: int = 0  # d_k: the content part of an MLA head's query and key
    qk_rope_head_dim: int = 0  # d_r: the RoPE part (MLA's K^R; the rotated tail of a V4 entry)
    v_head_dim: int = 0  # an MLA head's value width
    index_n_heads: int = 0  # H^I
    index_head_dim: int = 0  # d^I: the indexer query q^I and the cached index key k^I
    o_lora_rank: int = 0  # r_o: the width of a V4 output group after W^{O,a}
    o_groups: int = 0  # g: V4's output groups
    # an open model whose sliding layers have widths of their own (Gemma 4, MiMo-V2-Flash); 0: the
    # full layers' (num_key_value_heads, head_dim, and v_head_dim, a value width other than the key's)
    swa_num_key_value_heads: int = 0
    swa_head_dim: int = 0
    swa_v_head_dim: int = 0

    def __post_init__(self):
        for f in fields(self):
            int_at_least(f.name, getattr(self, f.name), 0)

    @property
    def head_nope_dim(self) -> int:
        """The part of a V4 entry RoPE leaves alone (448 = 512 − 64), FP8 in the deployed format."""
        return self.head_dim - self.qk_rope_head_dim


@dataclass(frozen=True)
class Component:
    """One kind of cached entry: what it holds and the byte layout per precision."""

    role: str  # one of ROLES
    holds: str  # what one entry contains, e.g. "C^KV 512 + K^R 64"
    layouts: dict[str, F.Layout]
    deployed: str  # precision name of the article's deployed format

    def layout(self, precision: str) -> F.Layout:
        try:
            return self.layouts[precision]
        except KeyError:
            raise ValueError(f"{self.role} ({self.holds}) has no {precision} layout; "
                             f"it offers {', '.join(self.layouts)}") from None

    @property
    def dims(self) -> int:
        """Values in one entry (the same in every precision)."""
        return self.layouts["bf16"].dims


Entry = Callable[[Dims], tuple[str, dict[str, F.Layout]]]  # dims -> (what it holds, layout per precision)


def mha_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """The hypothetical MHA: a key and a value of head_dim for every head. Its FP8 has an FP32
    scale per 128, which is an open model's fp8_block: it answers to that name too, so a
    model priced in fp8_block has the baseline its '≈1/N' divides."""
    n = d.num_attention_heads * 2 * d.head_dim
    return (f"K {d.head_dim} + V {d.head_dim} per head × {d.num_attention_heads} heads",
            F.choices(F.bf16(n), F.fp8_blocks(n), F.nvfp4(n)) | {F.FP8_BLOCK: F.fp8_blocks(n, F.FP8_BLOCK)})


def mla_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """MLA: the KV latent C^KV and the shared RoPE key K^R."""
    latent, rope = d.kv_lora_rank, d.qk_rope_head_dim
    return (f"C^KV {latent} + K^R {rope}",
            F.choices(F.bf16(latent + rope), F.mla_fp8(latent, rope), F.mla_fp4(latent, rope)))


def index_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """The indexer's key k^I."""
    n = d.index_head_dim
    return f"k^I {n}", F.choices(F.bf16(n), F.fp8_blocks(n), F.mxfp4(n))


def v4_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """V4's K = V entry of width c; its FP8 format keeps the RoPE tail in BF16."""
    c, rope = d.head_dim, d.qk_rope_head_dim
    return (f"entry {c} ({d.head_nope_dim} + RoPE {rope})",
            F.choices(F.bf16(c), F.v4_fp8(c, rope), F.nvfp4(c)))


def v41_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """V4.1's entry of width c, quantised whole (RoPE tail included) in FP8 and FP4."""
    c, rope = d.head_dim, d.qk_rope_head_dim
    return f"entry {c} (RoPE {rope} included)", F.choices(F.bf16(c), F.v41_fp8(c), F.nvfp4(c))


# Open models' entries (`core.config_import`): BF16 by default, FP8 per-tensor as vLLM caches
# it, and where the groups divide the entry, FP8 with DeepSeek's per-128 scales and FP4.

def gqa_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """GQA (MQA, MHA): a key of head_dim and a value of v_head_dim (else head_dim) per KV head."""
    return _kv_heads(d.num_key_value_heads, d.head_dim, d.v_head_dim or d.head_dim)


def gqa_local_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """A sliding layer's key and value where its widths are its own (swa_*), else the full layers'."""
    kv, k = d.swa_num_key_value_heads or d.num_key_value_heads, d.swa_head_dim or d.head_dim
    return _kv_heads(kv, k, d.swa_v_head_dim or (k if d.swa_head_dim else d.v_head_dim or k))


def _kv_heads(kv: int, k: int, v: int) -> tuple[str, dict[str, F.Layout]]:
    return f"K {k} + V {v} per KV head × {kv} KV heads", F.open_choices(kv * (k + v))


def open_mla_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """MLA as an open model caches it; its block-scaled FP8 is FlashMLA's (V3.2's 656 B)."""
    latent, rope = d.kv_lora_rank, d.qk_rope_head_dim
    n = latent + rope
    return (f"C^KV {latent} + K^R {rope}",
            F.fitting(lambda: F.bf16(n), lambda: F.fp8_tensor(n), lambda: F.mla_fp8(latent, rope, F.FP8_BLOCK),
                      lambda: F.mla_fp4(latent, rope)))


def open_index_entry(d: Dims) -> tuple[str, dict[str, F.Layout]]:
    """A DSA indexer's key k^I as an open model caches it (block-scaled FP8: V3.2's 132 B)."""
    n = d.index_head_dim
    return f"k^I {n}", F.open_choices(n, F.mxfp4)


@dataclass(frozen=True)
class Cache:
    """What a model caches in one role: an entry made from its dims, deployed in `deployed`."""

    role: str  # one of ROLES
    entry: Entry
    deployed: str  # the article's deployed precision


@dataclass(frozen=True)
class State:
    """What one linear-attention or state-space layer holds per sequence, at any context: its
    recurrent (SSM) state and its convolution window, each `values` elements of a dtype. The
    dtypes are the engine's (the config's mamba_ssm_dtype where it names one): the KV
    precision controls do not reach them, as vLLM's --kv-cache-dtype does not."""

    kind: str  # the layer kind that holds it (STATE_KINDS)
    parts: tuple[tuple[str, int, F.Dtype], ...]  # (what, values, dtype)

    @property
    def nbytes(self) -> int:
        return sum(values * dtype.bits for _, values, dtype in self.parts) // 8


# Layers that cache nothing: Nemotron-H's MLP and MoE layers, which its pattern lists as layers
NO_CACHE_KINDS = ("FFN",)
# Layers that hold a fixed state instead of KV: Gated DeltaNet (Qwen3-Next, Qwen3.5), Kimi Delta
# Attention, Mamba2 (Nemotron-H, Granite 4.0-H, Falcon-H1), Mamba1 (Jamba), MiniMax's lightning
# attention, LFM2's short convolution
STATE_KINDS = ("GDN", "KDA", "Mamba2", "Mamba1", "Lightning", "ShortConv")
ATTENTION_KINDS = ("MHA", "GQA", "MLA", "DSA")  # a plain layer's global KV: its own, or kv_from's


@dataclass(frozen=True)
class Layer:
    """One attention layer.

    kind: MHA | GQA | MLA (dense) | DSA (MLA + lightning indexer) | SWA (sliding window only)
          | CSA | HCA | CSA2 | a STATE_KINDS layer (a fixed state, no KV)
    ratio: tokens per stored global entry (compression ratio m; config compress_ratios)
    mode: CSA2 only: full (makes KV + index key, own indexer), reindex (borrows KV + key,
          re-picks with own query), reuse (borrows KV and the selection list)
    kv_from / sel_from: index of the layer whose global KV / selection this layer uses; a plain
          or sliding layer with kv_from stores nothing (Gemma 3n's and 4's shared-KV layers)
    beside: a STATE_KINDS kind that runs in parallel with this attention layer and holds its
          state too (Falcon-H1's Mamba2 beside attention in every layer)
    """

    kind: str
    ratio: int = 1
    mode: str = "full"
    kv_from: int | None = None
    sel_from: int | None = None
    stack: str = ""  # "encoder" | "decoder" for V4.1's causal encoder-decoder
    beside: str = ""

    @property
    def label(self) -> str:
        """The kind, with what runs beside it: "GQA + Mamba2"."""
        return f"{self.kind} + {self.beside}" if self.beside else self.kind

    @property
    def windowed(self) -> bool:
        """Reads local KV of the recent `window` positions (its own, or, shared, kv_from's)."""
        return self.kind in ("SWA", "CSA", "HCA", "CSA2")

    @property
    def shared(self) -> bool:
        """A plain or sliding layer that reads another layer's KV and stores none."""
        return self.kind in (*ATTENTION_KINDS, "SWA") and self.kv_from is not None

    @property
    def stores_local(self) -> bool:
        return self.windowed and not self.shared

    @property
    def stores_global(self) -> bool:
        return (self.kind in ATTENTION_KINDS and not self.shared) or self.kind in ("CSA", "HCA") or (
            self.kind == "CSA2" and self.mode == "full"
        )

    @property
    def holds_state(self) -> bool:
        return self.kind in STATE_KINDS or bool(self.beside)

    @property
    def attends(self) -> bool:
        """Reads KV: every kind but a state layer's and a cacheless one's."""
        return self.kind not in STATE_KINDS + NO_CACHE_KINDS

    @property
    def stores_index_key(self) -> bool:
        return self.kind in ("DSA", "CSA") or (self.kind == "CSA2" and self.mode == "full")


@dataclass(frozen=True, kw_only=True)
class Model:
    id: str
    name: str
    dims: Dims
    layers: tuple[Layer, ...]
    cache: tuple[Cache, ...]
    index_topk: int = 0  # entries a sparse layer reads (config index_topk)
    window: int = 0  # recent positions of local KV (config sliding_window)
    pool_blocks: int = 0  # hierarchical indexer: candidate blocks per query (config candidate_topk_blocks)
    pool_block_size: int = 0  # entries per candidate block (config candidate_block_size)
    state: State | None = None  # what each STATE_KINDS layer holds per sequence
    parameters: int = 0  # total parameters, for weights' memory; 0 where none is published
    stored_bytes: int = 0  # the checkpoint's weights as stored (a fetched model's safetensors); 0: parameters × a knob
    family: str = ""  # the config's model_type, as serving engines recognise the architecture
    source: str = ""  # the config's URL, or a citation

    @cached_property
    def components(self) -> tuple[Component, ...]:
        """The cached entries, built from `dims`: change a width and every byte size follows."""
        return tuple(Component(c.role, *c.entry(self.dims), c.deployed) for c in self.cache)

    def component(self, role: str) -> Component | None:
        return next((c for c in self.components if c.role == role), None)

    @property
    def precisions(self) -> tuple[str, ...]:
        """Precision names every cached role offers, e.g. ('bf16', 'fp8', 'fp8_block', 'fp4')."""
        return tuple(p for p in F.LAYOUT_PRECISIONS if all(p in c.layouts for c in self.components))

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    @property
    def pool(self) -> int:
        """Candidate pool of a Reindex layer, in entries (2,048 blocks × 8 = 16,384)."""
        return self.pool_blocks * self.pool_block_size

    def count(self, pred) -> int:
        return sum(1 for ly in self.layers if pred(ly))

    @property
    def layer_counts(self) -> dict[str, int]:
        """Layers of each kind in schedule order, e.g. {'SWA': 2, 'CSA': 21, 'HCA': 20}."""
        return dict(Counter(ly.kind for ly in self.layers))

    @property
    def n_global(self) -> int:
        """Layers that store global KV (V4-Flash 41, V4.1-Flash 4)."""
        return self.count(lambda ly: ly.stores_global)

    @property
    def n_windowed(self) -> int:
        """Layers that keep their own local KV of the recent `window` positions."""
        return self.count(lambda ly: ly.stores_local)

    @property
    def n_state(self) -> int:
        """Layers that hold a fixed state per sequence (linear attention, state-space)."""
        return self.count(lambda ly: ly.holds_state)

    def ratio(self, kind: str, stack: str | None = None) -> int:
        """The one compression ratio of `kind` layers (in `stack`), e.g. ratio('HCA') = 128."""
        ratios = {ly.ratio for ly in self.layers if ly.kind == kind and stack in (None, ly.stack)}
        if len(ratios) != 1:
            raise ValueError(f"{self.id}: {kind} layers{f' in the {stack}' if stack else ''} have ratios {ratios}")
        return ratios.pop()


# --- Layer schedules -----------------------------------------------------------------

def _v4_flash_layers() -> tuple[Layer, ...]:
    """compress_ratios [0, 0, 4, 128, …, 4]: 2 SWA, then CSA (m=4) and HCA (m=128) alternating,
    21 CSA + 20 HCA = 43 layers."""
    rest = [Layer("CSA", 4) if i % 2 == 0 else Layer("HCA", 128) for i in range(41)]
    return (Layer("SWA"), Layer("SWA"), *rest)


def _v41_flash_layers() -> tuple[Layer, ...]:
    """compress_ratios [0, 0, 2 × 18, 1 × 20]. Encoder: 2 SWA + 3 × [Full, Reuse×5] (m=2).
    Decoder: [Full, Reuse×3] + 4 × [Reindex, Reuse×3] (m=1); every decoder layer reads the
    decoder Full's KV. Full layers 2, 8, 14, 20 (kv_source_layer_ids); Full and Reindex
    2, 8, 14, 20, 24, 28, 32, 36 (index_source_layer_ids)."""
    layers: list[Layer] = [Layer("SWA", stack="encoder"), Layer("SWA", stack="encoder")]
    for _ in range(3):
        full = len(layers)
        layers.append(Layer("CSA2", 2, "full", full, full, "encoder"))
        layers += [Layer("CSA2", 2, "reuse", full, full, "encoder") for _ in range(5)]
    kv = len(layers)
    for g in range(5):
        head = len(layers)
        layers.append(Layer("CSA2", 1, "full" if g == 0 else "reindex", kv, head, "decoder"))
        layers += [Layer("CSA2", 1, "reuse", kv, head, "decoder") for _ in range(3)]
    return tuple(layers)


# V2 (DeepSeek-V2 config.json); the hypothetical MHA has V2's heads, each caching a full
# key and value of V2's head width (DeepSeek-V2 report, Table 1).
_V2 = Dims(hidden_size=5120, num_attention_heads=128, q_lora_rank=1536, kv_lora_rank=512,
           qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)
_V3 = replace(_V2, hidden_size=7168)  # config_671B.json: V2's attention widths in a wider model
_V32 = replace(_V3, index_n_heads=64, index_head_dim=128)  # config_671B_v3.2.json: V3 + the indexer
_V4_FLASH = Dims(hidden_size=4096, num_attention_heads=64, head_dim=512, q_lora_rank=1024, qk_rope_head_dim=64,
                 index_n_heads=64, index_head_dim=128, o_lora_rank=1024, o_groups=8)
_V41_FLASH = replace(_V4_FLASH, hidden_size=5120, q_lora_rank=1280, index_n_heads=32)

# Total parameters as published (rounded where the source rounds): V2 236B (DeepSeek-V2 report,
# arXiv:2405.04434, abstract); V3 and V3.2 671B (DeepSeek-V3 report, arXiv:2412.19437, abstract,
# and the V3.2-Exp README; Hugging Face's 685B adds the 14B MTP module, whose cache the article
# does not count); V4-Flash 284B (its Hugging Face model card). The hypothetical MHA has no
# weights, and no count for V4.1-Flash was found: 0.
_HF, _GH = "https://huggingface.co/deepseek-ai", "https://github.com/deepseek-ai"
MODELS: dict[str, Model] = {
    m.id: m
    for m in (
        Model(id="mha", name="MHA (hypothetical)", layers=tuple(Layer("MHA") for _ in range(60)),
              dims=Dims(hidden_size=_V2.hidden_size, num_attention_heads=_V2.num_attention_heads,
                        head_dim=_V2.v_head_dim),
              cache=(Cache("main_kv", mha_entry, "bf16"),),
              source="DeepSeek-V2 report (arXiv:2405.04434), Table 1: V2's heads with full keys and values"),
        Model(id="v2", family="deepseek_v2", name="V2", layers=tuple(Layer("MLA") for _ in range(60)), dims=_V2,
              cache=(Cache("main_kv", mla_entry, "bf16"),),
              parameters=236_000_000_000, source=f"{_HF}/DeepSeek-V2/blob/main/config.json"),
        Model(id="v3", family="deepseek_v3", name="V3", layers=tuple(Layer("MLA") for _ in range(61)), dims=_V3,
              cache=(Cache("main_kv", mla_entry, "bf16"),),
              parameters=671_000_000_000, source=f"{_GH}/DeepSeek-V3/blob/main/inference/configs/config_671B.json"),
        Model(id="v3.2", family="deepseek_v32", name="V3.2", layers=tuple(Layer("DSA") for _ in range(61)), dims=_V32,
              cache=(Cache("main_kv", mla_entry, "fp8"), Cache("index_key", index_entry, "fp8")),
              index_topk=2048, parameters=671_000_000_000,
              source=f"{_GH}/DeepSeek-V3.2-Exp/blob/main/inference/config_671B_v3.2.json"),
        Model(id="v4-flash", family="deepseek_v4", name="V4-Flash", layers=_v4_flash_layers(), dims=_V4_FLASH,
              cache=(Cache("main_kv", v4_entry, "fp8"), Cache("index_key", index_entry, "fp4"),
                     Cache("local_kv", v4_entry, "fp8")),
              index_topk=512, window=128, parameters=284_000_000_000,
              source=f"{_HF}/DeepSeek-V4-Flash/blob/main/config.json"),
        Model(id="v4.1-flash", name="V4.1-Flash", layers=_v41_flash_layers(), dims=_V41_FLASH,
              cache=(Cache("main_kv", v41_entry, "fp4"), Cache("index_key", index_entry, "fp4"),
                     Cache("local_kv", v41_entry, "fp8")),
              index_topk=512, window=128, pool_blocks=2048, pool_block_size=8,
              source=f"{_HF}/DeepSeek-V4.1-Flash/blob/main/config.json"),
    )
}
A1_MODELS = ("mha", "v2", "v3.2", "v4-flash", "v4.1-flash")  # the article's bars (no V3)
