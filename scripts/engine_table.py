"""The theory beside vLLM and SGLang for models of different kinds, and the planner's count on a GPU node
for each way of spreading it: a Markdown table, every number from core (engines, capacity, parallel).

    python scripts/engine_table.py [--context 128K] [--gpu h200] [--gpus 8]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import (  # noqa: E402
    DEPLOYED,
    ENGINES,
    PARALLEL_MODES,
    SGLANG_PAGE,
    VLLM_BLOCK,
    EngineError,
    Parallel,
    allocation,
    attention_parameters,
    cache_at,
    fitted,
    fmt_bytes,
    fmt_exact,
    get,
    parse_context,
    plan,
    storage_per_token,
    weights_bytes,
)

MODELS = ("llama-3.1-8b", "kimi-k2", "deepseek-v3.2", "v4-flash", "gpt-oss-120b", "gemma-3-4b", "gemma-3n-e2b",
          "qwen3-next-80b-a3b", "nemotron-h-56b", "kimi-linear-48b-a3b", "mistral-7b-v0.1")


def counts(model: str, n: int, gpu: str, gpus: int, engine: str) -> str:
    """Requests that fit on the node at n, FP8 weights, 10 % reserved, for each way of spreading it."""
    m = get(model)
    weights = weights_bytes(m.parameters, 1.0) if m.parameters else 0
    attention = min(weights_bytes(attention_parameters(m), 1.0), weights) if m.parameters else 0
    out = []
    for mode in PARALLEL_MODES:
        try:
            p = plan(m, n, gpu, weights, fitted(m, DEPLOYED), parallel=Parallel.mode(mode, gpus),
                     attention_weights=attention, engine=engine, block_tokens=16 if engine == "theory" else
                     (VLLM_BLOCK if engine == "vllm" else SGLANG_PAGE))
            out.append(f"{p.max_requests:,}")
        except ValueError:
            out.append("—")
    return " / ".join(out)


def main() -> None:
    a = argparse.ArgumentParser()
    a.add_argument("--context", type=parse_context, default=1 << 17)
    a.add_argument("--gpu", default="h200")
    a.add_argument("--gpus", type=int, default=8)
    args = a.parse_args()
    n = args.context
    print(f"| model | kinds | theory B/token | vLLM | SGLang | theory at N | vLLM | SGLang | "
          f"{args.gpus} × {args.gpu}: theory TP / DP / PP | vLLM | SGLang |")
    print("|---" * 11 + "|")
    for model in MODELS:
        m = get(model)
        row = [m.name, " + ".join(f"{c} {k}" for k, c in m.layer_counts.items()),
               fmt_exact(storage_per_token(m).total)]
        at = [fmt_bytes(cache_at(m, n).total)]
        for engine in ENGINES[1:]:
            try:
                alloc = allocation(m, n, DEPLOYED, engine)
                row.append(fmt_exact(float(alloc.per_token)))
                at.append(fmt_bytes(int(alloc.charge)))
            except EngineError:
                row.append("—")
                at.append("—")
        row += at + [counts(model, n, args.gpu, args.gpus, e) for e in ENGINES]
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
