"""What both engines' rules share: the rule type and its table builder, the result types (`Held`, `EngineError`),
the constants of pages both engines cut alike (DSA's, V4's), and the bytes a token takes in each kind of layer on
one GPU rank as the engines store it (element sizes, KV heads a rank holds, MLA's and the indexer's layouts, V4's
entry), each noting a `Rule` where the engine stores other bytes than the theory (core.cost).

Read from the engines' released source: vLLM 0.34.0 (vllm/_version.py: commit 62d4bc3c7) and SGLang 0.5.23 (its
release wheel records no commit). core.engines.vllm and core.engines.sglang build on these; core.engines holds
the dispatch.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from string import Formatter

from .. import cost
from .. import formats as F
from ..models import MODELS, Model

VLLM = "vLLM 0.34.0 (commit 62d4bc3c7)"
SGLANG = "SGLang 0.5.23"  # its release wheel records no commit
V4_KINDS = ("CSA", "HCA")


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


DSA_BLOCK = 64  # both engines' sparse MLA and indexer pages
V4_BLOCK = 256  # both engines' V4 pages (vLLM's window cache: 64)
V4_ALIGN = 576  # a V4 page's bytes round up to a multiple of this (FP8 layouts)
# V4's compressor states in vLLM (models/deepseek_v4/compressor.py:139-175, 290-301): FP32, 2 × coff × the
# compressed width a token (kv and score; coff = 2 where ratio-4 windows overlap), in sliding pages of 4 tokens
# (ratio 4) or 8 (ratio 128) over a window of coff × ratio tokens
V4_STATE_BLOCK = {4: 4, 128: 8}
V4_STATE_WINDOW = {r: (1 + (r == 4)) * r for r in V4_STATE_BLOCK}  # coff × ratio: 8 and 128 tokens
V4_STATE_BYTES = 4  # FP32, vLLM's and SGLang's (SGLANG_DSV4_COMPRESS_STATE_DTYPE) default
# the layouts the texts quote, as DeepSeek's models define them
_MLA, _INDEX_KEY, _V4 = (MODELS[m].component(r) for m, r in (("v3.2", "main_kv"), ("v3.2", "index_key"),
                                                            ("v4-flash", "main_kv")))
# the fields both engines' rule texts quote (each engine's module adds its own)
FIELDS = {
    "dsa": DSA_BLOCK, "v4": V4_BLOCK, "align": V4_ALIGN, "values": _MLA.dims, "scaled": _MLA.layouts["fp8"].nbytes,
    "key": _INDEX_KEY.layouts["fp8"].nbytes, "key4": _INDEX_KEY.layouts["fp4"].nbytes,
    "group": _INDEX_KEY.layouts["fp8"].segments[0].group, "entry": _V4.layouts["fp8"].nbytes,
    "r4": min(V4_STATE_BLOCK), "r128": max(V4_STATE_BLOCK),  # V4's two compression ratios
}


def rule_table(engine: str, *rows: tuple[str, str, str], fields: dict) -> dict[str, Rule]:
    """Rules from (id, template, source); each keeps the fields its template names, from `fields`."""
    out = {}
    for rid, template, source in rows:
        names = {name for _, name, _, _ in Formatter().parse(template) if name}
        out[rid] = Rule(rid, engine, template, source, tuple((k, fields[k]) for k in sorted(names)))
    return out


# the texts of the rules both engines follow, each engine's table citing its own source
MLA_FP8 = "FP8 MLA on dense kernels stores all {values} values in FP8 with one scale a layer: {values} B, " \
          "not the scaled {scaled} B"
DSA_FP8 = ("FP8 sparse MLA stores DeepSeek's scaled layout (FP8 latent, an FP32 scale per {group} values, a BF16 "
           "position key): {scaled} B")
INDEX = "the index key is FP8 with an FP32 scale per {group} values ({key} B) whatever the cache dtype"
SCALE = "FP8 KV keeps one scale a layer outside the pages: no scale per {group} values"
V4_LAYOUT = "V4's entries in the {entry}-B FP8 layout whatever --kv-cache-dtype says"


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


# --- bytes a token takes in each kind of layer, on one rank --------------------------------


def kv_heads(m: Model, sliding: bool) -> tuple[int, int, int]:
    d = m.dims
    kv, k = d.num_key_value_heads or d.num_attention_heads, d.head_dim or d.hidden_size // d.num_attention_heads
    v = d.v_head_dim or k
    if sliding:
        kv, k = d.swa_num_key_value_heads or kv, d.swa_head_dim or k
        v = d.swa_v_head_dim or (k if d.swa_head_dim else v)
    return kv, k, v


def gqa_token(m: Model, sliding: bool, element: int, tp: int) -> int:
    """K and V of the KV heads one rank holds: max(1, heads // tp), as both engines split them
    (vllm/config/model.py:1683-1703; sglang configs/model_config.py:1700-1711)."""
    kv, k, v = kv_heads(m, sliding)
    return max(1, kv // tp) * (k + v) * element


def element_bytes(p: cost.Precision, m: Model, role: str) -> int:
    """The engine's element size for a role: 2 in BF16, 1 in any FP8 (a per-layer scale, none in the pages)."""
    name = p.of(m.component(role))
    if name == "fp4":
        raise EngineError(f"{m.name}: FP4 {role.replace('_', ' ')} is not a KV cache dtype either engine offers here",
                          "fp4")
    return 2 if name == "bf16" else 1


def theory(m: Model, p: cost.Precision, role: str) -> int:
    """The theory's bytes of one entry of a role in the precision asked for."""
    c = m.component(role)
    return c.layout(p.of(c)).nbytes


def differs(engine_bytes: int, m: Model, p: cost.Precision, role: str, rule: Rule, rules: list[Rule]) -> int:
    """`engine_bytes`, noting `rule` where the theory stores the role's entry in other bytes."""
    if engine_bytes != theory(m, p, role):
        rules.append(rule)
    return engine_bytes


def mla_token(m: Model, p: cost.Precision, table: dict[str, Rule], dsa: bool, rules: list[Rule]) -> int:
    """MLA's latent and RoPE key: 576 values in BF16; in FP8, a sparse (DSA) model's scaled layout (656 B),
    a dense one's 576 B with one scale a layer (noting `table`'s, the engine's, rule where the theory differs)."""
    d = m.dims
    n = d.kv_lora_rank + d.qk_rope_head_dim
    if element_bytes(p, m, "main_kv") == 2:
        return 2 * n
    nbytes = F.mla_fp8(d.kv_lora_rank, d.qk_rope_head_dim).nbytes if dsa else n
    return differs(nbytes, m, p, "main_kv", table["dsa-fp8" if dsa else "mla-fp8"], rules)


def index_token(m: Model, p: cost.Precision, table: dict[str, Rule], rules: list[Rule],
                rule: str = "index-fp8") -> int:
    """An indexer key: FP8 with an FP32 scale per 128 whatever the cache dtype; V4's too on a Hopper GPU by default
    (vLLM's MXFP4 index cache needs Blackwell, SGLang's a switch: `rule` "v4-index")."""
    nbytes = F.fp8_blocks(m.dims.index_head_dim).nbytes
    return differs(nbytes, m, p, "index_key", table[rule], rules)


def v4_entry(m: Model, p: cost.Precision, table: dict[str, Rule], rules: list[Rule]) -> int:
    """V4's K = V entry: both engines store it in the 584-B FP8 layout, whatever --kv-cache-dtype says."""
    nbytes = F.v4_fp8(m.dims.head_dim, m.dims.qk_rope_head_dim).nbytes
    for role in ("main_kv", "local_kv"):
        differs(nbytes, m, p, role, table["v4-layout"], rules)
    return nbytes


def round_up(x: int, to: int) -> int:
    return -(-x // to) * to


def state_bytes(m: Model, tp: int, ssm_fp32: bool = False) -> int:
    """One state layer's state on one rank (its heads split by tp); with ssm_fp32, the recurrent part FP32."""
    s = m.state
    bits = sum(v * (32 if ssm_fp32 and what != "convolution" else dt.bits) for what, v, dt in s.parts)
    return -(-bits // 8 // tp)


def element_is_fp8_block(m: Model, p: cost.Precision) -> bool:
    """Whether a cache is asked for in block-scaled FP8, which the engines store with one scale a layer."""
    return any(p.of(c) == F.FP8_BLOCK for c in m.components)
