"""The GPU planner asked both ways (issue 36): the planner figure counting requests at a context under the
theory's flat reserve (the baseline: the rule it had before), under an engine's own budget (core.serving),
and the question the other way round (the longest context for N requests, a bisection of ~30 counts a row).

Run: python -m benchmarks.bench_planner [--repeat 5]
"""

import argparse

from benchmarks.timing import measure
from figures import EXTRAS, NATIVE

CASES = {
    "theory, requests (baseline)": dict(engine="theory"),
    "vLLM, requests": dict(engine="vllm"),
    "SGLang, requests": dict(engine="sglang"),
    "vLLM, TP + DCP": dict(engine="vllm", parallel="dcp"),
    "vLLM, longest context": dict(engine="vllm", ask="context", requests=64),
    "theory, longest context": dict(engine="theory", ask="context", requests=64),
}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    base = None
    for name, kw in CASES.items():
        t = measure(lambda kw=kw: EXTRAS["capacity"].build({"lang": "en", **kw}, NATIVE), repeat=args.repeat)
        base = base or t.median
        print(f"{name:>30}  {t}   × {t.median / base:.2f}")
    t = measure(lambda: EXTRAS["budget"].build({"lang": "en"}, NATIVE), repeat=args.repeat)
    print(f"{'the budget figure':>30}  {t}   × {t.median / base:.2f}")
