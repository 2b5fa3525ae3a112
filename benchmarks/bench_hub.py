"""A model by its Hugging Face id (issue 37), against the fake Hub of tests/fakehub.py on loopback: the first fetch
of a link (the model's info, config.json, the safetensors header) against the same link again from memory and
from disk (a server restarted), in the same run.

Run: python -m benchmarks.bench_hub [--repeat 20]
"""

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import measure

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fakehub import fake_hub  # noqa: E402

CACHE = Path(tempfile.mkdtemp())  # the Hub's cache on disk, here to be emptied
os.environ["KV_ATLAS_HUB_CACHE"] = str(CACHE)  # core reads it when imported
from core import fetch, forget_fetched  # noqa: E402

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    model = "Qwen/Qwen3-Next-80B-A3B-Instruct"
    with fake_hub() as (url, calls):
        os.environ["HF_ENDPOINT"] = url

        def first():
            shutil.rmtree(CACHE, ignore_errors=True)  # nothing kept: every call asks the Hub
            forget_fetched()
            fetch(model)

        cold = measure(first, repeat=args.repeat)
        asked = len(calls) // (args.repeat + 1)
        memory = measure(lambda: fetch(model), repeat=args.repeat)

        def disk():
            forget_fetched()
            fetch(model)

        kept = measure(disk, repeat=args.repeat)
    print(f"first fetch ({asked} requests to the Hub)  {cold}")
    for name, t in (("from memory", memory), ("from disk", kept)):
        print(f"{name:<34}median {t.median * 1e3:7.1f} µs   min {t.min * 1e3:7.1f} µs   "
              f"× {t.median / cold.median:.5f} of the first fetch")
