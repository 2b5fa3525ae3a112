"""How a node's GPUs split a model: tensor parallelism, pipeline stages, data-parallel attention.

- **TP** (`tp` ranks) splits every layer: KV heads ⌈heads/tp⌉ a rank (`core.capacity`), a latent
  whole on each rank; weights split evenly.
- **PP** (`pp` stages) splits the layers into contiguous stages, as vLLM does
  (vllm/distributed/utils.py `get_pp_indices`: ⌊L/pp⌋ a stage, the remainder one each to the
  stages before the last); a GPU holds its stage's cache of every request in flight.
- **DP attention** (`dp` ranks, SGLang's --enable-dp-attention, vLLM's data-parallel attention
  with expert parallelism) keeps each request on one attention rank: a rank holds its own
  requests' whole cache, so a latent is no longer copied to every GPU. Which weights are then
  whole on every rank depends on the engine (`whole_parameters`): SGLang keeps the attention's
  and the linear-attention or state-space mixers' whole (its attention TP group) and splits the
  rest (embeddings, lm_head, dense MLPs, shared experts over TP, routed experts by EP) over all
  the GPUs; vLLM runs every DP rank at TP = 1, so everything but the routed experts (embeddings,
  lm_head, attention, mixers, dense MLPs, shared experts, routers) is whole on every GPU and only
  the routed experts span dp × tp. The theory keeps the attention and the mixers whole, as SGLang.
- **DCP** (`dcp` ranks, vLLM's and SGLang's --decode-context-parallel-size) reuses the TP ranks: groups of
  dcp consecutive TP ranks split a request's cache by token (vLLM: vllm/config/parallel.py:636-641, "DCP
  reuses the TP ranks when PCP is disabled"; SGLang: distributed/parallel_state.py:2716-2725). It adds no
  GPU: `gpus` stays tp × pp × dp. What each engine shards, and where it refuses, is core.engines'
  (`allocation(dcp=)`, `dcp_supported`) and core.layouts' (`refusal`); the theory shards the latent by
  ⌈n/dcp⌉ tokens (docs/counting.md, Engines).
"""

from __future__ import annotations

import copy
import json
import weakref
from dataclasses import dataclass, fields, replace
from functools import lru_cache

from .checks import int_at_least, one_of
from .models import ATTENTION_KINDS, Layer, Model
from .open_models import CONFIGS, OPEN_MODELS
from .registry import get

PARALLEL_MODES = ("tp", "dp", "pp")  # how the planner spreads a node: all TP, DP attention (+ EP), all PP


@dataclass(frozen=True)
class Parallel:
    """tp × pp × dp GPUs: dp attention ranks, each tp ranks wide and pp stages deep; dcp of each rank's tp
    ranks split a request's cache by token (decode context parallelism: no GPU of its own)."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    dcp: int = 1

    def __post_init__(self):
        for name in ("tp", "pp", "dp", "dcp"):
            int_at_least(name, getattr(self, name))

    @classmethod
    def mode(cls, name: str, gpus: int) -> Parallel:
        """A node of `gpus` GPUs spread one way (PARALLEL_MODES)."""
        one_of("parallel mode", name, PARALLEL_MODES)
        gpus = int_at_least("gpus", gpus)
        return cls(**{name: gpus})

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp

    @property
    def name(self) -> str:
        """'TP 8', 'DP attention 8', 'TP 4 × PP 2', 'TP 8 × DCP 8'."""
        parts = [f"TP {self.tp}" if self.tp > 1 else "", f"PP {self.pp}" if self.pp > 1 else "",
                 f"DP attention {self.dp}" if self.dp > 1 else "", f"DCP {self.dcp}" if self.dcp > 1 else ""]
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
    parts = tuple(replace(m, layers=m.layers[s:s + n]) for s, n in zip(starts, sizes))
    if pp > 1:
        for i, part in enumerate(parts):
            _STAGE_AT[id(part)] = (i, pp)
            weakref.finalize(part, _STAGE_AT.pop, id(part), None)
    return parts


_STAGE_AT: dict[int, tuple[int, int]] = {}  # id of a stage `stages` made -> (its index, the stages)


def stage_of(model: Model) -> tuple[int, int] | None:
    """(index, stages) of a pipeline stage `stages` made (the same object), None for a whole model: a stage's layers
    alone cannot say where it sits when they are alike."""
    return _STAGE_AT.get(id(model))


def attention_parameters(model: Model | str) -> int:
    """Parameters of the attention projections, summed over the layers, from the widths: what data-
    parallel attention keeps whole on every rank in every engine. Norms and biases are left out (a
    fraction of a percent of them); V4's compressors, which make its cache, are counted."""
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
        # each compressor's fused kv and score projection, D to 2 × coff × its width (coff 2 where ratio-4 windows
        # overlap: vllm/models/deepseek_v4/compressor.py:273-281); a ratio-4 layer's indexer has one of its own
        coff = 1 + (ly.ratio == 4)
        compressors = D * 2 * coff * (c + (d.index_head_dim if ly.stores_index_key else 0)) if ly.kind != "CSA2" else 0
        return q + D * c + out + compressors + (_indexer(m) if ly.stores_index_key else 0)
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


# --- What DP attention keeps whole, per engine ----------------------------------------------------

# the rules every module prices by: the theory, vLLM 0.34.0, SGLang 0.5.23 (core.engines re-exports it; defined
# here, below core.engines in the imports)
ENGINES = ("theory", "vllm", "sglang")
# the article's models' published configs (the open presets' are CONFIGS/<id>.json)
_ARTICLE_CONFIGS = {"v3": "deepseek-v3.json", "v3.2": "deepseek-v3.2.json",
                    "v4-flash": "deepseek-v4-flash.config.json"}


@dataclass(frozen=True)
class Weights:
    """A model's parameters by where data-parallel attention puts them, from the widths of its published config:
    projections only, norms, biases and per-head vectors left out as attention_parameters leaves them out."""

    attention: int  # q, k, v and o projections, MLA's latents, indexers, V4's compressors (attention_parameters)
    mixers: int  # linear-attention and state-space layers' projections and convolutions
    embeddings: int  # the input embedding and the output head (once where they are tied)
    dense: int  # dense MLP layers (Gemma 4: the dense MLP beside every MoE block)
    shared: int  # shared experts (and Qwen's shared-expert gate)
    routers: int  # the routers' gates
    experts: int  # routed experts

    @property
    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))


def published_config(model: Model | str) -> dict | None:
    """The language model's fields of a model's published config.json (text_config's for a multimodal one, the
    top level's where text_config does not say), or None for a model with none on file (an imported one). A fresh
    copy each call: the file is read once (cached), and a caller's edits reach neither the cache nor other callers."""
    c = _config(get(model).id)
    return None if c is None else copy.deepcopy(c)


@lru_cache(maxsize=64)
def _config(model_id: str) -> dict | None:
    if model_id in OPEN_MODELS:
        path = CONFIGS / f"{model_id}.json"
    elif model_id in _ARTICLE_CONFIGS:
        path = CONFIGS / _ARTICLE_CONFIGS[model_id]
    else:
        return None
    config = json.loads(path.read_text())
    text = config.get("text_config")
    if isinstance(text, dict) and "num_hidden_layers" not in config:
        return {**config, **text}
    return config


def weights(model: Model | str, config: dict | None = None) -> Weights | None:
    """The model's parameters by part, from the widths of `config` (default: its published config on file); None
    without one."""
    m = get(model)
    c = config if config is not None else published_config(m)
    if c is None:
        return None
    H = c["hidden_size"]
    vocab = c.get("vocab_size") or 0
    embeddings = vocab * H * (1 if c.get("tie_word_embeddings") else 2)
    return Weights(attention_parameters(m), _mixers(m, c), embeddings, *_mlps(c))


def whole_parameters(model: Model | str, engine: str = "theory", config: dict | None = None) -> int:
    """Parameters every data-parallel attention rank keeps whole under `engine` (ENGINES).

    SGLang (and the theory): the attention's and the mixers' (--enable-dp-attention shards them over the attention
    TP group, tp ÷ dp = 1 rank: srt/layers/dp_attention.py; models/qwen3_next.py:132, layers/attention/mamba/
    mamba.py:233-240), the rest tensor-parallel over all the GPUs (embeddings and lm_head vocab-parallel unless
    --enable-dp-lm-head, dense MLPs unless --moe-dense-tp-size). vLLM: every DP rank runs attention and the dense
    layers at TP = 1, and only the routed experts are split over dp × tp
    (model_executor/layers/fused_moe/config.py:1143-1285), so all but the routed experts is whole: the whole model for
    a model without experts. A model whose config is not on file keeps its attention whole, as the theory says."""
    one_of("engine", engine, ENGINES)
    m = get(model)
    w = weights(m, config)
    if w is None:
        return attention_parameters(m)
    if engine != "vllm":
        return w.attention + w.mixers
    if not w.experts:
        return m.parameters or w.total
    return w.total - w.experts


def mtp_layer_parameters(model: Model | str, config: dict | None = None) -> int | None:
    """Parameters of one MTP (multi-token prediction) layer of the model, from the widths of `config` (default: its
    published config on file), counted as `weights` counts the model's: the projection of [embedding; hidden state]
    to the hidden size (DeepSeek's eh_proj, Qwen's fc: 2D × D), the attention of the model's first full-attention
    layer (vLLM builds the MTP block as one: deepseek_mtp.py:103-108, qwen3_next_mtp.py:97-103) and the MLP of a
    layer past the dense ones (a MoE layer's routed and shared experts and router where the model has experts).
    Norms left out; the embedding and output head are the target's. None without a config or a full-attention
    layer."""
    m = get(model)
    c = config if config is not None else published_config(m)
    ly = next((ly for ly in m.layers if ly.kind in ATTENTION_KINDS), None)
    if c is None or ly is None:
        return None
    H = c["hidden_size"]
    one = {**c, "num_hidden_layers": 1, "first_k_dense_replace": 0, "mlp_only_layers": [], "decoder_sparse_step": 1}
    if isinstance(one.get("moe_layer_freq"), list):
        one["moe_layer_freq"] = 1
    one.pop("hybrid_override_pattern", None)  # Nemotron-H: no MTP layer read here
    if isinstance(one.get("intermediate_size"), list):
        one["intermediate_size"] = one["intermediate_size"][-1]
    return 2 * H * H + _layer_attention(m, ly) + sum(_mlps(one))


def _mlps(c: dict) -> tuple[int, int, int, int]:
    """Dense MLPs, shared experts, routers and routed experts from a config's widths: gated MLPs (gate, up and
    down: 3 matrices), Nemotron-H's relu² MLPs (up and down: 2)."""
    H, L = c["hidden_size"], c["num_hidden_layers"]
    E = c.get("n_routed_experts") or c.get("num_experts") or c.get("num_local_experts") or 0
    inter = c.get("intermediate_size") or 0
    if isinstance(inter, list):  # Gemma 3n: one width a layer, no experts
        return sum(3 * H * i for i in inter), 0, 0, 0
    pattern = c.get("hybrid_override_pattern")
    if pattern:  # Nemotron-H: '-' a dense MLP, 'E' a MoE block, relu² (up and down) in both
        moe, mlp = pattern.count("E"), pattern.count("-")
        shared = c.get("moe_shared_expert_intermediate_size") or 0
        expert = c.get("moe_intermediate_size") or 0
        return mlp * 2 * H * inter, moe * 2 * H * shared, moe * H * E, moe * E * 2 * H * expert
    moe = sum(_moe_layer(c, i) for i in range(L)) if E else 0
    expert = c.get("moe_intermediate_size") or inter  # gpt-oss, MiniMax, Granite, Llama 4: intermediate_size
    shared_width = (c.get("n_shared_experts") or c.get("num_shared_experts") or 0) * expert + (
        c.get("shared_expert_intermediate_size") or c.get("shared_intermediate_size") or 0)
    if "intermediate_size_mlp" in c:  # Llama 4: one shared expert of intermediate_size; dense layers' own width
        shared_width, inter = expert, c["intermediate_size_mlp"]
    shared = moe * (3 * H * shared_width + (H if c.get("shared_expert_intermediate_size") else 0))
    dense_layers = L if c.get("enable_moe_block") else L - moe  # Gemma 4: a dense MLP beside every MoE block
    return dense_layers * 3 * H * inter, shared, moe * H * E, moe * E * 3 * H * expert


def _moe_layer(c: dict, i: int) -> bool:
    """Whether layer i has a MoE block, as each family's config says it."""
    if "first_k_dense_replace" in c or "moe_layer_freq" in c:  # DeepSeek, GLM, Kimi, MiMo
        freq = c.get("moe_layer_freq", 1)
        return i >= (c.get("first_k_dense_replace") or 0) and bool(freq[i] if isinstance(freq, list) else i % freq == 0)
    if "decoder_sparse_step" in c or "mlp_only_layers" in c:  # Qwen
        return i not in (c.get("mlp_only_layers") or []) and (i + 1) % (c.get("decoder_sparse_step") or 1) == 0
    if "expert_layer_period" in c:  # Jamba
        return i % c["expert_layer_period"] == c.get("expert_layer_offset", 0)
    if "interleave_moe_layer_step" in c:  # Llama 4
        return (i + 1) % c["interleave_moe_layer_step"] == 0
    return True  # gpt-oss, MiniMax, Granite 4.0-H, Gemma 4, DeepSeek-V4: every layer


def _mixers(m: Model, c: dict) -> int:
    """The linear-attention and state-space layers' projections and convolutions, from the config's widths."""
    if not m.state:
        return 0
    H = c["hidden_size"]
    kind = m.state.kind
    if kind == "GDN":  # in_proj_qkvz, in_proj_ba, conv1d over q, k, v, out_proj
        hk, dk = c["linear_num_key_heads"], c["linear_key_head_dim"]
        hv, dv, k = c["linear_num_value_heads"], c["linear_value_head_dim"], c["linear_conv_kernel_dim"]
        one = H * (2 * hk * dk + 2 * hv * dv) + H * 2 * hv + k * (2 * hk * dk + hv * dv) + hv * dv * H
    elif kind == "KDA":  # q, k, v, the low-rank decay (f_a, f_b) and gate (g_a, g_b), beta, convolutions, output
        kda = c["linear_attn_config"]
        h, d, k = kda["num_heads"], kda["head_dim"], kda["short_conv_kernel_size"]
        p = h * d
        one = 3 * H * p + 2 * (H * d + d * p) + H * h + 3 * p * k + p * H
    elif kind == "Mamba2":  # in_proj (x, z, B, C, dt), conv1d over x, B and C, out_proj
        heads = c.get("mamba_num_heads") or c["mamba_n_heads"]
        head = c.get("mamba_head_dim") or c.get("mamba_d_head")
        groups = c.get("n_groups") or c.get("mamba_n_groups") or 1
        n = c.get("ssm_state_size") or c["mamba_d_state"]
        k = c.get("conv_kernel") or c["mamba_d_conv"]
        inner = c.get("mamba_d_ssm") or (heads * head if isinstance(head, int) else c["mamba_expand"] * H)
        one = H * (2 * inner + 2 * groups * n + heads) + k * (inner + 2 * groups * n) + inner * H
    elif kind == "Mamba1":  # in_proj (x, z), conv1d, x_proj (dt, B, C), dt_proj, A, out_proj
        inner, n, k = c["mamba_expand"] * H, c["mamba_d_state"], c["mamba_d_conv"]
        r = c.get("mamba_dt_rank") or -(-H // 16)
        one = H * 2 * inner + k * inner + inner * (r + 2 * n) + r * inner + inner * n + inner * H
    elif kind == "Lightning":  # qkv, the output gate, out_proj
        p = c["num_attention_heads"] * (c.get("head_dim") or H // c["num_attention_heads"])
        one = H * 3 * p + H * p + p * H
    else:  # ShortConv (LFM2): in_proj (B, C, x), the convolution, out_proj
        width = c.get("conv_dim") or H
        one = H * 3 * width + c["conv_L_cache"] * width + width * H
    return one * m.n_state
