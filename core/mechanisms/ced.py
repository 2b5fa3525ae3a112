"""V4.1-Flash's causal encoder–decoder (CED) and its bounded-replay prefill (figures A26, A27).

Encoder and decoder both run causally over the same tokens. The decoder's global KV (main
KV and index key) is made from the encoder's final output H^{L/2} by the first decoder Full
layer and shared by every decoder layer; each decoder layer makes its own query and local
KV (A26).

Prefill without a cache (A27): every encoder layer runs at every prompt position, so the
global KV exists for all positions; each decoder layer needs only its local KV of the
recent `window` positions, so it runs ("replays") only the last min(window, prompt)
positions. Of prompt × (E + Dec) (position, layer) cells,

    executed = prompt · E + min(window, prompt) · Dec
    ratio    = executed / (prompt · (E + Dec))  →  E / (E + Dec)  as prompt → ∞

which is ½ for V4.1-Flash's 20 + 20 layers: a count of cells, not of time. Everything about
the model (layer split, window, who makes the global KV) is read from its spec.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..checks import int_at_least, whole_numbers
from ..models import Model
from ..registry import get

SKIPPED, ENCODER, DECODER = 0, 1, 2  # prefill_grid codes: skipped, executed encoder / decoder cell


class LayerSplit(NamedTuple):
    """(encoder layers E, decoder layers Dec, window) of a CED model."""

    encoder_layers: int
    decoder_layers: int
    window: int


def v41_layer_split(model: Model | str = "v4.1-flash") -> LayerSplit:
    """E and Dec counted from the layers' `stack` field, the window from the spec (20, 20, 128)."""
    m = get(model)
    split = LayerSplit(m.count(lambda ly: ly.stack == "encoder"), m.count(lambda ly: ly.stack == "decoder"), m.window)
    if not split.encoder_layers or not split.decoder_layers or not split.window:
        raise ValueError(f"{m.id} is not a causal encoder–decoder with a window: {split}")
    return split


def _checked(encoder_layers, decoder_layers, window) -> LayerSplit:
    """A split to draw or count: an encoder layer at least, any decoder layers, a window."""
    return LayerSplit(int_at_least("encoder_layers", encoder_layers), int_at_least("decoder_layers", decoder_layers, 0),
                      int_at_least("window", window))


def prefill_grid(prompt: int, encoder_layers: int, decoder_layers: int, window: int) -> np.ndarray:
    """[E + Dec, prompt] int8 codes, row 0 = encoder layer 1 (bottom), last row = the top
    decoder layer: ENCODER (1) everywhere in encoder rows; DECODER (2) in decoder rows at the
    last min(window, prompt) positions, SKIPPED (0) before them."""
    prompt = int_at_least("prompt", prompt)
    E, Dec, window = _checked(encoder_layers, decoder_layers, window)
    grid = np.full((E + Dec, prompt), SKIPPED, dtype=np.int8)
    grid[:E] = ENCODER
    grid[E:, prompt - min(window, prompt):] = DECODER
    return grid


def executed_cells(prompt, encoder_layers: int, decoder_layers: int, window: int):
    """prompt · E + min(window, prompt) · Dec, vectorised over `prompt` (int or int array)."""
    E, Dec, window = _checked(encoder_layers, decoder_layers, window)
    p = whole_numbers("prompt", prompt, 1)
    out = p * E + np.minimum(window, p) * Dec
    return int(out) if out.ndim == 0 else out


def executed_ratio(prompt, encoder_layers: int, decoder_layers: int, window: int):
    """Executed cells / all prompt · (E + Dec) cells; float, or an array like `prompt`.
    1 while prompt ≤ window, → E / (E + Dec) for long prompts."""
    cells = executed_cells(prompt, encoder_layers, decoder_layers, window)
    all_cells = np.asarray(prompt, dtype=np.float64) * (encoder_layers + decoder_layers)
    out = np.asarray(cells, dtype=np.float64) / all_cells
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True, kw_only=True)
class GlobalKVSource:
    """Where the decoder's global KV comes from (A26). Layer indices are 0-based in the
    spec's order (layer i is drawn as layer i + 1)."""

    maker: int  # the first decoder Full layer: projects the encoder output into main KV + index key
    fed_by: int  # the last encoder layer, whose output H^{L/2} the maker projects
    readers: tuple[int, ...]  # decoder layers that read that global KV (kv_from == maker)
    selectors: tuple[int, ...]  # decoder layers that make a selection list (Full and Reindex)


def global_kv_source(model_id: Model | str = "v4.1-flash") -> GlobalKVSource:
    """Derived from the spec's `stack`, `mode` and `kv_from` fields."""
    m = get(model_id)
    layers = m.layers
    encoder = [i for i, ly in enumerate(layers) if ly.stack == "encoder"]
    decoder = [i for i, ly in enumerate(layers) if ly.stack == "decoder"]
    makers = [i for i in decoder if layers[i].kind == "CSA2" and layers[i].mode == "full"]
    if not encoder or not makers:
        raise ValueError(f"{m.id} has no encoder or no decoder Full layer")
    maker = makers[0]
    if encoder[-1] + 1 != decoder[0]:
        raise ValueError(f"{m.id}: the decoder layers should follow the encoder layers")
    readers = tuple(i for i in decoder if layers[i].kv_from == maker)
    selectors = tuple(i for i in decoder if layers[i].kind == "CSA2" and layers[i].mode in ("full", "reindex"))
    return GlobalKVSource(maker=maker, fed_by=encoder[-1], readers=readers, selectors=selectors)
