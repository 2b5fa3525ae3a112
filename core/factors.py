"""The article's per-token formula, factor by factor, computed from each model's spec:

    per-token KV = width × layers storing × bytes per element ÷ compression ratio

Where layers differ (V4-Flash mixes CSA and HCA), width is the mean stored width over the
storing layers, bytes per element the deployed bytes over the stored dims, and the ratio is
what makes the product exact: Σ entry bytes ÷ Σ (entry bytes ÷ m).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .cost import DEPLOYED, Precision, entry_bytes
from .models import Model
from .registry import get


@dataclass(frozen=True)
class Factors:
    width: float  # dims stored per token and storing layer (main KV + index key)
    layers: int  # layers that store global KV
    bytes_per_element: float
    ratio: float  # tokens per stored entry (effective)

    @property
    def total(self) -> float:
        return self.width * self.layers * self.bytes_per_element / self.ratio


def factors(model: Model | str, precision: Precision = DEPLOYED) -> Factors:
    m = get(model)
    b = entry_bytes(m, precision)
    dims = {c.role: c.dims for c in m.components}
    storing = [ly for ly in m.layers if ly.stores_global]
    if not storing:
        raise ValueError(f"{m.name} has no layer that stores global KV")
    width = sum(dims["main_kv"] + (dims["index_key"] if ly.stores_index_key else 0) for ly in storing)
    nbytes = sum(b["main_kv"] + (b["index_key"] if ly.stores_index_key else 0) for ly in storing)
    per_token = sum(Fraction(b["main_kv"] + (b["index_key"] if ly.stores_index_key else 0), ly.ratio)
                    for ly in storing)
    return Factors(width / len(storing), len(storing), nbytes / width, float(nbytes / per_token))
