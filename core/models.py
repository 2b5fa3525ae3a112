"""One frozen spec per model: layer schedule, selection parameters and cache formats.

Everything else (cost model, layer-layout figures, counts such as "4 layers store global
KV") is derived from these specs; no other module repeats a layer count or a byte size.
Field names follow the DeepSeek configs where they have one (`index_topk`, `window`).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import formats as F

ROLES = ("main_kv", "index_key", "local_kv")  # attention KV, indexer key, local (SWA) KV


@dataclass(frozen=True)
class Component:
    """One kind of cached entry: what it holds and the byte layout per precision."""

    role: str  # one of ROLES
    holds: str  # what one entry contains, e.g. "C^KV 512 + K^R 64"
    layouts: dict[str, F.Layout]
    deployed: str  # precision name of the article's deployed format

    def layout(self, precision: str) -> F.Layout:
        return self.layouts[precision]


@dataclass(frozen=True)
class Layer:
    """One attention layer.

    kind: MHA | MLA (dense) | DSA (MLA + lightning indexer) | SWA | CSA | HCA | CSA2
    ratio: tokens per stored global entry (compression ratio m)
    mode: CSA2 only: full (makes KV + index key, own indexer), reindex (borrows KV + key,
          re-picks with own query), reuse (borrows KV and the selection list)
    kv_from / sel_from: index of the layer whose global KV / selection this layer uses
    """

    kind: str
    ratio: int = 1
    mode: str = "full"
    kv_from: int | None = None
    sel_from: int | None = None
    stack: str = ""  # "encoder" | "decoder" for V4.1's causal encoder-decoder

    @property
    def windowed(self) -> bool:
        """Keeps its own local KV of the recent `window` positions."""
        return self.kind in ("SWA", "CSA", "HCA", "CSA2")

    @property
    def stores_global(self) -> bool:
        return self.kind in ("MHA", "MLA", "DSA", "CSA", "HCA") or (
            self.kind == "CSA2" and self.mode == "full"
        )

    @property
    def stores_index_key(self) -> bool:
        return self.kind in ("DSA", "CSA") or (self.kind == "CSA2" and self.mode == "full")


@dataclass(frozen=True)
class Model:
    id: str
    name: str
    layers: tuple[Layer, ...]
    components: tuple[Component, ...]
    index_topk: int = 0  # entries a sparse layer reads
    window: int = 0  # recent positions of local KV
    pool_blocks: int = 0  # hierarchical indexer: candidate blocks per query
    pool_block_size: int = 0  # entries per candidate block

    def component(self, role: str) -> Component | None:
        return next((c for c in self.components if c.role == role), None)

    @property
    def n_layers(self) -> int:
        return len(self.layers)

    @property
    def pool(self) -> int:
        """Candidate pool of a Reindex layer, in entries (2,048 blocks × 8)."""
        return self.pool_blocks * self.pool_block_size

    def count(self, pred) -> int:
        return sum(1 for ly in self.layers if pred(ly))


# --- Components ----------------------------------------------------------------------

MHA_KV = Component(
    "main_kv", "K 128 + V 128 per head × 128 heads",
    F.choices(F.bf16(128 * 256), F.fp8_fp32(128 * 256, 128), F.nvfp4(128 * 256)), "bf16")
MLA_KV = Component(
    "main_kv", "C^KV 512 + K^R 64",
    F.choices(F.bf16(576), F.MLA_FP8, F.MLA_FP4), "bf16")
DSA_KV = Component("main_kv", MLA_KV.holds, MLA_KV.layouts, "fp8")
INDEX_KEY_FP8 = Component(
    "index_key", "k^I 128",
    F.choices(F.bf16(128), F.INDEX_FP8, F.INDEX_FP4), "fp8")
INDEX_KEY_FP4 = Component("index_key", "k^I 128", INDEX_KEY_FP8.layouts, "fp4")
V4_LAYOUTS = F.choices(F.bf16(512), F.V4_FP8, F.V41_FP4)
V4_MAIN = Component("main_kv", "entry 512 (448 + RoPE 64)", V4_LAYOUTS, "fp8")
V4_LOCAL = Component("local_kv", "entry 512 (448 + RoPE 64)", V4_LAYOUTS, "fp8")
V41_LAYOUTS = F.choices(F.bf16(512), F.V41_LOCAL_FP8, F.V41_FP4)
V41_MAIN = Component("main_kv", "entry 512 (RoPE 64 included)", V41_LAYOUTS, "fp4")
V41_LOCAL = Component("local_kv", "entry 512 (RoPE 64 included)", V41_LAYOUTS, "fp8")


# --- Layer schedules -----------------------------------------------------------------

def _v4_flash_layers() -> tuple[Layer, ...]:
    # 2 SWA, then CSA (m=4) and HCA (m=128) alternating: 21 CSA + 20 HCA = 43 layers.
    rest = [Layer("CSA", 4) if i % 2 == 0 else Layer("HCA", 128) for i in range(41)]
    return (Layer("SWA"), Layer("SWA"), *rest)


def _v41_flash_layers() -> tuple[Layer, ...]:
    """Encoder: 2 SWA + 3 × [Full, Reuse×5] (m=2). Decoder: [Full, Reuse×3] +
    4 × [Reindex, Reuse×3] (m=1); every decoder layer reads the decoder Full's KV."""
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


MODELS: dict[str, Model] = {
    m.id: m
    for m in (
        Model("mha", "MHA (hypothetical)", tuple(Layer("MHA") for _ in range(60)), (MHA_KV,)),
        Model("v2", "V2", tuple(Layer("MLA") for _ in range(60)), (MLA_KV,)),
        Model("v3", "V3", tuple(Layer("MLA") for _ in range(61)), (MLA_KV,)),
        Model("v3.2", "V3.2", tuple(Layer("DSA") for _ in range(61)),
              (DSA_KV, INDEX_KEY_FP8), index_topk=2048),
        Model("v4-flash", "V4-Flash", _v4_flash_layers(),
              (V4_MAIN, INDEX_KEY_FP4, V4_LOCAL), index_topk=512, window=128),
        Model("v4.1-flash", "V4.1-Flash", _v41_flash_layers(),
              (V41_MAIN, INDEX_KEY_FP4, V41_LOCAL), index_topk=512, window=128,
              pool_blocks=2048, pool_block_size=8),
    )
}
A1_MODELS = ("mha", "v2", "v3.2", "v4-flash", "v4.1-flash")  # the article's bars (no V3)


def get(model_id: str) -> Model:
    try:
        return MODELS[model_id]
    except KeyError:
        raise ValueError(f"unknown model {model_id!r}; choose from {', '.join(MODELS)}") from None
