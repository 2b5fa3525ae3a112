"""A config.json as a reader sends it, untrusted: JSON text or bytes in any Unicode encoding (a byte-order mark
removed and said), at most 1 MB and 16 levels deep, one object, a key given twice or a NaN or Infinity noted
rather than trusted; anything else is a ConfigError of one line. What the fields mean is core.config_import's."""

from __future__ import annotations

import codecs
import json
import re
from collections import Counter

MAX_BYTES = 1 << 20  # 1 MB; a config.json is a few kB
MAX_DEPTH = 16  # nesting levels; real configs use 5 at most


class ConfigError(ValueError):
    """What is wrong with a config, in one line that names the field."""

    def __init__(self, message: str):
        super().__init__(" ".join(message.split()))


def read_config(data: bytes | str) -> dict:
    """The config as a dict; ConfigError for anything that is not one JSON object."""
    return parse(data)[0]


def parse(data) -> tuple[dict, list[str]]:
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
        raise ConfigError(f"the config must be a JSON object {{…}}, not {show(config)}")
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
    """NaN or ±Infinity in the text, which JSON does not allow (Nemotron-H publishes
    "time_step_limit": [0.0, Infinity]): refused in a field the import reads, else noted."""

    def __init__(self, literal: str):
        self.literal = literal


def _object(pairs: list[tuple[str, object]], notes: list[str]) -> dict:
    """A JSON object; a key given twice keeps its last value, as json does, and is noted. A NaN or
    Infinity stays as it is: refused where the import reads it, noted where it does not."""
    out = dict(pairs)
    for key, n in Counter(k for k, _ in pairs).items():
        if n > 1:
            times = "twice" if n == 2 else f"{n} times"
            notes.append(f"key {key!r} given {times}; used the last value {show(out[key])}")
    return out


def non_finite(value) -> str | None:
    if isinstance(value, _NonFinite):
        return value.literal
    if isinstance(value, list | dict):
        return next((found for v in (value.values() if isinstance(value, dict) else value)
                     if (found := non_finite(v))), None)
    return None


def field(config: dict, key: str):
    """A field by its name as the import reports it (text_config.<key> for a multimodal one's)."""
    outer, _, inner = key.partition(".")
    return config.get(outer, {}).get(inner) if inner and isinstance(config.get(outer), dict) else config.get(key)


def show(value) -> str:
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
