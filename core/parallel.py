"""How a node's GPUs split a model: tensor parallelism, pipeline stages, data-parallel attention.

- **TP** (`tp` ranks) splits every layer: KV heads ⌈heads/tp⌉ a rank (`core.capacity`), a latent
  whole on each rank; weights split evenly.
- **PP** (`pp` stages) splits the layers into contiguous stages, as vLLM does
  (vllm/distributed/utils.py `get_pp_indices`: ⌊L/pp⌋ a stage, the remainder one each to the
  stages before the last); a GPU holds its stage's cache of every request in flight.
- **DP attention** (`dp` ranks, SGLang's --enable-dp-attention, vLLM's data-parallel attention
  with expert parallelism) keeps each request on one attention rank: a rank holds its own
  requests' whole cache, so a latent is no longer copied to every GPU. The attention weights are
  then whole on every rank; the rest (experts, split by EP, dense MLPs, embeddings) is split over
  all the GPUs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .checks import int_at_least, one_of
from .models import ATTENTION_KINDS, Layer, Model
from .registry import get

MODES = ("tp", "dp", "pp")  # how the planner spreads a node: all TP, DP attention (+ EP), all PP


@dataclass(frozen=True)
class Parallel:
    """tp × pp × dp GPUs: dp attention ranks, each tp ranks wide and pp stages deep."""

    tp: int = 1
    pp: int = 1
    dp: int = 1

    def __post_init__(self):
        for name in ("tp", "pp", "dp"):
            int_at_least(name, getattr(self, name))

    @classmethod
    def mode(cls, name: str, gpus: int) -> Parallel:
        """A node of `gpus` GPUs spread one way (MODES)."""
        one_of("parallel mode", name, MODES)
        gpus = int_at_least("gpus", gpus)
        return cls(**{name: gpus})

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def name(self) -> str:
        """'TP 8', 'DP 8 (attention)', 'TP 4 × PP 2'."""
        parts = [f"TP {self.tp}" if self.tp > 1 else "", f"PP {self.pp}" if self.pp > 1 else "",
                 f"DP attention {self.dp}" if self.dp > 1 else ""]
        return " × ".join(p for p in parts if p) or "1 GPU"


ONE_GPU = Parallel()


def stages(model: Model | str, pp: int) -> tuple[Model, ...]:
    """The model's layers in pp contiguous stages (vLLM's get_pp_indices), each a spec of its own."""
    m = get(model)
    pp = int_at_least("pp", pp)
    if pp > m.n_layers:
        raise ValueError(f"pp = {pp} stages for {m.n_layers} layers: a stage needs at least one layer")
    sizes = [m.n_layers // pp] * pp
    for i in range(2, m.n_layers % pp + 2):
        sizes[-i] += 1
    starts = [sum(sizes[:i]) for i in range(pp)]
    return tuple(replace(m, layers=m.layers[s:s + n]) for s, n in zip(starts, sizes))


def attention_parameters(model: Model | str) -> int:
    """Parameters of the attention projections, summed over the layers, from the widths: what data-
    parallel attention keeps whole on every rank. Norms, biases and V4's compressors are left out
    (a fraction of a percent of them)."""
    m = get(model)
    return sum(_layer_attention(m, ly) for ly in m.layers)


def _layer_attention(m: Model, ly: Layer) -> int:
    d = m.dims
    D, H = d.hidden_size, d.num_attention_heads
    if ly.kind in ("MLA", "DSA"):
        qk = d.qk_nope_head_dim + d.qk_rope_head_dim
        q = D * d.q_lora_rank + d.q_lora_rank * H * qk if d.q_lora_rank else D * H * qk
        kv = D * (d.kv_lora_rank + d.qk_rope_head_dim) + d.kv_lora_rank * H * (d.qk_nope_head_dim + d.v_head_dim)
        return q + kv + H * d.v_head_dim * D + (_indexer(m) if ly.kind == "DSA" else 0)
    if ly.kind in ("CSA", "HCA", "CSA2"):  # V4: q through its latent, one K = V entry, grouped output
        c = d.head_dim
        q = D * d.q_lora_rank + d.q_lora_rank * H * c
        # W^{O,a} is block-diagonal: g groups of H·c/g inputs to r_o outputs
        out = H * c * d.o_lora_rank + d.o_groups * d.o_lora_rank * D if d.o_groups else H * c * D
        return q + D * c + out + (_indexer(m) if ly.stores_index_key else 0)
    if ly.kind in (*ATTENTION_KINDS, "SWA"):
        local = ly.kind == "SWA" and d.swa_head_dim
        hd = (d.swa_head_dim if local else d.head_dim) or D // H
        kv = (d.swa_num_key_value_heads if local and d.swa_num_key_value_heads else d.num_key_value_heads) or H
        v = (d.swa_v_head_dim if local else d.v_head_dim) or hd
        stored = 0 if ly.shared else D * kv * (hd + v)  # a shared-KV layer has no key or value projection
        return D * H * hd + stored + H * v * D
    return 0  # a state layer's or an MLP's weights are split like the rest


def _indexer(m: Model) -> int:
    """A lightning indexer: its query from the query latent, one key, a weight per head."""
    d = m.dims
    return (d.q_lora_rank or d.hidden_size) * d.index_n_heads * d.index_head_dim + d.hidden_size * (
        d.index_head_dim + d.index_n_heads)
