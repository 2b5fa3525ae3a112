"""A model's config.json as a spec the cost model prices, or one line saying what is wrong.

The design comes from the fields, layer by layer (the counting rules are docs/counting.md's):

- an attention layer is MLA with kv_lora_rank and qk_rope_head_dim (one latent and one RoPE key
  per token and layer), with a DSA indexer's key where index_head_dim and index_topk are given;
  otherwise MHA, GQA or MQA from num_attention_heads, num_key_value_heads and head_dim (=
  hidden_size / num_attention_heads where neither the file nor the family's class gives one),
  the value v_head_dim wide where given; sliding and full layers may have widths of their own.
- which layer is which comes from the first layout key the config has (layer_types,
  layers_block_type, full_attn_idxs, hybrid_override_pattern, linear_attn_config, attn_type_list,
  hybrid_layer_pattern, attn_layer_period, full_attention_interval, then the sliding-window
  keys); a value outside its vocabulary is refused, never priced as plain attention.
- a linear-attention or state-space layer (Gated DeltaNet, Kimi Delta Attention, Mamba2, Mamba,
  lightning, a short convolution) holds a fixed state per sequence, sized as vLLM sizes it, and
  a Falcon-H1 layer holds one beside its attention; a shared-KV layer (num_kv_shared_layers)
  stores nothing; a sliding layer keeps min(N, window) positions.
- fields that change the cache in ways not priced here (UNPRICED) are refused, never ignored.
- compress_ratios (DeepSeek-V4) gives CSA and HCA layers as the article's V4-Flash counts them.

A multimodal config's language model is read from text_config. Where the file omits a field,
the default of the family's transformers config class applies (FAMILIES) and the import says
so. An imported model caches BF16 unless priced otherwise (core.formats.OPEN_PRECISIONS).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from . import formats as F
from .config_json import ConfigError, field, non_finite, parse, show
from .models import (
    Cache,
    Dims,
    Layer,
    Model,
    State,
    gqa_entry,
    gqa_local_entry,
    index_entry,
    open_index_entry,
    open_mla_entry,
    v4_entry,
)

MAX_LAYERS = 10_000
MAX_WIDTH = 1 << 20  # heads and widths
MAX_ENTRY = 1 << 18  # values one layer caches per token: keeps bytes in int64 up to 2^30 tokens
MAX_POSITIONS = 1 << 30  # windows and top-k
FULL, SLIDING, LINEAR, NONE = "full_attention", "sliding_attention", "linear_attention", "no cache"
CONV = "short convolution"  # LFM2's layers: a state of their own kind, never another linear layer's
BOTH = "attention beside a state"  # Falcon-H1: attention and Mamba2 in parallel in one layer


@dataclass(frozen=True)
class Imported:
    """An imported config: the spec, its attention design and what the import read.

    used: field -> value taken from the file (text_config.<field> for a multimodal one);
    defaulted: field -> (value, where it comes from) for what the file leaves out;
    ignored: fields that do not change the KV cache; notes: what a reader should know;
    draft: MTP layers the config names (in the model only when imported with `mtp`).
    """

    model: Model
    design: str
    used: dict[str, object]
    defaulted: dict[str, tuple[object, str]]
    ignored: tuple[str, ...]
    notes: tuple[str, ...]
    draft: int = 0


def _every(p: int) -> Callable[[int], list[str]]:
    """The layer_types of a family whose every p-th layer is global."""
    return lambda n: [SLIDING if (i + 1) % p else FULL for i in range(n)]


# What a family's transformers config class supplies when config.json omits a field
# (src/transformers/models/<family>/configuration_<family>.py). A class's own derivations
# (head_dim = hidden_size / heads, KV heads = heads when null) apply to every family.
FAMILIES: dict[str, tuple[str, dict[str, object]]] = {
    "llama": ("LlamaConfig", {}),
    "mistral": ("MistralConfig", {"num_key_value_heads": 8, "sliding_window": 4096}),
    "qwen3": ("Qwen3Config", {"num_key_value_heads": 32, "head_dim": 128, "use_sliding_window": False,
                              "sliding_window": 4096, "max_window_layers": 28}),
    "gemma3_text": ("Gemma3TextConfig", {"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                                         "sliding_window": 4096, "sliding_window_pattern": 6}),
    "gpt_oss": ("GptOssConfig", {"num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
                                 "sliding_window": 128, "layer_types": _every(2)}),
    "deepseek_v3": ("DeepseekV3Config", {"kv_lora_rank": 512, "qk_rope_head_dim": 64}),
    "gemma4_text": ("Gemma4TextConfig", {"global_head_dim": 512}),
    "qwen3_next": ("Qwen3NextConfig", {"full_attention_interval": 4}),
    # its class derives layers_block_type: every layer runs attention and Mamba2 side by side
    "falcon_h1": ("FalconH1Config", {"layers_block_type": lambda n: ["hybrid"] * n}),
}
# Fields that describe a linear-attention or state-space layer's state: a config with one of them
# and no layout key that places such layers (Falcon-H1 runs Mamba beside attention in every layer)
# is refused rather than priced as attention alone
STATE_FIELDS = ("linear_num_value_heads", "linear_attn_config", "mamba_num_heads", "mamba_n_heads", "mamba_d_state",
                "ssm_state_size", "conv_L_cache")
# Fields that change the cache in ways the importer does not price: refused, never ignored
UNPRICED = {
    "kv_source_layer_ids": "layers that share compressed KV (V4.1) are not imported; the article's V4.1-Flash "
                           "spec models them",
    "sparse_attention_config": "block-sparse attention with its own index keys (MiniMax-M3) is not priced",
}
# A field named like a per-layer kind or layout the import did not read (GPT-Neo's attention_types,
# a new family's block_types): its layers may not all be attention, so the config is refused
LAYOUT_LIKE = re.compile(r"(attn|attention)_(types?|kinds?|layers|layer_types|pattern)|(layers_)?block_types?")
ALIASES = {"gemma3": "gemma3_text", "kimi_k2": "deepseek_v3"}  # Kimi K2 loads DeepseekV3Config


# --- Reading fields ------------------------------------------------------------------------

class _Reader:
    """The language model's fields, with the family's defaults; records what it reads."""

    def __init__(self, fields: dict, prefix: str, family: str):
        self.fields, self.prefix, self.family = fields, prefix, family
        self.config_class, self.defaults = FAMILIES.get(family, ("", {}))
        self.used: dict[str, object] = {}
        self.defaulted: dict[str, tuple[object, str]] = {}
        self.read: set[str] = set()
        self.n_layers = 0

    def name(self, key: str) -> str:
        return self.prefix + key

    def available(self, key: str) -> bool:
        """Given (not null) or supplied by the family's class."""
        return self.fields.get(key) is not None or (key not in self.fields and key in self.defaults)

    def raw(self, key: str):
        """The value given, else the family default (None where neither is)."""
        self.read.add(key)
        if key in self.fields:
            if literal := non_finite(self.fields[key]):
                raise ConfigError(f"{self.name(key)} is {literal}, which JSON does not allow")
            self.used[self.name(key)] = self.fields[key]
            return self.fields[key]
        if key not in self.defaults:
            return None
        value = self.defaults[key]
        value = value(self.n_layers) if callable(value) else value
        self.defaulted[self.name(key)] = (value, f"{self.config_class} default")
        return value

    def derived(self, key: str, value: int, how: str) -> int:
        self.defaulted[self.name(key)] = (value, how)
        return value

    def int(self, key: str, *, minimum: int = 1, maximum: int = MAX_WIDTH, required: str | None = None) -> int | None:
        """An integer field; a required one (`required` says why, or "") may not be missing."""
        value = self.raw(key)
        if value is None:
            if required is not None:
                state = "null" if key in self.fields else "missing"
                raise ConfigError(f"{self.name(key)} is {state}{required}")
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{self.name(key)} must be an integer, got {show(value)}")
        if value < minimum:
            raise ConfigError(f"{self.name(key)} must be at least {minimum}, got {value}")
        if value > maximum:
            raise ConfigError(f"{self.name(key)} {value:,} is absurd; at most {maximum:,}")
        return value

    def flag(self, key: str) -> bool | None:
        value = self.raw(key)
        if value is not None and not isinstance(value, bool):
            raise ConfigError(f"{self.name(key)} must be true or false, got {show(value)}")
        return value


def _language_model(config: dict) -> tuple[dict, str]:
    """The fields that describe the language model: the config's own, or text_config's."""
    if any(k in config for k in ("num_hidden_layers", "num_attention_heads", "kv_lora_rank")):
        return config, ""
    text = config.get("text_config")
    if text is None:
        return config, ""
    if not isinstance(text, dict):
        raise ConfigError(f"text_config must be an object, got {show(text)}")
    return text, "text_config."


def _family(config: dict, fields: dict) -> str:
    model_type = fields.get("model_type", config.get("model_type"))
    return ALIASES.get(model_type, model_type) if isinstance(model_type, str) else ""


# --- The import ----------------------------------------------------------------------------

def import_config(config: dict | bytes | str, *, name: str = "custom", mtp: bool = False) -> Imported:
    """The spec of a config.json (its text, bytes or parsed dict), id "custom", named `name`;
    with `mtp`, its MTP layers counted too (they hold KV while speculative decoding runs them).

    Raises ConfigError, one line naming the field, for anything it cannot price exactly.
    """
    config, notes = (config, []) if isinstance(config, dict) else parse(config)
    fields, prefix = _language_model(config)
    r = _Reader(fields, prefix, _family(config, fields))
    if r.config_class:
        r.raw("model_type")
    if prefix:
        notes.append("read the language model's fields from text_config")
    for key, why in UNPRICED.items():
        value = fields.get(key, config.get(key))  # a multimodal config may carry it beside text_config
        if value is not None and not (isinstance(value, dict) and value.get("use_sparse_attention") is False):
            raise ConfigError(f"{r.name(key) if key in fields else key}: {why}")
    mla = r.available("kv_lora_rank")
    if not mla and not r.available("num_attention_heads"):
        arch = fields.get("architectures") or config.get("architectures") or fields.get("model_type")
        arch = arch[0] if isinstance(arch, list) and arch else arch
        which = f"the {arch} config" if isinstance(arch, str) and arch else "this config"
        raise ConfigError(f"no attention fields (num_attention_heads, or kv_lora_rank for MLA) in {which}: "
                          "nothing in it is a KV cache the importer can count")
    r.n_layers = r.int("num_hidden_layers", maximum=MAX_LAYERS, required="")
    if "compress_ratios" in fields:
        model, design = _compressed(r, name, notes), "CSA/HCA compressed attention (DeepSeek-V4)"
    else:
        design, kind, dims, entry, index_topk = (_mla if mla else _gqa)(r, notes)
        tags, window, state_kind = _schedule(r, notes)
        state = _state(r, state_kind, notes) if state_kind else None
        if BOTH in tags:
            notes.append(f"every layer runs attention and {state_kind} side by side: it stores KV and holds "
                         "a state (layers_block_type \"hybrid\")")
        model = _model(name, dims, kind, entry, tags, window, index_topk, _shared(r, tags, notes), state)
        design = _design(design, tags, state)
        stray = next((f for f in STATE_FIELDS if f in fields), None) if state is None else None
        if stray:
            raise ConfigError(f"{r.name(stray)} describes a linear-attention or state-space layer, but no layout "
                              "key the importer reads (layer_types, hybrid_override_pattern, attn_layer_period…) "
                              "says which layers hold one: it cannot price their state")
    if (n_mtp := _mtp(r, notes, mtp)) and mtp:
        model = replace(model, layers=model.layers + _draft_layers(r, model, n_mtp))
    ignored = _ignored(config, r)
    if layout := next((key for key in ignored if LAYOUT_LIKE.fullmatch(key.rpartition(".")[2])), None):
        raise ConfigError(f"{layout} names layer kinds or a layout the importer does not read: it cannot tell "
                          "which layers are attention, so it does not price them as attention")
    notes += [f"{key} is {literal}, which JSON does not allow; the import does not read it" for key in ignored
              if (literal := non_finite(field(config, key)))]
    return Imported(model=replace(model, family=r.family), design=design, used=r.used, defaulted=r.defaulted,
                    ignored=ignored, notes=tuple(notes), draft=n_mtp)


def _mla(r: _Reader, notes: list[str]):
    """MLA: the latent and the RoPE key, and a DSA indexer's key where there is one."""
    latent = r.int("kv_lora_rank", maximum=MAX_ENTRY)
    rope = r.int("qk_rope_head_dim", maximum=MAX_ENTRY,
                 required=f": {r.name('kv_lora_rank')} is given, and MLA caches the RoPE key with the latent")
    _entry_size(latent + rope, f"kv_lora_rank {latent} + qk_rope_head_dim {rope}")
    key = r.int("index_head_dim", maximum=MAX_ENTRY)
    topk = r.int("index_topk", maximum=MAX_POSITIONS,
                 required=f": {r.name('index_head_dim')} is given, and a sparse layer reads top-k entries"
                 if key else None)
    if topk and not key:
        raise ConfigError(f"{r.name('index_head_dim')} is missing: {r.name('index_topk')} is given, "
                          "and the indexer caches a key of that width")
    if r.fields.get("num_key_value_heads") is not None:
        notes.append(f"MLA caches one latent per token and layer for all heads: "
                     f"num_key_value_heads {show(r.fields['num_key_value_heads'])} does not change the cache")
    widths = {k: r.int(k) or 0 for k in ("hidden_size", "num_attention_heads", "q_lora_rank", "qk_nope_head_dim",
                                          "v_head_dim", *(("index_n_heads",) if key else ()))}
    dims = Dims(**widths, kv_lora_rank=latent, qk_rope_head_dim=rope, index_head_dim=key or 0)
    design = "MLA + DSA indexer" if key else "MLA"
    return design, "DSA" if key else "MLA", dims, open_mla_entry, topk or 0


def _gqa(r: _Reader, notes: list[str]):
    """MHA, GQA, MQA: a key and a value of head_dim per KV head."""
    heads = r.int("num_attention_heads", required="")
    kv = r.int("num_key_value_heads")
    if kv is None:
        kv = r.derived("num_key_value_heads", heads, "num_attention_heads (MHA), as the config classes take it")
    if heads % kv:
        raise ConfigError(f"{r.name('num_key_value_heads')} {kv} does not divide "
                          f"{r.name('num_attention_heads')} {heads}: every KV head serves a whole group of heads")
    head_dim = r.int("head_dim") or (r.int("attention_head_dim") if r.available("attention_head_dim") else None)
    hidden = r.int("hidden_size", required=None if head_dim else f": head_dim is not given, so it is hidden_size / "
                                                                  f"{r.name('num_attention_heads')}")
    if head_dim is None:
        if hidden % heads:
            raise ConfigError(f"head_dim is not given and {r.name('hidden_size')} {hidden} / "
                              f"{r.name('num_attention_heads')} {heads} = {hidden / heads:g} is fractional")
        head_dim = r.derived("head_dim", hidden // heads, "hidden_size / num_attention_heads, as the config classes do")
    widths = dict(num_key_value_heads=kv, head_dim=head_dim, v_head_dim=r.int("v_head_dim") or 0,
                  **{k: r.int(k) or 0 for k in ("swa_num_key_value_heads", "swa_head_dim", "swa_v_head_dim")})
    if r.available("global_head_dim"):
        widths = _global_widths(r, kv, head_dim, notes)
    dims = Dims(hidden_size=hidden or 0, num_attention_heads=heads, **widths)
    for what, entry in (("", gqa_entry(dims)), ("a sliding layer's ", gqa_local_entry(dims))):
        _entry_size(entry[1]["bf16"].dims, f"{what}{entry[0]}")
    kv = dims.num_key_value_heads
    design = "MHA" if kv == heads else "MQA" if kv == 1 else "GQA"
    return design, "MHA" if kv == heads else "GQA", dims, gqa_entry, 0


def _global_widths(r: _Reader, kv: int, head_dim: int, notes: list[str]) -> dict:
    """Gemma 4: head_dim and num_key_value_heads are the sliding layers'; the full layers' are
    global_head_dim and (where keys are values, the default) num_global_key_value_heads."""
    k_eq_v = r.flag("attention_k_eq_v")
    full_kv = r.int("num_global_key_value_heads") if k_eq_v is not False and r.available(
        "num_global_key_value_heads") else kv
    if k_eq_v:
        notes.append("attention_k_eq_v: keys and values share a projection, yet vLLM and SGLang cache both; "
                     "both are counted")
    notes.append("full layers have global_head_dim and num_global_key_value_heads; sliding ones head_dim and "
                 "num_key_value_heads")
    return dict(num_key_value_heads=full_kv, head_dim=r.int("global_head_dim"), swa_num_key_value_heads=kv,
                swa_head_dim=head_dim)


COMPRESSED = {0: "SWA", 4: "CSA", 128: "HCA"}  # compress_ratios as DeepSeek-V4-Flash uses them


def _compressed(r: _Reader, name: str, notes: list[str]) -> Model:
    """DeepSeek-V4: per layer a ratio m, one K = V entry of head_dim per m tokens; 0 a sliding
    layer only, 4 CSA (with an indexer key per entry), 128 HCA; every layer keeps a window."""
    ratios, key = r.raw("compress_ratios"), r.name("compress_ratios")
    n = r.n_layers
    if not isinstance(ratios, list) or len(ratios) < n:
        raise ConfigError(f"{key} must list a ratio for each of the {n} layers, got {show(ratios)}")
    if len(ratios) > n:
        notes.append(f"{key} lists {len(ratios)} ratios: the first {n} are the layers' (the rest, MTP's)")
    unknown = [m for m in ratios[:n] if isinstance(m, bool) or m not in COMPRESSED]
    if unknown:
        raise ConfigError(f"{key} has {show(unknown[0])}; the importer knows 0 (sliding only), 4 (CSA) and "
                          "128 (HCA), DeepSeek-V4-Flash's")
    widths = {k: r.int(k, required=" (DeepSeek-V4's entry and indexer)") for k in (
        "hidden_size", "num_attention_heads", "head_dim", "qk_rope_head_dim", "index_n_heads", "index_head_dim")}
    widths |= {k: r.int(k) or 0 for k in ("q_lora_rank", "o_lora_rank", "o_groups")}
    _entry_size(widths["head_dim"], f"head_dim {widths['head_dim']}")
    layers = tuple(Layer(COMPRESSED[m], max(m, 1)) for m in ratios[:n])
    return Model(id="custom", name=name, dims=Dims(**widths), layers=layers,
                 cache=(Cache("main_kv", v4_entry, "bf16"), Cache("index_key", index_entry, "bf16"),
                        Cache("local_kv", v4_entry, "bf16")),
                 index_topk=r.int("index_topk", maximum=MAX_POSITIONS, required=" (what a CSA layer reads)"),
                 window=r.int("sliding_window", maximum=MAX_POSITIONS, required=" (every layer's local KV)"))


def _entry_size(values: int, how: str) -> None:
    if values > MAX_ENTRY:
        raise ConfigError(f"{how} = {values:,} values per token and layer is absurd; at most {MAX_ENTRY:,}")


# What each value of a layout key makes a layer: full or sliding attention, a layer that holds a
# fixed state (its kind named by the family's state fields, `_state`), or one that caches nothing.
# transformers' legacy names ("mamba", "attention") are accepted beside the current ones.
LAYER_TYPES = {FULL: FULL, "attention": FULL, SLIDING: SLIDING, LINEAR: LINEAR, "mamba": LINEAR, "conv": CONV}
# layers_block_type (Nemotron-H, Jamba; Falcon-H1's class gives "hybrid" for every layer)
BLOCK_TYPES = {**LAYER_TYPES, "mlp": NONE, "moe": NONE, "hybrid": BOTH}
PATTERN = {"M": LINEAR, "*": FULL, "-": NONE, "E": NONE}  # hybrid_override_pattern (Nemotron-H)


def _schedule(r: _Reader, notes: list[str]) -> tuple[list[str], int, str]:
    """Each layer's tag (FULL, SLIDING, LINEAR, NONE), the window (0 where no layer slides) and
    the state kind of the LINEAR layers ("" where there are none), from the first layout key
    the config has."""
    tags, state = _layout(r, notes)
    if CONV in tags:  # LFM2's convolution layers hold a ShortConv state, whatever other fields say
        if LINEAR in tags or BOTH in tags:
            raise ConfigError(f"{r.name('layer_types')} mixes conv layers with other linear layers; the importer "
                              "prices one state kind per model")
        if not r.available("conv_L_cache"):
            raise ConfigError(f"{r.name('conv_L_cache')} is missing: conv layers keep its last inputs")
        tags, state = [LINEAR if t == CONV else t for t in tags], "ShortConv"
    state = (state or _state_kind(r)) if LINEAR in tags or BOTH in tags else ""
    if r.available("attention_chunk_size"):
        r.raw("attention_chunk_size")
        notes.append("attention_chunk_size: chunked layers are priced at full length, as vLLM allocates them "
                     "by default (its hybrid KV cache manager is off for chunked attention)")
    if SLIDING not in tags:
        return tags, 0, state
    window = r.int("sliding_window", maximum=MAX_POSITIONS,
                   required=": some layers slide, and a sliding layer keeps the last sliding_window positions")
    longest = r.int("max_position_embeddings", maximum=MAX_POSITIONS) if r.available("max_position_embeddings") else 0
    if longest and window >= longest:  # Phi-4-mini: a window no context can fill attends to everything
        notes[:] = [n for n in notes if not n.startswith("sliding_window with no")]
        notes.append(f"sliding_window {window:,} is not below max_position_embeddings {longest:,}: every "
                     "layer sees the whole context, priced as full attention")
        return [FULL if t == SLIDING else t for t in tags], 0, state
    return tags, window, state


def _layout(r: _Reader, notes: list[str]) -> tuple[list[str], str]:
    n = r.n_layers
    if r.available("layer_types"):
        return _listed(r, "layer_types", LAYER_TYPES), ""
    if r.available("layers_block_type"):
        return _listed(r, "layers_block_type", BLOCK_TYPES), ""
    if r.available("full_attn_idxs"):  # LFM2 before layer_types: attention here, a short convolution elsewhere
        full = _indices(r, "full_attn_idxs")
        return [FULL if i in full else CONV for i in range(n)], ""
    if r.available("hybrid_override_pattern"):
        return _listed(r, "hybrid_override_pattern", PATTERN, chars=True), "Mamba2"
    if "linear_attn_config" in r.fields:
        return _kimi_layers(r), "KDA"
    if r.available("attn_type_list"):
        return _listed(r, "attn_type_list", {0: LINEAR, 1: FULL}), "Lightning"
    if r.available("hybrid_layer_pattern"):
        return _listed(r, "hybrid_layer_pattern", {0: FULL, 1: SLIDING}), ""
    if r.available("attn_layer_period"):
        period = r.int("attn_layer_period", maximum=MAX_LAYERS)
        offset = r.int("attn_layer_offset", minimum=0, maximum=MAX_LAYERS, required=f": attn_layer_period is "
                       f"given, and a layer attends where its index mod {period} is attn_layer_offset")
        if offset >= period:
            raise ConfigError(f"{r.name('attn_layer_offset')} {offset} must be below {r.name('attn_layer_period')} "
                              f"{period}: a layer attends where its index mod {period} is the offset")
        notes.append(f"layer i attends where i mod {period} = {offset}, a Mamba layer elsewhere (attn_layer_period)")
        return [FULL if i % period == offset else LINEAR for i in range(n)], "Mamba1"
    if r.available("full_attention_interval"):
        k = r.int("full_attention_interval", maximum=MAX_LAYERS)
        notes.append(f"every {_nth(k)} layer attends, the rest are linear (full_attention_interval {k})")
        return [FULL if (i + 1) % k == 0 else LINEAR for i in range(n)], ""
    if r.available("use_sliding_window"):
        return _qwen_windows(r, notes), ""
    if r.available("sliding_window_pattern"):
        p = r.int("sliding_window_pattern", maximum=MAX_LAYERS)
        notes.append(f"every {_nth(p)} layer is global, as sliding_window_pattern {p} says")
        return [SLIDING if (i + 1) % p else FULL for i in range(n)], ""
    if r.available("sliding_window"):
        notes.append("sliding_window with no layer_types or pattern: every layer slides, as in Mistral 7B v0.1")
        return [SLIDING] * n, ""
    return [FULL] * n, ""


def _listed(r: _Reader, key: str, vocabulary: dict, *, chars: bool = False) -> list[str]:
    """A per-layer list (or, `chars`, a string of one character per layer) in a known vocabulary."""
    name, value = r.name(key), r.raw(key)
    if chars and isinstance(value, str):
        value = list(value)
    elif chars or not isinstance(value, list):
        what = "a string of one character per layer" if chars else "a list with an entry per layer"
        raise ConfigError(f"{name} must be {what}, got {show(value)}")
    if len(value) != r.n_layers:
        raise ConfigError(f"{name} lists {len(value)} layers but {r.name('num_hidden_layers')} is {r.n_layers}")
    unknown = [v for v in value if v is None or isinstance(v, bool | dict | list) or v not in vocabulary]
    if unknown:
        known = ", ".join(json.dumps(v) for v in vocabulary)
        shown = json.dumps(unknown[0]) if isinstance(unknown[0], str | int) else show(unknown[0])
        raise ConfigError(f"{name} has {shown}, a layer kind the importer does not price; it knows {known}")
    return [vocabulary[v] for v in value]


def _indices(r: _Reader, key: str) -> set[int]:
    """A list of layer indices from 0, each once."""
    value, n = r.raw(key), r.n_layers
    if not isinstance(value, list) or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n
                                              for i in value) or len(set(value)) != len(value):
        raise ConfigError(f"{r.name(key)} must list layer indices from 0 to {n - 1} "
                          f"({r.name('num_hidden_layers')} {n}), each once; got {show(value)}")
    return set(value)


def _kimi_layers(r: _Reader) -> list[str]:
    """Kimi Linear: linear_attn_config's kda_layers and full_attn_layers, numbered from 1."""
    config, name = r.raw("linear_attn_config"), r.name("linear_attn_config")
    if not isinstance(config, dict):
        raise ConfigError(f"{name} must be an object, got {show(config)}")
    lists = {}
    for key in ("kda_layers", "full_attn_layers"):
        value = config.get(key)
        if not isinstance(value, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in value):
            raise ConfigError(f"{name}.{key} must be a list of layer numbers, got {show(value)}")
        lists[key] = value
    numbers = sorted(lists["kda_layers"] + lists["full_attn_layers"])
    if numbers != list(range(1, r.n_layers + 1)):
        raise ConfigError(f"{name}.kda_layers and .full_attn_layers must number the layers 1 to "
                          f"{r.n_layers} once each ({r.name('num_hidden_layers')})")
    full = set(lists["full_attn_layers"])
    return [FULL if i + 1 in full else LINEAR for i in range(r.n_layers)]


def _qwen_windows(r: _Reader, notes: list[str]) -> list[str]:
    """Qwen's switch: with use_sliding_window, layers from max_window_layers on slide."""
    if not r.flag("use_sliding_window"):
        notes.append("use_sliding_window is false: no layer slides")
        return [FULL] * r.n_layers
    first = r.int("max_window_layers", minimum=0, maximum=MAX_LAYERS,
                  required=": use_sliding_window is true, and layers from max_window_layers on slide")
    return [SLIDING if i >= first else FULL for i in range(r.n_layers)]


def _nth(p: int) -> str:
    return f"{p}{'th' if 10 <= p % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(p % 10, 'th')}"


def _state_kind(r: _Reader) -> str:
    """Which state the linear layers of a layout key hold, from the family's fields."""
    if r.available("linear_num_value_heads"):
        return "GDN"
    if r.available("mamba_num_heads") or r.available("mamba_n_heads"):
        return "Mamba2"
    if r.available("conv_L_cache"):
        return "ShortConv"
    key = next((k for k in ("layer_types", "layers_block_type", "full_attn_idxs", "full_attention_interval")
                if r.available(k)), "num_hidden_layers")
    raise ConfigError(f"{r.name(key)} has linear or state-space layers, but the config has no state fields the "
                      "importer knows (linear_num_value_heads for Gated DeltaNet, mamba_num_heads or mamba_n_heads "
                      "for Mamba2, conv_L_cache for a short convolution): it cannot price their state")


DTYPES = {"bfloat16": F.BF16, "float16": F.Dtype("FP16", 16), "float32": F.FP32}


def _dtype(r: _Reader, key: str, fallback: F.Dtype, why: str, notes: list[str]) -> F.Dtype:
    if not r.available(key):
        return fallback
    value = r.raw(key)
    if value not in DTYPES:
        raise ConfigError(f"{r.name(key)} must be one of {', '.join(DTYPES)}, got {show(value)}")
    notes.append(f"{why}: {value}, as {r.name(key)} says")
    return DTYPES[value]


def _state(r: _Reader, kind: str, notes: list[str]) -> State:
    """One state layer's parts at TP = 1 as vLLM sizes them (vllm/model_executor/layers/mamba/
    mamba_utils.py, MambaStateShapeCalculator; docs/counting.md): the convolution keeps its last
    kernel − 1 inputs; the recurrent state is the model's dtype unless the family says otherwise."""
    model = DTYPES.get(r.fields.get("torch_dtype", r.fields.get("dtype")), F.BF16)
    conv, rec = "convolution", "recurrent state"
    if kind == "GDN":  # Qwen3-Next, Qwen3.5
        hk, hv, dk, dv, k = (r.int(f, required=" (a Gated DeltaNet layer's state)") for f in (
            "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
            "linear_conv_kernel_dim"))
        ssm = _dtype(r, "mamba_ssm_dtype", model, "the recurrent state's dtype", notes)
        return State(kind, ((conv, (k - 1) * (2 * hk * dk + hv * dv), model), (rec, hv * dv * dk, ssm)))
    if kind == "KDA":  # Kimi Linear: the recurrent state is FP32 whatever the model's dtype
        config, name = r.raw("linear_attn_config"), r.name("linear_attn_config")
        h, d, k = (_positive(config, name, f) for f in ("num_heads", "head_dim", "short_conv_kernel_size"))
        notes.append("Kimi Delta Attention's recurrent state is FP32, as vLLM holds it")
        return State(kind, ((conv, (k - 1) * 3 * h * d, model), (rec, h * d * d, F.FP32)))
    if kind == "Mamba2" and r.available("mamba_num_heads"):  # Nemotron-H
        h, p, n, g, k = (r.int(f, required=" (a Mamba2 layer's state)") for f in (
            "mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel"))
        ssm = _dtype(r, "mamba_ssm_cache_dtype", F.FP32, "the SSM state's dtype", notes)
        if not r.available("mamba_ssm_cache_dtype"):
            notes.append("the SSM state's dtype: FP32, vLLM's default for Nemotron-H")
        return State(kind, ((conv, (k - 1) * (h * p + 2 * g * n), model), (rec, h * p * n, ssm)))
    if kind == "Mamba2":  # Granite 4.0-H, Falcon-H1: their own names, the inner width from mamba_expand
        inner, h, p, n, g, k = _mamba2_widths(r)
        return State(kind, ((conv, (k - 1) * (inner + 2 * g * n), model), (rec, h * p * n, model)))
    if kind == "ShortConv":  # LFM2: a convolution window and no recurrent state
        k = r.int("conv_L_cache", required=" (a short convolution's window)")
        width = r.int("conv_dim") if r.available("conv_dim") else r.int(
            "hidden_size", required=" (a short convolution is hidden_size channels wide)")
        return State(kind, ((conv, (k - 1) * width, model),))
    if kind == "Mamba1":  # Jamba
        expand, n, k = (r.int(f, required=" (a Mamba layer's state)") for f in (
            "mamba_expand", "mamba_d_state", "mamba_d_conv"))
        inner = expand * r.int("hidden_size", required=" (a Mamba layer's width is mamba_expand × hidden_size)")
        return State(kind, ((conv, (k - 1) * inner, model), (rec, inner * n, model)))
    # Lightning (MiniMax-Text-01, M1): one heads × head_dim × head_dim state, no convolution
    h = r.int("num_attention_heads", required="")
    d = r.int("head_dim") or r.int("hidden_size", required=" (the state's head width)") // h
    return State(kind, ((rec, h * d * d, model),))


def _mamba2_widths(r: _Reader) -> tuple[int, ...]:
    """Granite 4.0-H's and Falcon-H1's Mamba2 widths as vLLM reads them (granitemoehybrid.py,
    falcon_h1.py): the inner width is mamba_d_ssm where given, else mamba_expand × hidden_size;
    a head width of "auto" is inner ÷ heads."""
    why = " (a Mamba2 layer's state)"
    if r.available("mamba_d_ssm"):
        inner = r.int("mamba_d_ssm")
    else:
        expand = r.int("mamba_expand", required=why)
        inner = r.derived("mamba_d_ssm", expand * r.int("hidden_size", required=why), "mamba_expand × hidden_size")
    h = r.int("mamba_n_heads", required=why)
    if r.raw("mamba_d_head") == "auto":
        if inner % h:
            raise ConfigError(f"{r.name('mamba_d_head')} is \"auto\" but the inner width {inner:,} does not "
                              f"divide into {r.name('mamba_n_heads')} {h}")
        p = r.derived("mamba_d_head", inner // h, "inner width ÷ mamba_n_heads")
    else:
        p = r.int("mamba_d_head", required=why)
    n, g, k = (r.int(f, required=why) for f in ("mamba_d_state", "mamba_n_groups", "mamba_d_conv"))
    return inner, h, p, n, g, k


def _positive(config: dict, name: str, key: str) -> int:
    value = config.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_WIDTH:
        raise ConfigError(f"{name}.{key} must be a whole number from 1 to {MAX_WIDTH:,}, got {show(value)}")
    return value


def _shared(r: _Reader, tags: list[str], notes: list[str]) -> dict[int, int]:
    """Gemma 3n's and 4's last num_kv_shared_layers layers: each reads the KV of the last earlier
    layer of its type and stores none (vLLM's kv_sharing_target_layer_name)."""
    n = r.int("num_kv_shared_layers", minimum=0, maximum=r.n_layers) if r.available("num_kv_shared_layers") else 0
    if not n:
        return {}
    first = r.n_layers - n
    source = {}
    for i in range(first, r.n_layers):
        earlier = [j for j in range(first) if tags[j] == tags[i]]
        if not earlier:
            raise ConfigError(f"{r.name('num_kv_shared_layers')} {n}: layer {i} ({tags[i]}) has no earlier "
                              "layer of its type to share")
        source[i] = earlier[-1]
    notes.append(f"the last {n} layers store no KV: each reads an earlier layer's (num_kv_shared_layers)")
    return source


def _mtp(r: _Reader, notes: list[str], counted: bool) -> int:
    """How many MTP (draft) layers the config names: they hold KV only while speculative decoding
    runs them, so they are counted only when `counted`; said either way."""
    for key in ("num_nextn_predict_layers", "mtp_num_hidden_layers"):
        if r.available(key) and (n := r.int(key, minimum=0, maximum=MAX_LAYERS)):
            notes.append(f"{r.name(key)} {n}: " + ("the MTP layers are counted, each an attention layer as "
                                                    "speculative decoding runs it" if counted else
                                                    "the MTP layers are not counted; they hold KV only while "
                                                    "speculative decoding runs them"))
            return n
    return 0


def _draft_layers(r: _Reader, model: Model, n: int) -> tuple[Layer, ...]:
    """The MTP layers as vLLM allocates them: the kind compress_ratios lists past the main layers
    (DeepSeek-V4), else the model's first layer that stores global KV."""
    if "compress_ratios" in r.fields:
        extra = r.fields["compress_ratios"][r.n_layers:r.n_layers + n]
        if len(extra) == n and all(m in COMPRESSED and not isinstance(m, bool) for m in extra):
            return tuple(Layer(COMPRESSED[m], max(m, 1)) for m in extra)
    storing = next((ly for ly in model.layers if ly.stores_global), None)
    if storing is None:
        raise ConfigError(f"{r.name('num_hidden_layers')}: no layer stores global KV to model the MTP layers on")
    return (storing,) * n


def _design(design: str, tags: list[str], state: State | None) -> str:
    attention = [t for t in tags if t in (FULL, SLIDING)]
    if state and BOTH in tags:
        return f"parallel hybrid: {design} beside {state.kind} in every layer"
    if state:
        return f"hybrid {state.kind} + {design}"
    if all(t == SLIDING for t in attention):
        return f"sliding-window {design}"
    return f"hybrid local/global {design}" if SLIDING in attention else design


def _model(name: str, dims: Dims, kind: str, entry, tags: list[str], window: int, index_topk: int,
           shared: dict[int, int], state: State | None) -> Model:
    """One Layer object per kind, shared by the schedule (10,000 layers cost a few objects)."""
    plain = {FULL: Layer(kind), SLIDING: Layer("SWA"), NONE: Layer("FFN"),
             **({LINEAR: Layer(state.kind), BOTH: Layer(kind, beside=state.kind)} if state else {})}
    layers = tuple(replace(plain[t], kv_from=shared[i]) if i in shared else plain[t] for i, t in enumerate(tags))
    cache = []
    if any(ly.stores_global for ly in layers):
        cache.append(Cache("main_kv", entry, "bf16"))
        if kind == "DSA":
            cache.append(Cache("index_key", open_index_entry, "bf16"))
    if any(ly.stores_local for ly in layers):
        cache.append(Cache("local_kv", gqa_local_entry if entry is gqa_entry else entry, "bf16"))
    return Model(id="custom", name=name, dims=dims, layers=layers, cache=tuple(cache), index_topk=index_topk,
                 window=window, state=state)


def _ignored(config: dict, r: _Reader) -> tuple[str, ...]:
    """Every field the import did not read, text_config's with their prefix."""
    outer = () if not r.prefix else tuple(k for k in config if k != "text_config")
    return outer + tuple(r.name(k) for k in r.fields if k not in r.read)
