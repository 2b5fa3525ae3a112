"""A model by its Hugging Face id (core.hub), against the fake Hub of tests/fakehub.py (never the real one): the
config and safetensors counts, a quantized checkpoint's weights as stored, every error as one line, the id checked
before any request, one request per (repo, revision) for a whole room, and the CLI's --hf."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakehub import COMMIT

from core import hub

ROOT = Path(__file__).resolve().parent.parent

QWEN = "Qwen/Qwen3-Next-80B-A3B-Instruct"


def test_a_model_id_gives_its_config_its_commit_and_its_parameters(fake):
    found = hub.fetch(QWEN)
    assert (found.repo, found.revision, found.commit) == (QWEN, "main", COMMIT)
    assert found.name == f"{QWEN}@{COMMIT[:7]}" and found.config["model_type"] == "qwen3_next"
    # the fixture's header: BF16 1,000 × 2,000 and 3,000; F32 10
    assert found.parameters_by_dtype == {"BF16": 1000 * 2000 + 3000, "F32": 10}
    assert found.weights_bytes == 2 * (1000 * 2000 + 3000) + 4 * 10
    assert hub.import_fetched(found).model.parameters == 2_003_010


def test_a_quantized_checkpoint_is_counted_as_stored(fake):
    """FP8 weights, an FP32 scale per 128 × 128 block, a BF16 norm: 1 B, 4 B and 2 B an element."""
    found = hub.fetch("fake/llama-fp8")
    assert found.parameters_by_dtype == {"F8_E4M3": 4096 * 4096, "F32": 32 * 32, "BF16": 4096}
    assert found.weights_bytes == 4096 * 4096 * 1 + 32 * 32 * 4 + 4096 * 2 == 16_789_504


@pytest.mark.parametrize("model_id, why, says", [
    ("nobody/nothing", "unknown", "no public model nobody/nothing"),
    ("meta-llama/gated", "gated", "is gated"),
    ("mistralai/params-only", "noconfig", "params.json"),
    ("fake/not-json", "json", "not JSON"),
    ("fake/huge-config", "large", "over 1,048,576 bytes"),
    ("fake/rate-limited", "rate", "try again in 30 s"),  # the Hub's Retry-After
    (f"{QWEN}@v9", "revision", "no revision 'v9'"),
])
def test_each_hub_failure_is_one_line_a_reader_understands(fake, model_id, why, says):
    with pytest.raises(hub.HubError) as e:
        hub.fetch(model_id)
    assert e.value.why == why and says in str(e.value) and "\n" not in str(e.value)


def test_every_failure_has_its_words_in_both_languages(fake):
    """A page says a HubError from its key and facts (i18n by.hf.why.<key>): each case raised here has them."""
    from i18n import t

    cases = ["nobody/nothing", "meta-llama/gated", "mistralai/params-only", "fake/no-config", "fake/not-json",
             "fake/huge-config", "fake/rate-limited", f"{QWEN}@v9", "../x", "org/name@a..b"]
    keys = set()
    for model_id in cases:
        with pytest.raises(hub.HubError) as e:
            hub.fetch(model_id)
        keys.add(e.value.key)
        for lang in ("ko", "en"):
            said = t(f"by.hf.why.{e.value.key}", lang, **e.value.facts)
            assert "{" not in said and "\n" not in said
    assert keys >= {"unknown", "gated", "noconfig.params", "noconfig", "json", "large", "rate.wait", "revision", "id",
                    "id.rev"}


def test_a_fetch_in_flight_never_blocks_another_id(fake):
    """One reader's link waits on a Hub that has not answered; another reader's different id is served meanwhile."""
    import threading

    from fakehub import HELD

    HELD.clear()
    held = threading.Thread(target=hub.fetch, args=("fake/held",), daemon=True)
    held.start()
    try:
        while not any("fake/held" in call for call in list(fake)):  # the held fetch has reached the Hub
            held.join(0.01)
        other = threading.Thread(target=hub.fetch, args=(QWEN,), daemon=True)
        other.start()
        other.join(60)
        assert not other.is_alive() and held.is_alive()  # served while the first still waits
        assert hub.fetch(QWEN).commit == COMMIT  # and kept
    finally:
        HELD.set()
        held.join(60)
    assert hub.fetch("fake/held").repo == "fake/held"


def test_a_fetched_checkpoint_places_its_stored_bytes(fake):
    """The planner's weights for a fetched model are its safetensors' bytes, whatever the bytes-per-parameter knob
    says; the draft's weights at the checkpoint's own bytes per parameter."""
    from core import budget, capacity

    m = hub.import_fetched(hub.fetch("fake/llama-fp8")).model
    assert (m.parameters, m.stored_bytes) == (16_782_336, 16_789_504)
    for knob in (0.5, 1.0, 2.0):
        assert capacity.model_weights(m, knob) == 16_789_504
        assert budget.weights(m, bytes_per_parameter=knob) == 16_789_504
    assert capacity.model_weights(m, 2.0, 16_782_336 // 2) == -(-16_782_336 // 2 * 16_789_504 // 16_782_336)
    (weights,) = [b for b in budget.gpu_budget(m, "h200").basis if b.part == "weights"]
    assert "16,789,504 B as its checkpoint stores them" in weights.what


def test_a_slow_hub_is_a_timeout_not_a_hang(fake):
    with pytest.raises(hub.HubError, match="did not answer within 1 s") as e:
        hub.fetch("fake/slow", timeout=1)
    assert e.value.why == "timeout"


def test_an_unreachable_hub_is_said(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # the discard port: nothing listens
    monkeypatch.setattr(hub, "CACHE_DIR", tmp_path)
    hub.forget_fetched()
    with pytest.raises(hub.HubError) as e:
        hub.fetch("fake/llama-fp8", timeout=2)
    assert e.value.why in ("offline", "timeout")


@pytest.mark.parametrize("text", ["../etc/passwd", "http://evil.example/x", "a", "org/na--me", "org/name@..",
                                  "org/-name", "x" * 200 + "/y", "org/name/extra"])
def test_an_id_that_is_not_the_hubs_is_refused_before_any_request(fake, text):
    with pytest.raises(hub.HubError) as e:
        hub.fetch(text)
    assert e.value.why == "id" and fake == []


def test_a_room_opening_the_same_link_costs_one_fetch(fake, tmp_path):
    hub.fetch(QWEN)
    asked = len(fake)
    assert asked > 0
    for _ in range(20):
        hub.fetch(QWEN)
    assert len(fake) == asked  # from memory
    hub.forget_fetched()
    assert hub.fetch(QWEN).commit == COMMIT and len(fake) == asked  # from disk
    assert list(tmp_path.glob("*.json"))


def test_the_cli_prices_a_model_by_its_id(hub_url, tmp_path):
    url, _ = hub_url
    env = {**os.environ, "HF_ENDPOINT": url, "KV_ATLAS_HUB_CACHE": str(tmp_path), "PYTHONIOENCODING": "utf-8"}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=60)

    r = run("--hf", "fake/llama-fp8", "--context", "8K", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["hf"] == {"repo": "fake/llama-fp8", "revision": "main", "commit": COMMIT,
                         "parameters": 16_782_336, "parameters_by_dtype": {"F8_E4M3": 16_777_216, "F32": 1_024,
                                                                           "BF16": 4_096},
                         "weights_bytes": 16_789_504}
    (row,) = out["models"]
    assert row["storage_bytes_per_token"] == 32 * 2 * 8 * 128 * 2  # Llama 3.1 8B's config, BF16 KV
    for args, says in ((("--hf", "meta-llama/gated"), "is gated"), (("--hf", "../x"), "not a Hugging Face model id"),
                       (("--hf", "fake/llama-fp8", "--config", "x.json"), "one model at a time")):
        r = run(*args)
        assert r.returncode == 2 and r.stdout == "" and says in r.stderr and "Traceback" not in r.stderr


def test_the_planner_row_of_a_fetched_model_says_its_weights_are_as_stored(fake):
    from figures.builders.planner import build_capacity

    model = hub.import_fetched(hub.fetch("fake/llama-fp8")).model  # passed as its Model, as the app's session passes it
    chart = build_capacity(models=(model,), lang="en", bytes_per_parameter=2.0)
    (row,) = chart.rows
    assert "weights as the checkpoint stores them, 16.8 MB" in row.label
    # 8 × H200 (141 GB less the 10 % reserve, less 16,789,504 / 8 B of weights each), Llama 3.1 8B's BF16 KV at 128K
    # (32 layers × 2 × 8 heads × 128 × 2 B a token) split over 8 ranks by head
    per_gpu = (141 * 10**9 - 141 * 10**8 - 16_789_504 // 8) // (32 * 2 * 8 * 128 * 2 * 131_072 // 8)
    assert row.count == per_gpu == 59
