"""KV Atlas core: model specs, byte formats and the cost model (no UI imports).

This module is the room's front door (`__all__`): other rooms (and pages, scripts, benchmarks) import these
names from `core`, never a module of it. The seeded mechanism runs have a door of their own, `core.mechanisms`,
which importing `core` never loads.
"""

from .budget import (
    BUDGET_PARTS,
    RUNTIME_BYTES,
    VLLM_GRAPHS_BYTES,
    VLLM_MARGIN_FLOOR,
    VLLM_MARGIN_FRACTION,
    Budget,
    budgets_side_by_side,
    gpu_budget,
    sglang_fraction,
    splittable,
)
from .capacity import BLOCK_TOKENS, kv_heads, model_weights, plan, read_floor_seconds, weights_bytes
from .checks import one_of
from .cli import parse_context
from .config_import import import_config
from .config_json import ConfigError, read_config
from .cost import (
    ALL_BF16,
    DEPLOYED,
    PRESETS,
    Group,
    Parts,
    Precision,
    ReadTerm,
    cache_at,
    crossover,
    crossover_tokens,
    entry_bytes,
    fitted,
    layer_groups,
    local_kv,
    ratio_to,
    read_terms,
    reads,
    role_layouts,
    state_bytes,
    storage_groups,
    storage_per_token,
)
from .engines import (
    GENERAL_RULES,
    SGLANG,
    SGLANG_PAGE,
    SGLANG_STATE_RATIO,
    VLLM,
    VLLM_BLOCK,
    EngineError,
    allocation,
    sglang_context_length,
    vllm_batch,
)
from .factors import Storing, storing
from .formats import BF16, E2M1, E4M3, LAYOUT_PRECISIONS, PRECISIONS, Layout
from .gpus import GPU, GPUS, custom_gpu, get_gpu
from .hub import HubError, fetch, forget_fetched, import_fetched
from .layouts import Refusal, refusal
from .models import A1_MODELS, ARTICLE_CONTEXT, MODELS, ROLES, Dims, Layer, Model
from .open_models import OPEN_IMPORTS, OPEN_MODELS
from .parallel import ENGINES, PARALLEL_MODES, Parallel, attention_parameters, published_config
from .registry import get, imported_id
from .serving import Refused, longest_context, serve, widest_dcp
from .summary import Summary, summarise
from .units import BYTE_UNITS, exact, fmt_bytes, fmt_exact, fmt_ratio, fmt_tokens
from .variants import SGLANG_PAGE_TOKENS, V4_PAGE_ALIGN, VARIANTS, Varied

__all__ = [
    # the specs, a model by id (the article's, the open presets), an imported model's id (a digest of its spec)
    "A1_MODELS", "ARTICLE_CONTEXT", "MODELS", "ROLES", "Dims", "Layer", "Model", "get", "imported_id",
    # open models from a config.json: the presets, an upload, a Hugging Face id
    "OPEN_IMPORTS", "OPEN_MODELS", "ConfigError", "HubError", "fetch", "forget_fetched", "import_config",
    "import_fetched", "read_config",
    # byte formats: what one cached value or entry takes
    "BF16", "E2M1", "E4M3", "LAYOUT_PRECISIONS", "PRECISIONS", "Layout",
    # the cost model: what each model stores and reads per token, and what sets it
    "ALL_BF16", "DEPLOYED", "PRESETS", "Group", "Parts", "Precision", "ReadTerm", "Storing", "Summary", "cache_at",
    "crossover", "crossover_tokens", "entry_bytes", "fitted", "layer_groups", "local_kv", "ratio_to", "read_terms",
    "reads", "role_layouts", "state_bytes", "storage_groups", "storage_per_token", "storing", "summarise",
    # published numbers beside the article's, and why they differ
    "SGLANG_PAGE_TOKENS", "V4_PAGE_ALIGN", "VARIANTS", "Varied",
    # GPUs, the ways to spread a node, and what fits (the planner's rule)
    "BLOCK_TOKENS", "GPU", "GPUS", "PARALLEL_MODES", "Parallel", "attention_parameters", "custom_gpu", "get_gpu",
    "kv_heads", "model_weights", "plan", "published_config", "read_floor_seconds", "weights_bytes",
    # what vLLM and SGLang allocate, the layouts they refuse, one GPU's memory budget, the serving plan
    "BUDGET_PARTS", "ENGINES", "GENERAL_RULES", "RUNTIME_BYTES", "SGLANG", "SGLANG_PAGE", "SGLANG_STATE_RATIO", "VLLM",
    "VLLM_BLOCK", "VLLM_GRAPHS_BYTES", "VLLM_MARGIN_FLOOR", "VLLM_MARGIN_FRACTION", "Budget", "EngineError",
    "Refusal", "Refused", "allocation", "budgets_side_by_side", "gpu_budget", "longest_context", "refusal", "serve",
    "sglang_context_length", "sglang_fraction", "splittable", "vllm_batch", "widest_dcp",
    # units, argument checks, the CLI's context parser
    "BYTE_UNITS", "exact", "fmt_bytes", "fmt_exact", "fmt_ratio", "fmt_tokens", "one_of", "parse_context",
]
