"""The seeded runs behind the mechanism figures (MLA, the indexers, CSA/HCA, CSA2, CED, token-axis
compression): small numpy models of each mechanism, apart from the cost model, which never imports them.

This module is their front door (`__all__`): other rooms import these names from `core.mechanisms`, never a module
of it.
"""

from .ced import executed_cells, executed_ratio, global_kv_source, prefill_grid, v41_layer_split
from .compression import CompressDims, csa_compress, entry_count, hca_compress
from .csa2 import compare_csa_csa2
from .csa_indexer import NEWEST_SKIPPED_SEED, run_csa_indexer
from .hierarchical import hierarchical_indexer, layer_modes, pool_positions_max
from .indexer import IndexerDims, run_indexer, selected_count, sparse_mla
from .matrix_text import MAX_MATRIX_SIZE, format_matrix, parse_matrix
from .mla import MLADims, content_score_orders, order_costs, output_orders, run_mla
from .numerics import CALC_PRECISIONS
from .rope import run_rope, turns
from .sharing import kv_groups, layer_roles, selection_groups
from .sink_attention import SinkDims, shared_kv_attention
from .token_axis import ARTICLE_H, ARTICLE_W_S, ARTICLE_W_U, ReadPlan, SummaryRun, read_plan, run_summary
from .visibility import gather, read_grid, visible_rows

__all__ = [
    # MLA: absorption's orders and costs, and RoPE's turns (V2, V3)
    "MLADims", "content_score_orders", "order_costs", "output_orders", "run_mla", "run_rope", "turns",
    # the lightning indexer and its sparse read (V3.2)
    "IndexerDims", "run_indexer", "selected_count", "sparse_mla",
    # V4's compression, what each query sees, sink attention and the CSA indexer
    "NEWEST_SKIPPED_SEED", "CompressDims", "SinkDims", "csa_compress", "entry_count", "gather", "hca_compress",
    "read_grid", "run_csa_indexer", "shared_kv_attention", "visible_rows",
    # V4.1: CSA2, layer sharing, the hierarchical indexer and CED
    "compare_csa_csa2", "executed_cells", "executed_ratio", "global_kv_source", "hierarchical_indexer", "kv_groups",
    "layer_modes", "layer_roles", "pool_positions_max", "prefill_grid", "selection_groups", "v41_layer_split",
    # article B's token axis
    "ARTICLE_H", "ARTICLE_W_S", "ARTICLE_W_U", "ReadPlan", "SummaryRun", "read_plan", "run_summary",
    # the numeric primitives a reader sets: the calculation's precision, a matrix typed as text
    "CALC_PRECISIONS", "MAX_MATRIX_SIZE", "format_matrix", "parse_matrix",
]
