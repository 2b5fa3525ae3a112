"""Layer sharing read off a model's schedule (V4.1-Flash's Full / Reindex / Reuse): what each
layer makes, borrows and reads, and the groups of layers that share KV or a selection list.
Nothing here is typed per model: change the schedule in core.models and all of it follows."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Model
from ..registry import get


@dataclass(frozen=True)
class LayerRole:
    index: int
    stack: str  # "encoder" | "decoder" | ""
    kind: str
    ratio: int
    mode: str  # full | reindex | reuse for CSA2; "" otherwise
    kv_from: int | None  # whose global KV it reads (itself when it stores)
    sel_from: int | None  # whose selection list it uses (itself when it selects)
    stores_global: bool
    stores_index_key: bool
    windowed: bool

    @property
    def label(self) -> str:
        """SWA, Full, Reindex or Reuse (CSA2), else the layer kind."""
        return self.mode.capitalize() if self.kind == "CSA2" else self.kind


def layer_roles(model: Model | str) -> tuple[LayerRole, ...]:
    m = get(model)
    return tuple(
        LayerRole(i, ly.stack, ly.kind, ly.ratio, ly.mode if ly.kind == "CSA2" else "", ly.kv_from, ly.sel_from,
                  ly.stores_global, ly.stores_index_key, ly.windowed)
        for i, ly in enumerate(m.layers))


@dataclass(frozen=True)
class Group:
    """Consecutive layers that share one thing (a global KV or a selection list) made by `owner`."""

    owner: int
    first: int
    last: int

    @property
    def size(self) -> int:
        return self.last - self.first + 1


def _groups(roles, key) -> tuple[Group, ...]:
    out: list[Group] = []
    for r in roles:
        k = key(r)
        if k is None:
            continue
        if out and out[-1].owner == k and out[-1].last == r.index - 1:
            out[-1] = Group(k, out[-1].first, r.index)
        else:
            out.append(Group(k, r.index, r.index))
    return tuple(out)


def kv_groups(model: Model | str) -> tuple[Group, ...]:
    """Layers reading the same global KV, e.g. V4.1's decoder: one group of 20 layers."""
    return _groups(layer_roles(model), lambda r: r.kv_from)


def selection_groups(model: Model | str) -> tuple[Group, ...]:
    """Layers using the same selection list: a Full or Reindex layer and the Reuse layers after it."""
    return _groups(layer_roles(model), lambda r: r.sel_from)
