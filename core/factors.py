"""The per-token storage of a model, kind by kind of the layers that store KV, each with the
numbers the model really has:

    per-token KV = Σ over kinds: layers × entry bytes ÷ m,   entry bytes = width × bytes per value

where "entry bytes" are an entry's and, in a layer with an indexer, its index key's beside it (the
index key is not part of the entry: it is stored next to it, one per entry), and the width is
their dims together.

A kind is the layers alike in what they store: the same layer kind (MHA, MLA, DSA, CSA, HCA,
CSA2…), the same stack (V4.1's encoder or decoder), the same compression ratio m and the same
entry. Every number is one the spec and the format define: layers are counted, widths read off
the components, entry bytes are the format's (scales and padding included, which is why bytes
per value is the entry's bytes over its width, not always a format's 2, 1 or ½), m is the layer's
own. Nothing is fitted: V4-Flash is 21 CSA layers at m = 4 plus 20 HCA layers at m = 128, not
one layer kind at some mean ratio.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .cost import DEPLOYED, Precision, entry_bytes, fitted
from .models import Model
from .registry import get


@dataclass(frozen=True)
class Storing:
    """`layers` layers of one kind that store KV alike: each keeps, per `ratio` tokens, one entry and,
    where it has an indexer, the index key beside it: `width` values and `entry` bytes together."""

    kind: str  # the layer kind, with what runs beside it ("MLA", "CSA2", "GQA + Mamba2")
    stack: str  # "encoder" | "decoder" in V4.1's causal encoder–decoder, else ""
    layers: int
    ratio: int  # m: tokens per entry
    width: int  # the entry's dims (main KV), plus its index key's where the layer stores one
    entry: int  # bytes of an entry and its index key in the precision: values, scales and padding
    index_key: bool  # whether the layer stores an index key beside each entry

    @property
    def bytes_per_value(self) -> Fraction:
        """The entry's bytes over its width: a format's bytes per value plus its share of scales and padding."""
        return Fraction(self.entry, self.width)

    @property
    def per_token(self) -> Fraction:
        """What these layers add to the cache per token: layers × entry bytes ÷ m."""
        return Fraction(self.layers * self.entry, self.ratio)


def storing(model: Model | str, precision: Precision = DEPLOYED) -> tuple[Storing, ...]:
    """The kinds of layer that store KV growing with the context, in schedule order of their first
    layer; their per_token sums to core.storage_per_token(model, precision).total exactly. A model
    none of whose layers stores such KV (a fixed state only) has none."""
    m = get(model)
    b = entry_bytes(m, fitted(m, precision))
    dims = {c.role: c.dims for c in m.components}
    kinds: dict[tuple, int] = {}
    for ly in m.layers:
        if ly.stores_global:
            kinds[(ly.label, ly.stack, ly.ratio, ly.stores_index_key)] = \
                kinds.get((ly.label, ly.stack, ly.ratio, ly.stores_index_key), 0) + 1
    out = []
    for (kind, stack, ratio, key), n in kinds.items():
        width = dims["main_kv"] + (dims["index_key"] if key else 0)
        entry = b["main_kv"] + (b["index_key"] if key else 0)
        out.append(Storing(kind, stack, n, ratio, width, entry, key))
    return tuple(out)


def per_token(model: Model | str, precision: Precision = DEPLOYED) -> Fraction:
    """The per-token storage as the sum of its kinds, exact."""
    return sum((s.per_token for s in storing(model, precision)), Fraction(0))

