"""`python -m core` as a user runs it: a subprocess from the repository root."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import core

ROOT = Path(__file__).resolve().parents[1]
N = 131072
TOP_KEYS = {"context", "precision", "models"}
MODEL_KEYS = {"id", "name", "storage_bytes_per_token", "local_kv_bytes", "cache_bytes_at_context",
              "read_bytes"}
READ_KEYS = {"kv", "index_key", "total"}


def run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, encoding="utf-8", timeout=60)


def assert_json_run(*args: str) -> dict:
    """The CLI with --json: exit 0, nothing on stderr, one JSON object on stdout."""
    proc = run(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)  # one JSON object, nothing else on stdout


@pytest.fixture(scope="module")
def deployed() -> dict:
    return assert_json_run("--context", str(N), "--precision", "deployed")


@pytest.fixture(scope="module")
def bf16() -> dict:
    return assert_json_run("--context", str(N), "--precision", "bf16")


def _by_id(rep: dict) -> dict:
    return {m["id"]: m for m in rep["models"]}


def _is_number(x) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def test_json_output_has_exactly_the_keys_of_the_design(deployed):
    assert set(deployed) == TOP_KEYS
    assert deployed["context"] == N and deployed["precision"] == "deployed"
    assert [m["id"] for m in deployed["models"]] == ["mha", "v2", "v3", "v3.2", "v4-flash", "v4.1-flash"]
    for m in deployed["models"]:
        assert set(m) == MODEL_KEYS, m["id"]
        assert set(m["read_bytes"]) == READ_KEYS, m["id"]
        assert isinstance(m["name"], str) and m["name"]


def test_json_output_gives_numbers_not_strings(deployed):
    assert _is_number(deployed["context"])
    for m in deployed["models"]:
        values = [m["storage_bytes_per_token"], m["local_kv_bytes"], m["cache_bytes_at_context"],
                  *m["read_bytes"].values()]
        assert all(_is_number(v) for v in values), m


def test_json_output_has_the_articles_storage_per_token(deployed):
    models = _by_id(deployed)
    assert models["mha"]["storage_bytes_per_token"] == 3932160
    assert models["v2"]["storage_bytes_per_token"] == 69120
    assert models["v3.2"]["storage_bytes_per_token"] == 48068
    assert models["v4.1-flash"]["storage_bytes_per_token"] == 890
    assert models["v4-flash"]["local_kv_bytes"] == 43 * 128 * 584
    assert models["v4.1-flash"]["local_kv_bytes"] == 40 * 128 * 528


def test_json_read_totals_equal_the_cost_model(deployed):
    for m in deployed["models"]:
        r = core.reads(m["id"], N, core.DEPLOYED)
        assert m["read_bytes"] == {"kv": r.kv, "index_key": r.index_key, "total": r.total}, m["id"]
        assert m["cache_bytes_at_context"] == core.cache_at(m["id"], N, core.DEPLOYED).total


def test_json_read_totals_match_the_articles_formulas(deployed):
    models = _by_id(deployed)
    assert models["v2"]["read_bytes"]["total"] == 60 * N * 1152
    assert models["v3.2"]["read_bytes"]["total"] == 61 * 2048 * 656 + 61 * N * 132
    assert models["v4.1-flash"]["read_bytes"] == {
        "kv": 38 * 512 * 288 + 40 * 128 * 528,
        "index_key": (3 * N // 2 + N + 4 * 16384) * 68,
        "total": 38 * 512 * 288 + 40 * 128 * 528 + (3 * N // 2 + N + 4 * 16384) * 68,
    }


def test_bf16_json_gives_the_all_bf16_variants(bf16):
    assert bf16["precision"] == "bf16"
    models = _by_id(bf16)
    assert models["v3.2"]["storage_bytes_per_token"] == 85888
    assert models["v4-flash"]["storage_bytes_per_token"] == 6880
    assert models["v4.1-flash"]["storage_bytes_per_token"] == 3200


def test_context_accepts_k_suffix_as_1024_tokens():
    assert assert_json_run("--context", "128K")["context"] == N


def test_without_json_prints_a_readable_table_with_every_model_name():
    proc = run("--context", str(N), "--precision", "deployed")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = proc.stdout
    assert not out.lstrip().startswith("{")
    assert "131,072" in out and "deployed" in out
    lines = out.splitlines()
    for name in ("MHA (hypothetical)", "V2", "V3", "V3.2", "V4-Flash", "V4.1-Flash"):
        assert any(line.split("  ")[0].strip() == name for line in lines), name
    assert "69,120 B" in out and "890 B" in out


@pytest.mark.parametrize("args", [
    ["--context", "0"],
    ["--context", "-5"],
    ["--context", "abc"],
    ["--precision", "fp7"],
], ids=" ".join)
def test_bad_input_exits_2_with_one_clear_line_and_no_traceback(args):
    proc = run(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), proc.stderr
    assert args[0] in lines[0] or args[1] in lines[0]
