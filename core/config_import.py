"""A model's config.json as a spec the cost model prices, or one line saying what is wrong.

The attention design comes from the fields (the counting rules are docs/counting.md's):

- kv_lora_rank with qk_rope_head_dim: MLA, one latent and one RoPE key per token and layer
  (num_key_value_heads does not matter); with index_head_dim and index_topk, a DSA indexer
  whose key is cached per token and layer too ("MLA + DSA indexer").
- otherwise num_attention_heads, num_key_value_heads, head_dim: MHA, GQA or MQA, a key and a
  value per KV head; head_dim = hidden_size / num_attention_heads where neither the file nor
  the family's config class gives one.
- sliding windows, from layer_types, a Gemma-style sliding_window_pattern (every p-th layer
  global), Qwen's use_sliding_window and max_window_layers (layers from max_window_layers on
  slide), or sliding_window alone (every layer slides, as in Mistral 7B v0.1). A sliding
  layer keeps min(N, window) positions as local KV and adds nothing per token once full.
- compress_ratios (DeepSeek-V4's compressed attention) is refused: the article's V4 specs
  model it.

A multimodal config's language model is read from text_config. Where the file omits a field,
the default of the family's transformers config class applies (FAMILIES) and the import says
so. An imported model caches BF16 unless priced otherwise (core.formats.OPEN_PRECISIONS).
"""

from __future__ import annotations

import codecs
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .models import Cache, Dims, Layer, Model, gqa_entry, open_index_entry, open_mla_entry

MAX_BYTES = 1 << 20  # 1 MB; a config.json is a few kB
MAX_DEPTH = 16  # nesting levels; real configs use 5 at most
MAX_LAYERS = 10_000
MAX_WIDTH = 1 << 20  # heads and widths
MAX_ENTRY = 1 << 18  # values one layer caches per token: keeps bytes in int64 up to 2^30 tokens
MAX_POSITIONS = 1 << 30  # windows and top-k
FULL, SLIDING = "full_attention", "sliding_attention"


class ConfigError(ValueError):
    """What is wrong with a config, in one line that names the field."""

    def __init__(self, message: str):
        super().__init__(" ".join(message.split()))


@dataclass(frozen=True)
class Imported:
    """An imported config: the spec, its attention design and what the import read.

    used: field -> value taken from the file (text_config.<field> for a multimodal one);
    defaulted: field -> (value, where it comes from) for what the file leaves out;
    ignored: fields that do not change the KV cache; notes: what a reader should know.
    """

    model: Model
    design: str
    used: dict[str, object]
    defaulted: dict[str, tuple[object, str]]
    ignored: tuple[str, ...]
    notes: tuple[str, ...]


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
}
ALIASES = {"gemma3": "gemma3_text", "kimi_k2": "deepseek_v3"}  # Kimi K2 loads DeepseekV3Config


# --- Parsing ---------------------------------------------------------------------------

def read_config(data: bytes | str) -> dict:
    """The config as a dict; ConfigError for anything that is not one JSON object."""
    return _parse(data)[0]


def _parse(data) -> tuple[dict, list[str]]:
    notes: list[str] = []
    text = _text(data, notes)
    if not text.strip():
        raise ConfigError("the config is empty")
    _check_depth(text)
    try:
        config = json.loads(text, object_pairs_hook=lambda pairs: _object(pairs, notes),
                            parse_constant=_NonFinite)
    except json.JSONDecodeError as e:
        truncated = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")
        what = "ends early (truncated?)" if truncated else "is not valid JSON"
        raise ConfigError(f"the config {what}: {e.msg} at line {e.lineno}, column {e.colno}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"the config must be a JSON object {{…}}, not {_show(config)}")
    return config, notes


_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _text(data, notes: list[str]) -> str:
    """Text from bytes in UTF-8, -16 or -32, with or without a byte-order mark."""
    if not isinstance(data, bytes | bytearray | str):
        raise ConfigError(f"the config must be JSON text or bytes, not {type(data).__name__}")
    if len(data) > MAX_BYTES:
        unit = "characters" if isinstance(data, str) else "bytes"
        raise ConfigError(f"the config is over {MAX_BYTES:,} {unit} (1 MB); a config.json is a few kB")
    if isinstance(data, str):
        if data.startswith("\ufeff"):
            notes.append("removed a byte-order mark before the JSON")
        return data.removeprefix("\ufeff")
    data = bytes(data)
    encoding = next((enc for bom, enc in _BOMS if data.startswith(bom)), None) or json.detect_encoding(data)
    if encoding != "utf-8":
        mark = "with" if encoding in {enc for _, enc in _BOMS} else "without"
        notes.append(f"decoded {encoding.removesuffix('-sig').upper()} text {mark} a byte-order mark")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as e:
        raise ConfigError(f"the config is not {encoding} text: byte {e.object[e.start]:#04x} "
                          f"at offset {e.start} cannot be decoded") from None


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _check_depth(text: str) -> None:
    """Refuse deep nesting before the parser recurses into it."""
    depth = deepest = 0
    for ch in re.sub(r"[^\[\]{}]", "", _STRING.sub("", text)):
        depth += 1 if ch in "[{" else -1
        deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        raise ConfigError(f"the config is nested {deepest} levels deep; a config.json needs at most {MAX_DEPTH}")


class _NonFinite:
    """NaN or ±Infinity in the text, which JSON does not allow; refused with its key."""

    def __init__(self, literal: str):
        self.literal = literal


def _object(pairs: list[tuple[str, object]], notes: list[str]) -> dict:
    """A JSON object; a key given twice keeps its last value, as json does, and is noted."""
    out = dict(pairs)
    for key, value in pairs:
        if literal := _non_finite(value):
            raise ConfigError(f"{key} is {literal}, which JSON does not allow")
    for key, n in Counter(k for k, _ in pairs).items():
        if n > 1:
            times = "twice" if n == 2 else f"{n} times"
            notes.append(f"key {key!r} given {times}; used the last value {_show(out[key])}")
    return out


def _non_finite(value) -> str | None:
    if isinstance(value, _NonFinite):
        return value.literal
    if isinstance(value, list):
        return next((found for v in value if (found := _non_finite(v))), None)
    return None


def _show(value) -> str:
    """A value as JSON spells it, short: true, null, "32", a list, an object."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, _NonFinite):
        return value.literal
    text = json.dumps(value)
    text = text if len(text) <= 40 else text[:39] + "…"
    return f"a string {text}" if isinstance(value, str) else text


# --- Reading fields ------------------------------------------------------------------------

class _Reader:
    """The language model's fields, with the family's defaults; records what it reads."""

    def __init__(self, fields: dict, prefix: str, family: str):
        self.fields, self.prefix = fields, prefix
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
            raise ConfigError(f"{self.name(key)} must be an integer, got {_show(value)}")
        if value < minimum:
            raise ConfigError(f"{self.name(key)} must be at least {minimum}, got {value}")
        if value > maximum:
            raise ConfigError(f"{self.name(key)} {value:,} is absurd; at most {maximum:,}")
        return value

    def flag(self, key: str) -> bool | None:
        value = self.raw(key)
        if value is not None and not isinstance(value, bool):
            raise ConfigError(f"{self.name(key)} must be true or false, got {_show(value)}")
        return value


def _language_model(config: dict) -> tuple[dict, str]:
    """The fields that describe the language model: the config's own, or text_config's."""
    if any(k in config for k in ("num_hidden_layers", "num_attention_heads", "kv_lora_rank")):
        return config, ""
    text = config.get("text_config")
    if text is None:
        return config, ""
    if not isinstance(text, dict):
        raise ConfigError(f"text_config must be an object, got {_show(text)}")
    return text, "text_config."


def _family(config: dict, fields: dict) -> str:
    model_type = fields.get("model_type", config.get("model_type"))
    return ALIASES.get(model_type, model_type) if isinstance(model_type, str) else ""


# --- The import ----------------------------------------------------------------------------

def import_config(config: dict | bytes | str, *, name: str = "custom") -> Imported:
    """The spec of a config.json (its text, bytes or parsed dict), id "custom", named `name`.

    Raises ConfigError, one line naming the field, for anything it cannot price exactly.
    """
    config, notes = (config, []) if isinstance(config, dict) else _parse(config)
    fields, prefix = _language_model(config)
    r = _Reader(fields, prefix, _family(config, fields))
    if r.config_class:
        r.raw("model_type")
    if prefix:
        notes.append("read the language model's fields from text_config")
    if "compress_ratios" in fields:
        raise ConfigError(f"{r.name('compress_ratios')}: DeepSeek-V4-style compressed attention is not imported; "
                          "the article's V4-Flash and V4.1-Flash specs model it")
    mla = r.available("kv_lora_rank")
    if not mla and not r.available("num_attention_heads"):
        arch = fields.get("architectures") or config.get("architectures") or fields.get("model_type")
        arch = arch[0] if isinstance(arch, list) and arch else arch
        which = f"the {arch} config" if isinstance(arch, str) and arch else "this config"
        raise ConfigError(f"no attention fields (num_attention_heads, or kv_lora_rank for MLA) in {which}: "
                          "nothing in it is a KV cache the importer can count")
    r.n_layers = r.int("num_hidden_layers", maximum=MAX_LAYERS, required="")
    design, kind, dims, entry, index_topk = (_mla if mla else _gqa)(r, notes)
    slides, window = _schedule(r, notes)
    model = _model(name, dims, kind, entry, slides, window, index_topk)
    return Imported(model=model, design=_with_windows(design, slides), used=r.used, defaulted=r.defaulted,
                    ignored=_ignored(config, r), notes=tuple(notes))


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
                     f"num_key_value_heads {_show(r.fields['num_key_value_heads'])} does not change the cache")
    if isinstance(r.fields.get("num_nextn_predict_layers"), int) and r.fields["num_nextn_predict_layers"] > 0:
        notes.append("num_nextn_predict_layers (the MTP module) is not counted, as the article counts the main layers")
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
    head_dim = r.int("head_dim")
    hidden = r.int("hidden_size", required=None if head_dim else f": head_dim is not given, so it is hidden_size / "
                                                                  f"{r.name('num_attention_heads')}")
    if head_dim is None:
        if hidden % heads:
            raise ConfigError(f"head_dim is not given and {r.name('hidden_size')} {hidden} / "
                              f"{r.name('num_attention_heads')} {heads} = {hidden / heads:g} is fractional")
        head_dim = r.derived("head_dim", hidden // heads, "hidden_size / num_attention_heads, as the config classes do")
    _entry_size(2 * kv * head_dim, f"2 × {kv} num_key_value_heads × {head_dim} head_dim")
    design = "MHA" if kv == heads else "MQA" if kv == 1 else "GQA"
    dims = Dims(hidden_size=hidden or 0, num_attention_heads=heads, num_key_value_heads=kv, head_dim=head_dim)
    return design, "MHA" if kv == heads else "GQA", dims, gqa_entry, 0


def _entry_size(values: int, how: str) -> None:
    if values > MAX_ENTRY:
        raise ConfigError(f"{how} = {values:,} values per token and layer is absurd; at most {MAX_ENTRY:,}")


def _schedule(r: _Reader, notes: list[str]) -> tuple[list[bool], int]:
    """Which layers slide, and their window (0 where none does)."""
    n = r.n_layers
    if r.available("layer_types"):
        slides = _layer_types(r, r.raw("layer_types"))
    elif r.available("use_sliding_window"):
        slides = _qwen_windows(r, notes)
    elif r.available("sliding_window_pattern"):
        p = r.int("sliding_window_pattern", maximum=MAX_LAYERS)
        slides = [bool((i + 1) % p) for i in range(n)]
        notes.append(f"every {_nth(p)} layer is global, as sliding_window_pattern {p} says")
    elif r.available("sliding_window"):
        slides = [True] * n
        notes.append("sliding_window with no layer_types or pattern: every layer slides, as in Mistral 7B v0.1")
    else:
        return [False] * n, 0
    if not any(slides):
        return slides, 0
    window = r.int("sliding_window", maximum=MAX_POSITIONS,
                   required=": some layers slide, and a sliding layer keeps the last sliding_window positions")
    return slides, window


def _layer_types(r: _Reader, types) -> list[bool]:
    name = r.name("layer_types")
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
        raise ConfigError(f"{name} must be a list of strings, got {_show(types)}")
    if len(types) != r.n_layers:
        raise ConfigError(f"{name} lists {len(types)} layers but {r.name('num_hidden_layers')} is {r.n_layers}")
    unknown = next((t for t in types if t not in (FULL, SLIDING)), None)
    if unknown is not None:
        raise ConfigError(f"{name} has {unknown!r}; the importer counts {FULL} and {SLIDING} layers")
    return [t == SLIDING for t in types]


def _qwen_windows(r: _Reader, notes: list[str]) -> list[bool]:
    """Qwen's switch: with use_sliding_window, layers from max_window_layers on slide."""
    if not r.flag("use_sliding_window"):
        notes.append("use_sliding_window is false: no layer slides")
        return [False] * r.n_layers
    first = r.int("max_window_layers", minimum=0, maximum=MAX_LAYERS,
                  required=": use_sliding_window is true, and layers from max_window_layers on slide")
    return [i >= first for i in range(r.n_layers)]


def _nth(p: int) -> str:
    return f"{p}{'th' if 10 <= p % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(p % 10, 'th')}"


def _with_windows(design: str, slides: list[bool]) -> str:
    if all(slides):
        return f"sliding-window {design}"
    return f"hybrid local/global {design}" if any(slides) else design


def _model(name: str, dims: Dims, kind: str, entry, slides: list[bool], window: int, index_topk: int) -> Model:
    """One Layer object per kind, shared by the schedule (10,000 layers cost two objects)."""
    full, local = Layer(kind), Layer("SWA")
    cache = []
    if not all(slides):
        cache.append(Cache("main_kv", entry, "bf16"))
        if kind == "DSA":
            cache.append(Cache("index_key", open_index_entry, "bf16"))
    if any(slides):
        cache.append(Cache("local_kv", entry, "bf16"))
    return Model(id="custom", name=name, dims=dims, layers=tuple(local if s else full for s in slides),
                 cache=tuple(cache), index_topk=index_topk, window=window)


def _ignored(config: dict, r: _Reader) -> tuple[str, ...]:
    """Every field the import did not read, text_config's with their prefix."""
    outer = () if not r.prefix else tuple(k for k in config if k != "text_config")
    return outer + tuple(r.name(k) for k in r.fields if k not in r.read)
