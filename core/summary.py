"""Per-model summary rows: what the bars, the numbers table and the CLI all show."""

from __future__ import annotations

from dataclasses import dataclass

from . import cost
from .models import Model
from .registry import get


@dataclass(frozen=True, kw_only=True)
class Summary:
    model: Model
    context: int
    storage: cost.Parts  # growth per token (local KV excluded)
    local_kv: int  # full window
    cache: cost.Parts  # at context
    read: cost.Parts  # one decode step at context
    ratio: float  # MHA storage / this storage
    crossover: float | None
    crossover_tokens: int | None
    formats: dict  # role -> Layout in use

    @property
    def key_share(self) -> float:
        return self.read.index_key / self.read.total if self.read.total else 0.0


def summarise(model: Model | str, context: int, precision: cost.Precision = cost.DEPLOYED) -> Summary:
    """One model's row: an id (the article's, an open preset) or a spec (an imported model's)."""
    m = get(model)
    formats = cost.role_layouts(m, precision)
    precision = cost.fitted(m, precision)
    return Summary(
        model=m,
        context=int(context),
        storage=cost.storage_per_token(m, precision),
        local_kv=cost.local_kv(m, precision),
        cache=cost.cache_at(m, int(context), precision),
        read=cost.reads(m, int(context), precision),
        ratio=cost.ratio_to(m, "mha", precision),
        crossover=cost.crossover(m, precision),
        crossover_tokens=cost.crossover_tokens(m, precision),
        formats=formats,
    )
