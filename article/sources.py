"""The documents the sections cite, each address written once and filled into the prose's sources
passages as {fields} (a model's config is its spec's own `source`)."""

from __future__ import annotations

_SGLANG = "https://github.com/sgl-project/sglang/blob/main/python/sglang/"

SOURCES = dict(
    v2_report="https://arxiv.org/abs/2405.04434",
    rope_paper="https://arxiv.org/abs/2104.09864",
    v4_report="https://arxiv.org/abs/2606.19348",
    v41_report="https://arxiv.org/abs/2609.19969",
    v32_report="https://arxiv.org/abs/2512.02556",
    v2_card="https://huggingface.co/deepseek-ai/DeepSeek-V2",
    v32_code="https://huggingface.co/deepseek-ai/DeepSeek-V3.2/tree/main/inference",
    flashmla_fp8="https://github.com/deepseek-ai/FlashMLA/blob/ba89a3466e9470ad08ab39738d4e7bb66989e1e7/README.md"
                 "#fp8-kv-cache",
    sglang_index_keys=_SGLANG + "srt/mem_cache/index_key_cache.py",
    sglang_v4_layout=_SGLANG + "kernels/ops/attention/dsv4/kv_layout.py",
    sglang_v4_pool=_SGLANG + "srt/mem_cache/deepseek_v4_memory_pool.py",
)
