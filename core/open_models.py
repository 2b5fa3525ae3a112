"""Presets for widely used open models, each imported from its published config.json.

The config files are kept, as published, in core/configs/<id>.json, package data shipped with core
(their README says where each was checked), so the presets and the tests read the very same files
and no width is typed twice. A preset's config is read and imported the first time the preset is
asked for, not when core is imported. Parameter counts are totals (weights' memory) as their sources
state them: exact where the Hugging Face model API's safetensors count is published, else rounded
as the model card or report rounds it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path

from .config_import import Imported, import_config
from .models import Model

CONFIGS = Path(__file__).resolve().parent / "configs"
_HF = "https://huggingface.co"

# id, name, total parameters, the config's URL
_PRESETS = (
    # safetensors total 8,030,261,248 (Hugging Face model API)
    ("llama-3.1-8b", "Llama 3.1 8B", 8_030_261_248, f"{_HF}/meta-llama/Llama-3.1-8B/blob/main/config.json"),
    # from the widths: embeddings and output head 2 × 128,256 × 8,192, 80 layers of 2 × 8,192² + 2 × 8,192 × 1,024
    # (q, o, k, v) + 3 × 8,192 × 28,672 (MLP) + 2 × 8,192 (norms), the final norm: 70,553,706,496 (the model card: 70B)
    ("llama-3.1-70b", "Llama 3.1 70B", 70_553_706_496, f"{_HF}/meta-llama/Llama-3.1-70B/blob/main/config.json"),
    # safetensors totals 8,190,735,360 and 32,762,123,264 (the model cards: 8.2B, 32.8B)
    ("qwen3-8b", "Qwen3 8B", 8_190_735_360, f"{_HF}/Qwen/Qwen3-8B/blob/main/config.json"),
    ("qwen3-32b", "Qwen3 32B", 32_762_123_264, f"{_HF}/Qwen/Qwen3-32B/blob/main/config.json"),
    # safetensors total 4,300,079,472, the SigLIP vision tower included
    ("gemma-3-4b", "Gemma 3 4B", 4_300_079_472, f"{_HF}/google/gemma-3-4b-it/blob/main/config.json"),
    # parameter counts 20,914,757,184 and 116,829,156,672 (the model card: 21B, 117B)
    ("gpt-oss-20b", "gpt-oss-20b", 20_914_757_184, f"{_HF}/openai/gpt-oss-20b/blob/main/config.json"),
    ("gpt-oss-120b", "gpt-oss-120b", 116_829_156_672, f"{_HF}/openai/gpt-oss-120b/blob/main/config.json"),
    # the model card and report (arXiv:2507.20534): "1 trillion total parameters"
    ("kimi-k2", "Kimi K2", 1_000_000_000_000, f"{_HF}/moonshotai/Kimi-K2-Instruct/blob/main/config.json"),
    # safetensors total 7,241,732,096
    ("mistral-7b-v0.1", "Mistral 7B v0.1", 7_241_732_096, f"{_HF}/mistralai/Mistral-7B-v0.1/blob/main/config.json"),
    # DeepSeek-V3 report (arXiv:2412.19437) and the V3.2 README: 671B; Hugging Face's 685B adds
    # the 14B MTP module, whose cache the article does not count
    ("deepseek-v3", "DeepSeek-V3", 671_000_000_000, f"{_HF}/deepseek-ai/DeepSeek-V3/blob/main/config.json"),
    ("deepseek-v3.2", "DeepSeek-V3.2", 671_000_000_000, f"{_HF}/deepseek-ai/DeepSeek-V3.2/blob/main/config.json"),
    # 2025–26 models, hybrids among them. Totals as their names and cards round them: "80B", "27B",
    # "35B-A3B", "397B-A17B", "48B-A3B", "30B-A3B", "56B", "26B-A4B", "235B-A22B", "7B"; Jamba 1.5 Mini
    # 52B (AI21's card: 12B active of 52B), Gemma 3n E2B 5B raw (its card: 2B effective, 5B raw),
    # MiMo-V2-Flash 309B (its card), MiniMax-M2.7 230B (MiniMax-M2's card; the same architecture),
    # Kimi K2.5 1T (its card), Llama 4 Scout 109B (Meta's card: 17B active of 109B), Phi-4-mini 3.8B,
    # GLM-5 744B (its report, arXiv:2602.15763; GLM-5.1's config is GLM-5's, so the same total).
    ("qwen3-next-80b-a3b", "Qwen3-Next 80B-A3B", 80_000_000_000,
     f"{_HF}/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json"),
    ("qwen3.5-27b", "Qwen3.5 27B", 27_000_000_000, f"{_HF}/Qwen/Qwen3.5-27B/blob/main/config.json"),
    ("qwen3.5-35b-a3b", "Qwen3.5 35B-A3B", 35_000_000_000, f"{_HF}/Qwen/Qwen3.5-35B-A3B/blob/main/config.json"),
    ("qwen3.5-397b-a17b", "Qwen3.5 397B-A17B", 397_000_000_000,
     f"{_HF}/Qwen/Qwen3.5-397B-A17B/blob/main/config.json"),
    ("kimi-linear-48b-a3b", "Kimi Linear 48B-A3B", 48_000_000_000,
     f"{_HF}/moonshotai/Kimi-Linear-48B-A3B-Instruct/blob/main/config.json"),
    ("kimi-k2.5", "Kimi K2.5", 1_000_000_000_000, f"{_HF}/moonshotai/Kimi-K2.5/blob/main/config.json"),
    ("nemotron-3-nano-30b-a3b", "Nemotron 3 Nano 30B-A3B", 30_000_000_000,
     f"{_HF}/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/blob/main/config.json"),
    ("nemotron-h-56b", "Nemotron-H 56B", 56_000_000_000, f"{_HF}/nvidia/Nemotron-H-56B-Base-8K/blob/main/config.json"),
    ("jamba-1.5-mini", "Jamba 1.5 Mini", 52_000_000_000, f"{_HF}/ai21labs/AI21-Jamba-1.5-Mini/blob/main/config.json"),
    ("gemma-3n-e2b", "Gemma 3n E2B", 5_000_000_000, f"{_HF}/google/gemma-3n-E2B/blob/main/config.json"),
    ("gemma-4-26b-a4b", "Gemma 4 26B-A4B", 26_000_000_000, f"{_HF}/google/gemma-4-26B-A4B/blob/main/config.json"),
    ("mimo-v2-flash", "MiMo-V2-Flash", 309_000_000_000, f"{_HF}/XiaomiMiMo/MiMo-V2-Flash/blob/main/config.json"),
    ("minimax-m2.7", "MiniMax-M2.7", 230_000_000_000, f"{_HF}/MiniMaxAI/MiniMax-M2.7/blob/main/config.json"),
    ("glm-5", "GLM-5", 744_000_000_000, f"{_HF}/zai-org/GLM-5/blob/main/config.json"),
    ("glm-5.1", "GLM-5.1", 744_000_000_000, f"{_HF}/zai-org/GLM-5.1/blob/main/config.json"),
    ("qwen3-235b-a22b", "Qwen3 235B-A22B", 235_000_000_000, f"{_HF}/Qwen/Qwen3-235B-A22B/blob/main/config.json"),
    ("llama-4-scout", "Llama 4 Scout", 109_000_000_000,
     f"{_HF}/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json"),
    ("olmo-3-7b", "Olmo 3 7B", 7_000_000_000, f"{_HF}/allenai/Olmo-3-1025-7B/blob/main/config.json"),
    ("phi-4-mini", "Phi-4-mini", 3_800_000_000, f"{_HF}/microsoft/Phi-4-mini-instruct/blob/main/config.json"),
    # Granite 4.0-H Small 32B (IBM's card: 32B total, 9B active); MiniMax-M1 456B (its card: 456B
    # total, 45.9B active)
    ("granite-4.0-h-small", "Granite 4.0-H Small", 32_000_000_000,
     f"{_HF}/ibm-granite/granite-4.0-h-small/blob/main/config.json"),
    ("minimax-m1-80k", "MiniMax-M1", 456_000_000_000, f"{_HF}/MiniMaxAI/MiniMax-M1-80k/blob/main/config.json"),
)


_BY_ID = {p[0]: p for p in _PRESETS}


@cache
def _preset(model_id: str) -> Imported:
    _, name, parameters, source = _BY_ID[model_id]
    imported = import_config((CONFIGS / f"{model_id}.json").read_bytes(), name=name)
    return replace(imported, model=replace(imported.model, id=model_id, parameters=parameters, source=source))


class _Presets(Mapping):
    """The presets by id, in the table's order: the ids known at once, each config imported on first access."""

    def __init__(self, pick):
        self._pick = pick

    def __getitem__(self, model_id: str):
        if model_id not in _BY_ID:
            raise KeyError(model_id)
        return self._pick(_preset(model_id))

    def __iter__(self) -> Iterator[str]:
        return iter(_BY_ID)

    def __len__(self) -> int:
        return len(_BY_ID)

    def __contains__(self, model_id) -> bool:
        return model_id in _BY_ID


OPEN_IMPORTS: Mapping[str, Imported] = _Presets(lambda imported: imported)  # with design, used, defaulted
OPEN_MODELS: Mapping[str, Model] = _Presets(lambda imported: imported.model)
