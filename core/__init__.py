"""KV Atlas core: model specs, byte formats and the cost model (no UI imports)."""

from .cost import (
    ALL_BF16,
    DEPLOYED,
    PRESETS,
    Parts,
    Precision,
    cache_at,
    crossover,
    crossover_tokens,
    entry_bytes,
    local_kv,
    ratio_to,
    reads,
    state_bytes,
    storage_per_token,
)
from .formats import PRECISIONS, Layout
from .models import A1_MODELS, ARTICLE_CONTEXT, MODELS, ROLES, Dims, Layer, Model
from .registry import get, imported_id

__all__ = [
    "A1_MODELS", "ALL_BF16", "ARTICLE_CONTEXT", "DEPLOYED", "MODELS", "PRECISIONS", "PRESETS", "ROLES",
    "Dims", "Layer", "Layout", "Model", "Parts", "Precision", "cache_at", "crossover", "crossover_tokens",
    "entry_bytes", "get", "imported_id", "local_kv", "ratio_to", "reads", "state_bytes", "storage_per_token",
]
