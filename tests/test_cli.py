"""`python -m core` as a user runs it: a subprocess from the repository root; and how
`python -m publish animate` refuses a file it cannot write and reports a failure."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import core
from figures import ordered_ids
from publish.cli import parse_ids

ROOT = Path(__file__).resolve().parents[1]
N = 131072
TOP_KEYS = {"context", "precision", "engine", "parallel", "models"}
MODEL_KEYS = {"id", "name", "storage_bytes_per_token", "local_kv_bytes", "fixed_bytes_per_sequence",
              "cache_bytes_at_context", "read_bytes", "layers", "per_gpu_bytes_per_sequence"}
ALLOCATED_KEYS = {"engine", "release", "bytes_per_token", "bytes_per_sequence", "fixed_bytes_per_sequence", "pools",
                  "held", "differences"}
READ_KEYS = {"kv", "index_key", "state", "total"}
CONFIGS = ROOT / "core" / "configs"


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
                  *m["read_bytes"].values(), *m["fixed_bytes_per_sequence"].values()]
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
        assert m["read_bytes"] == {"kv": r.kv, "index_key": r.index_key, "state": 0, "total": r.total}, m["id"]
        assert m["cache_bytes_at_context"] == core.cache_at(m["id"], N, core.DEPLOYED).total


def test_json_read_totals_match_the_articles_formulas(deployed):
    models = _by_id(deployed)
    assert models["v2"]["read_bytes"]["total"] == 60 * N * 1152
    assert models["v3.2"]["read_bytes"]["total"] == 61 * 2048 * 656 + 61 * N * 132
    assert models["v4.1-flash"]["read_bytes"] == {
        "kv": 38 * 512 * 288 + 40 * 128 * 528,
        "index_key": (3 * N // 2 + N + 4 * 16384) * 68,
        "state": 0,
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


@pytest.mark.parametrize("args,says", [
    (["--context", "0"], "at least 1 token"),
    (["--context", "-5"], "at least 1 token"),
    (["--context", "abc"], "whole number of tokens"),
    (["--context", "1.5K"], "whole number of tokens"),
    (["--context", "99999999999999999999"], "at most 1,073,741,824 tokens"),  # was a ValueError traceback
    (["--context", "1073741825"], "at most 1,073,741,824 tokens"),  # 2^30 + 1
    (["--context", "1025M"], "at most 1,073,741,824 tokens"),  # 1,025 × 2^20 > 2^30
    (["--context", "9" * 5000], "at most 1,073,741,824 tokens"),  # past int()'s 4,300 digits: never read
    (["--precision", "fp7"], "invalid choice"),
    (["--engine", "trt"], "invalid choice"),
    (["--tp", "0"], "from 1 to 1,024"),
    (["--tp", "1000000"], "from 1 to 1,024"),  # was accepted
    (["--tp", "-2"], "from 1 to 1,024"),
    (["--tp", "3.0"], "from 1 to 1,024"),
    (["--pp", "x"], "from 1 to 1,024"),
    (["--dp", "1025"], "from 1 to 1,024"),
    (["--tp", "99999999999999999999999999"], "from 1 to 1,024"),
    (["--gpus-per-node", "0"], "from 1 to 1,024"),
    (["--tp", "64", "--pp", "32"], "64 × 32 × 1 = 2,048 GPUs, more than the 1,024"),
    (["--tp", "64", "--dp", "32", "--budget", "--model", "v3.2", "--gpu", "h200"],
     "64 × 1 × 32 = 2,048 GPUs, more than the 1,024"),  # the same check for --budget and --plan
    (["--tp", "64", "--pp", "32", "--plan", "--model", "v3.2", "--gpu", "h200", "--context", "8K"],
     "64 × 32 × 1 = 2,048 GPUs, more than the 1,024"),
    (["--block", "7"], "invalid choice"),
    (["--spec", "9"], "invalid choice"),  # core.serving.MAX_SPEC = 8
    (["--block", "16", "--engine", "sglang"], "sets V3.2's page size to 64 itself"),  # the engine fixes it
    (["--block", "64", "--engine", "sglang"], "sets V4-Flash's page size to 256 itself"),
    (["--block", "16", "--engine", "vllm"], "'No valid attention backend found'"),  # DSA: multiples of 64
], ids=lambda v: " ".join(v)[:40] if isinstance(v, list) else "")
def test_bad_input_exits_2_with_one_clear_line_and_no_traceback(args, says):
    proc = run(*args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].strip(), proc.stderr
    assert lines[0].startswith("error: ") and (args[0] in lines[0] or args[1] in lines[0])
    assert says in lines[0]
    assert len(lines[0]) < 700  # a 5,000-digit argument is not echoed whole


def test_the_bounds_themselves_are_accepted():
    top = assert_json_run("--context", "1024M", "--config", str(CONFIGS / "llama-3.1-8b.json"), "--precision", "bf16")
    assert top["context"] == 1 << 30  # 2^30, the app's longest
    [row] = top["models"]
    assert row["cache_bytes_at_context"] == 32 * 4096 * (1 << 30)
    wide = assert_json_run("--tp", "1024", "--config", str(CONFIGS / "llama-3.1-8b.json"), "--precision", "bf16")
    assert wide["parallel"] == {"tp": 1024, "pp": 1, "dp": 1}  # the theory: 8 KV heads, one a rank, replicated
    assert wide["models"][0]["per_gpu_bytes_per_sequence"] == 32 * 512 * N


# --- a layout the engine refuses: its reason and source, exit 2, nothing priced ---------------------------------

LLAMA = str(CONFIGS / "llama-3.1-8b.json")


def refused_line(*args: str) -> str:
    """The CLI on a refused layout: exit 2, nothing on stdout (with or without --json), one line on stderr."""
    for extra in ((), ("--json",)):
        proc = run(*args, *extra)
        assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
        [line] = proc.stderr.splitlines()
    return line


def test_the_issues_tp_3_for_llama_under_vllm_is_refused_with_vllms_reason_not_priced():
    line = refused_line("--config", LLAMA, "--engine", "vllm", "--tp", "3")  # priced 4.29 GB a GPU before
    assert line == ("error: --tp 3: llama-3.1-8b.json: vLLM 0.34.0 (commit 62d4bc3c7) refuses it: Total number "
                    "of attention heads (32) must be divisible by tensor parallel size (3) "
                    "[vllm/config/model.py:1576-1584]")
    line = refused_line("--engine", "vllm", "--tp", "3")  # the article's models: 128 and 64 heads
    assert "MHA (hypothetical) (and 5 more models)" in line and "heads (128)" in line


@pytest.mark.parametrize("args,says,source", [
    (("--engine", "sglang", "--tp", "3"), "'32 is not divisible by 3'", "sglang/srt/layers/linear.py:1139"),
    (("--engine", "vllm", "--tp", "16", "--gpus-per-node", "8"),
     "World size (16) is larger than the number of available GPUs (8) in this node", "vllm/config/parallel.py"),
    (("--engine", "vllm", "--tp", "4", "--dp", "4", "--gpus-per-node", "8"), "16 GPUs, more than the node's 8",
     "vllm/v1/engine/utils.py:439-485"),
    (("--tp", "16", "--gpus-per-node", "8"), "16 × 1 × 1 = 16 GPUs, more than the node's 8", "core/layouts.py"),
    (("--engine", "sglang", "--dp", "8"), "has no DP attention", "sglang/srt/models/llama.py:181-184"),
    (("--engine", "vllm", "--dp", "8"), "'Number of experts in the model must be greater than 0",
     "vllm/config/model.py:1518-1523"),
    (("--pp", "33"), "pp = 33 stages for 32 layers", "core/parallel.py (stages)"),
])
def test_each_refused_layout_is_one_line_with_the_engines_reason_and_source(args, says, source):
    line = refused_line("--config", LLAMA, *args)
    assert line.startswith("error: --") and "llama-3.1-8b.json" in line
    assert says in line and source in line


def test_experts_come_from_the_config_file_given():
    line = refused_line("--config", str(CONFIGS / "nemotron-h-56b.json"), "--engine", "vllm", "--dp", "8")
    assert "nemotron-h-56b.json has no experts" in line  # its config has no expert count
    rep = assert_json_run("--config", str(CONFIGS / "nemotron-3-nano-30b-a3b.json"), "--engine", "vllm", "--dp", "8")
    assert rep["parallel"]["dp"] == 8  # n_routed_experts 128: DP attention with EP runs


def test_a_valid_layout_is_priced_and_not_refused():
    # vLLM at tp 16 on a 16-GPU node: 32 divides by 16, 16 is a multiple of the 8 KV heads (each on 2 ranks);
    # a rank holds max(1, 8 // 16) = 1 head: 32 layers × (128 + 128) × 2 B × N, N a whole number of 64-token blocks
    rep = assert_json_run("--config", LLAMA, "--precision", "bf16", "--engine", "vllm", "--tp", "16",
                          "--gpus-per-node", "16")
    assert rep["parallel"] == {"tp": 16, "pp": 1, "dp": 1}
    assert rep["models"][0]["per_gpu_bytes_per_sequence"] == 32 * 1 * 256 * 2 * N == 2_147_483_648
    assert assert_json_run("--engine", "vllm", "--block", "64", "--tp", "8", "--gpus-per-node", "8")["models"]


# --- one model from a config.json --------------------------------------------------------------


@pytest.mark.parametrize("precision,storage", [
    ("bf16", 61 * ((512 + 64) * 2 + 128 * 2)),  # 2 bytes for every cached element, index keys included
    ("fp8", 61 * ((512 + 64) + 128)),  # 1 byte each, the scale per tensor
    ("fp8_block", 61 * (512 + 512 // 128 * 4 + 64 * 2 + 128 + 4)),  # FlashMLA's 656 B + the 132 B key
])
def test_config_prints_one_row_with_id_custom_in_the_same_json_shape(precision, storage):
    rep = assert_json_run("--config", str(CONFIGS / "deepseek-v3.2.json"), "--context", "128K",
                          "--precision", precision)
    assert set(rep) == TOP_KEYS and rep["precision"] == precision and rep["context"] == N
    [row] = rep["models"]
    assert set(row) == MODEL_KEYS and set(row["read_bytes"]) == READ_KEYS
    assert row["id"] == "custom"
    assert row["storage_bytes_per_token"] == storage
    assert row["cache_bytes_at_context"] == storage * N
    entry, key = storage // 61 - {"bf16": 256, "fp8": 128, "fp8_block": 132}[precision], storage // 61
    assert row["read_bytes"] == {"kv": 61 * 2048 * entry, "index_key": 61 * N * (key - entry), "state": 0,
                                 "total": 61 * 2048 * entry + 61 * N * (key - entry)}


def test_config_with_sliding_layers_reports_its_local_kv():
    [row] = assert_json_run("--config", str(CONFIGS / "gpt-oss-120b.json"), "--precision", "bf16")["models"]
    entry = 2 * 8 * 64 * 2
    assert row["storage_bytes_per_token"] == 18 * entry and row["local_kv_bytes"] == 18 * 128 * entry
    assert row["cache_bytes_at_context"] == 18 * entry * N + 18 * 128 * entry


def test_config_without_json_prints_a_table_row_for_custom():
    proc = run("--config", str(CONFIGS / "llama-3.1-8b.json"), "--precision", "bf16")
    assert proc.returncode == 0 and proc.stderr == ""
    assert "custom" in proc.stdout and "131,072 B" in proc.stdout


@pytest.mark.parametrize("content,message", [
    ('{"num_hidden_layers": true, "num_attention_heads": 8}', "num_hidden_layers must be an integer, got true"),
    ('{"num_hidden_layers": 32, "num_att', "ends early"),
    ("", "the config is empty"),
    ('{"architectures": ["MambaForCausalLM"], "num_hidden_layers": 64}', "no attention fields"),
])
def test_a_bad_config_exits_2_with_one_line_and_nothing_on_stdout(tmp_path, content, message):
    path = tmp_path / "config.json"
    path.write_text(content, encoding="utf-8")
    proc = run("--config", str(path), "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith("error: config.json: ") and message in line


def test_a_config_file_that_cannot_be_read_exits_2_naming_the_argument(tmp_path):
    for path in (tmp_path / "missing.json", tmp_path):
        proc = run("--config", str(path))
        assert proc.returncode == 2 and proc.stdout == ""
        [line] = proc.stderr.splitlines()
        assert "--config" in line


def test_an_open_precision_without_config_exits_2():
    proc = run("--precision", "fp8")
    assert proc.returncode == 2 and proc.stdout == ""
    [line] = proc.stderr.splitlines()
    assert "--precision" in line and "--config" in line


# --- python -m publish: ids (the commands' failures: tests/test_publish_cli.py) ---------------

def test_ids_left_out_are_every_figure_and_an_empty_list_is_refused():
    assert parse_ids(None) == ordered_ids()
    for text in ("", " , "):
        with pytest.raises(argparse.ArgumentTypeError, match="names no figure"):
            parse_ids(text)


def test_a_hybrids_row_gives_its_fixed_state_and_its_layers_and_counts_the_state_in_the_cache():
    [row] = assert_json_run("--config", str(CONFIGS / "qwen3-next-80b-a3b.json"), "--precision", "bf16")["models"]
    growth, state = 12 * 2 * 2 * 256 * 2, 36 * (3 * (2 * 16 * 128 + 32 * 128) * 2 + 32 * 128 * 128 * 2)
    assert row["fixed_bytes_per_sequence"] == {"window": 0, "state": state, "total": state}
    assert row["cache_bytes_at_context"] == growth * N + state
    assert row["read_bytes"]["state"] == state
    gdn, full = row["layers"]
    assert (gdn["kind"], gdn["count"], gdn["state_bytes"], gdn["bytes_per_token"]) == ("GDN", 36, state // 36, 0)
    assert (full["kind"], full["layers"], full["bytes_per_token"]) == ("GQA", list(range(3, 48, 4)), growth // 12)


def test_a_config_with_a_layer_kind_the_importer_does_not_know_exits_2_naming_the_field(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 8,
                                "layers_block_type": ["attention", "retention"]}))
    done = run("--config", str(path), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert 'layers_block_type has "retention", a layer kind the importer does not price' in done.stderr


def test_mtp_counts_a_configs_mtp_layers_and_needs_a_config():
    plain, counted = (assert_json_run("--config", str(CONFIGS / "deepseek-v3.2.json"), "--precision", "bf16", *flag)
                      ["models"][0] for flag in ((), ("--mtp",)))
    assert counted["storage_bytes_per_token"] - plain["storage_bytes_per_token"] == (512 + 64) * 2 + 128 * 2
    done = run("--mtp")
    assert done.returncode == 2 and "--mtp: counts the MTP layers of a --config model" in done.stderr


# --- the engines' view and parallelism ---------------------------------------------------------------


def test_engine_rows_give_what_it_allocates_each_difference_named_with_its_source():
    rep = assert_json_run("--engine", "vllm", "--precision", "bf16")
    assert set(rep) == TOP_KEYS and rep["engine"] == "vllm" and rep["parallel"] == {"tp": 1, "pp": 1, "dp": 1}
    rows = _by_id(rep)
    v32 = rows["v3.2"]["allocated"]
    assert set(v32) == ALLOCATED_KEYS and v32["release"].startswith("vLLM 0.34.0")
    assert v32["bytes_per_token"] == 61 * (1152 + 132) and v32["bytes_per_sequence"] == 61 * (1152 + 132) * N
    assert rows["v3.2"]["storage_bytes_per_token"] == 61 * (1152 + 256)  # the theory beside it
    named = {d["rule"]: d for d in v32["differences"]}
    assert "index-fp8" in named and "deepseek_v2.py:" in named["index-fp8"]["source"]
    assert all(d["what"] and ".py:" in d["source"] for d in v32["differences"])
    v41 = rows["v4.1-flash"]
    assert set(v41["allocated"]) == {"engine", "error"} and "CSA2" in v41["allocated"]["error"]
    assert v41["per_gpu_bytes_per_sequence"] is None and "CSA2" in v41["not_priced"]


def test_parallel_options_give_what_the_most_loaded_gpu_holds():
    llama = str(CONFIGS / "llama-3.1-8b.json")
    one, = assert_json_run("--config", llama, "--precision", "bf16")["models"]
    tp, = assert_json_run("--config", llama, "--precision", "bf16", "--tp", "4")["models"]
    pp, = assert_json_run("--config", llama, "--precision", "bf16", "--pp", "3")["models"]
    assert one["per_gpu_bytes_per_sequence"] == one["cache_bytes_at_context"] == 32 * 4096 * N
    assert tp["per_gpu_bytes_per_sequence"] == one["cache_bytes_at_context"] // 4  # 2 of 8 KV heads a rank
    assert pp["per_gpu_bytes_per_sequence"] == 11 * 4096 * N  # 32 layers in stages of 10, 11, 11
    sg, = assert_json_run("--config", llama, "--precision", "bf16", "--engine", "sglang", "--tp", "16")["models"]
    assert sg["per_gpu_bytes_per_sequence"] == 32 * 1 * 256 * 2 * N  # max(1, 8 // 16) heads
    assert sg["allocated"]["bytes_per_sequence"] == one["cache_bytes_at_context"]  # one whole copy, tp 1


def test_the_table_gains_the_engines_columns():
    proc = run("--engine", "sglang", "--tp", "8")
    assert proc.returncode == 0 and "sglang/token" in proc.stdout and "TP 8" in proc.stdout


# --- one GPU's memory budget ---------------------------------------------------------------------

H200_REPORTED = 143_771 * 2**20  # the driver's 143,771 MiB = 150,754,820,096 B
BUDGET_KEYS = {"model", "name", "gpu", "parallel", "budgets"}
PART_KEYS = {f"{p}_bytes" for p in ("runtime", "weights", "activations", "graphs", "margin", "reserve", "kv",
                                    "states", "left")}


def test_budget_json_splits_v32_on_h200_tp8_under_each_rule_to_the_byte():
    from core import budget as B
    from core.parallel import Parallel

    rep = assert_json_run("--budget", "--model", "v3.2", "--gpu", "h200", "--tp", "8")
    assert set(rep) == BUDGET_KEYS and rep["parallel"] == {"tp": 8, "pp": 1, "dp": 1}
    assert [b["engine"] for b in rep["budgets"]] == ["theory", "vllm", "sglang"]
    by = {b["engine"]: b for b in rep["budgets"]}
    for engine, b in by.items():
        assert set(b["parts"]) == PART_KEYS and b["fits"] and b["short_bytes"] == 0
        assert b["total_bytes"] == H200_REPORTED == 150_754_820_096
        assert sum(b["parts"].values()) == b["total_bytes"]  # every byte of the card in one part
        assert b["pool_bytes"] == B.gpu_budget("v3.2", "h200", engine, Parallel(tp=8)).pool
        assert b["pool_bytes"] == b["parts"]["kv_bytes"] + b["parts"]["states_bytes"]
    weights = 671 * 10**9 // 8  # 671e9 parameters × 1 B over 8 ranks = 83,875,000,000
    assert {e: b["parts"]["weights_bytes"] for e, b in by.items()} == dict.fromkeys(by, 83_875_000_000) == \
        dict.fromkeys(by, weights)
    # the planner: 141e9 − 10 % (14.1e9) − the weights; the 9,754,820,096 B past the data sheet is left
    theory = by["theory"]["parts"]
    assert theory["kv_bytes"] == 141 * 10**9 - 14_100_000_000 - weights == 43_025_000_000
    assert theory["left_bytes"] == H200_REPORTED - 141 * 10**9 == 9_754_820_096
    # vLLM: 140.4 GiB < 160 GiB, so 8,192 batched tokens; the MoE's workspaces at tp 8 (2 × 2,048 / 8 = 512
    # columns, under D = 7,168): 2 B × (2 × 7,168 × 8,192 + 8 × 8,192 × (7,168 + 7,168)) = 2,113,929,216;
    # margin ⌊0.75 × that⌋ = 1,585,446,912; KV = total − 1 GiB − weights − 2 GiB − peak − margin
    vllm = by["vllm"]["parts"]
    peak = 2 * (2 * 7168 * 8192 + 8 * 8192 * (7168 + 7168))
    assert vllm["activations_bytes"] == peak == 2_113_929_216 and vllm["margin_bytes"] == peak * 3 // 4
    assert vllm["kv_bytes"] == H200_REPORTED - 2**30 - weights - 2 * 2**30 - peak - peak * 3 // 4 == 59_959_218_496
    # SGLang: reserve 512 + 1.5 × 8,192 + 8 × 1,024 / 8 = 13,824 MiB, graphs 2 × 512 + 1,536 = 2,560 MiB;
    # f = round((143,771 − 16,384) / 143,771, 3) = 0.886 of the memory free after the 1 GiB runtime
    sglang = by["sglang"]["parts"]
    assert sglang["graphs_bytes"] == 2560 * 2**20
    assert sglang["kv_bytes"] == (H200_REPORTED - 2**30) * 886 // 1000 - weights == 48_742_435_348


def test_budget_with_one_engine_gives_that_rule_alone_and_dp_attention_keeps_vllms_dense_weights_whole():
    rep = assert_json_run("--budget", "--model", "v3.2", "--gpu", "h200", "--dp", "8", "--engine", "vllm")
    b, = rep["budgets"]
    assert b["engine"] == "vllm" and b["release"].startswith("vLLM 0.34.0") and b["parallel"]["dp"] == 8
    assert sum(b["parts"].values()) == b["total_bytes"] == H200_REPORTED
    sg, = assert_json_run("--budget", "--model", "v3.2", "--gpu", "h200", "--dp", "8", "--engine", "sglang")["budgets"]
    assert b["parts"]["weights_bytes"] > sg["parts"]["weights_bytes"]  # vLLM's dense parts whole on each GPU


def test_a_hybrids_budget_gives_sglang_a_states_pool_of_0_9_over_1_9():
    sg, = assert_json_run("--budget", "--model", "qwen3-next-80b-a3b", "--gpu", "h100-sxm", "--tp", "4",
                          "--engine", "sglang")["budgets"]
    parts = sg["parts"]
    assert parts["states_bytes"] == sg["pool_bytes"] * 9 // 19 and parts["states_bytes"] > 0
    assert sum(parts.values()) == sg["total_bytes"] == 81_559 * 2**20


def test_the_budget_table_gives_each_part_in_bytes_per_rule():
    proc = run("--budget", "--model", "v3.2", "--gpu", "h200", "--tp", "8")
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("V3.2 · one NVIDIA H200") and "TP 8" in lines[0] and "143,771 MiB" in lines[0]
    assert lines[1].split() == ["part", "theory", "(planner)", "vLLM", "0.34.0", "SGLang", "0.5.23"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:11]}
    assert rows["kv"] == ["43,025,000,000", "59,959,218,496", "48,742,435,348"]
    assert rows["weights"] == ["83,875,000,000"] * 3 and rows["reserve"] == ["14,100,000,000", "—", "—"]
    assert [line for line in lines if line.startswith("total")][0].split()[1:] == ["150,754,820,096"] * 3


@pytest.mark.parametrize("args,says", [
    (("--model", "gpt-5", "--gpu", "h200"), "argument --model: unknown model 'gpt-5'"),
    (("--model", "v3.2", "--gpu", "a100"), "argument --gpu: unknown GPU 'a100'"),
    (("--model", "mha", "--gpu", "h200"), "cannot split a GPU for MHA (hypothetical): no published parameter"),
    (("--model", "v2", "--gpu", "h200"), "cannot split a GPU for V2: no config.json"),
    (("--gpu", "h200"), "argument --model: --budget needs one"),
    (("--model", "v3.2"), "argument --gpu: --budget needs one"),
    (("--model", "v3.2", "--gpu", "h200", "--context", "8K"), "argument --context: the memory budget does not"),
    (("--model", "v3.2", "--gpu", "h200", "--bytes-per-parameter", "3"), "argument --bytes-per-parameter"),
    (("--model", "v3.2", "--gpu", "h200", "--engine", "trtllm"), "argument --engine"),
    (("--model", "v3.2", "--gpu", "h200", "--tp", "0"), "argument --tp"),
    (("--model", "llama-3.1-8b", "--gpu", "h200", "--tp", "3", "--engine", "vllm"),
     "--tp 3: Llama 3.1 8B: vLLM 0.34.0"),
    (("--model", "llama-3.1-8b", "--gpu", "h200", "--tp", "3"), "heads (32) must be divisible"),
])
def test_bad_budget_input_exits_2_with_one_line_and_nothing_on_stdout(args, says):
    for extra in ((), ("--json",)):
        proc = run("--budget", *args, *extra)
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr.startswith("error: ") and proc.stderr.count("\n") == 1 and says in proc.stderr


def test_budget_options_are_refused_without_budget():
    proc = run("--model", "v3.2")
    assert proc.returncode == 2 and proc.stdout == "" and "only with --budget" in proc.stderr


# --- --plan: the requests a node serves, or the longest context for N, as each engine runs it ---------------


def test_plan_counts_what_core_serving_counts():
    """V3.2 at 128K on 8 × H200 (tests/test_serving.py): 6 under the theory's flat reserve, 9 under vLLM, 7 under
    SGLang; the JSON carries each count's bytes and the assumptions said."""
    from core.parallel import Parallel
    from core.serving import serve
    out = assert_json_run("--plan", "--model", "v3.2", "--gpu", "h200", "--tp", "8", "--context", "128K")
    plans = {p["engine"]: p for p in out["plans"]}
    assert {e: p["requests"] for e, p in plans.items()} == {"theory": 6, "vllm": 9, "sglang": 7}
    s = serve("v3.2", 131_072, "h200", "vllm", Parallel(tp=8))
    assert plans["vllm"]["pool_bytes"] == s.pool and plans["vllm"]["per_request_per_gpu_bytes"] == s.share
    assert plans["theory"]["assumptions"] == [{"part": "reserve", "bytes": 14_100_000_000, "requests_without": 9}]


def test_plan_asks_the_other_way_round():
    out = assert_json_run("--plan", "--model", "v3.2", "--gpu", "h200", "--tp", "8", "--engine", "vllm",
                          "--requests", "5")
    assert out["plans"] == [{"engine": "vllm", "spec": 0, "requests": 5, "longest_context": 249_472}]
    text = run("--plan", "--model", "v3.2", "--gpu", "h200", "--tp", "8", "--engine", "vllm", "--requests", "5")
    assert text.returncode == 0 and "249,472 tokens" in text.stdout


@pytest.mark.parametrize("args, says", [
    (("--plan", "--model", "v3.2", "--gpu", "h200"), "--plan needs one of them"),
    (("--plan", "--model", "v3.2", "--gpu", "h200", "--context", "8K", "--requests", "2"), "needs one of them"),
    (("--plan", "--model", "v3.2", "--gpu", "h200", "--tp", "8", "--dcp", "3", "--context", "8K"), "divides --tp"),
    (("--plan", "--model", "v3.2", "--gpu", "h200", "--tp", "8", "--dcp", "8", "--engine", "vllm", "--context",
      "8K"), "FlashMLA sparse"),
    (("--plan", "--model", "kimi-k2", "--gpu", "h200", "--tp", "8", "--spec", "1", "--context", "8K"),
     "argument --spec 1"),
    (("--plan", "--model", "v4.1-flash", "--gpu", "h200", "--context", "8K"), "no published parameter count"),
    (("--plan", "--model", "v3.2", "--gpu", "h300", "--context", "8K"), "unknown GPU"),
    (("--requests", "5"), "only with --plan"),
    (("--budget", "--plan", "--model", "v3.2", "--gpu", "h200"), "one at a time"),
])
def test_plan_bad_input_is_one_line_exit_2_nothing_on_stdout(args, says):
    r = run(*args)
    assert r.returncode == 2 and r.stdout == "" and says in r.stderr and r.stderr.count("\n") == 1
    assert "Traceback" not in r.stderr


def test_plan_reads_the_node_and_the_theory_without_widths():
    """--gpus-per-node bounds --plan's layout as it bounds --budget's; the theory needs a parameter count, not a
    config's widths (V2: published parameters, no config.json kept)."""
    r = run("--plan", "--model", "v3.2", "--gpu", "h200", "--tp", "8", "--gpus-per-node", "4", "--context", "8K")
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr and r.stderr.count("\n") == 1
    out = assert_json_run("--plan", "--model", "v2", "--gpu", "h200", "--tp", "8", "--engine", "theory",
                          "--context", "8K")
    assert out["plans"][0]["engine"] == "theory" and out["plans"][0]["requests"] > 0
    r = run("--plan", "--model", "v3.2", "--gpu", "h200", "--requests", "2000000000000", "--engine", "vllm")
    assert r.returncode == 2 and "requests from 1 to 1,099,511,627,776" in r.stderr
