"""The export CLI reads knob values through the registry, as links do: a non-default view
exports the same figure, out-of-range values are clamped with a note, unknown knobs stop
with one clear line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import core
from figures import FIGURES
from figures.canvas import NATIVE
from publish.export import numbers

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "publish", "export", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


def exported_numbers(out: Path, name: str) -> list[dict]:
    return json.loads((out / name).read_text(encoding="utf-8"))


def test_set_knobs_reproduce_the_figure(tmp_path):
    done = run_cli("--out", str(tmp_path), "--ids", "B4", "--format", "json", "--set", "groups=3,5",
                   "--set", "k=3", "--set", "p4=20")
    assert done.returncode == 0, done.stderr
    expected = numbers(FIGURES["B4"].build(dict(groups=(3, 5), topk=3, position=20), NATIVE)).to_dict(orient="records")
    assert exported_numbers(tmp_path, "B04-ko.json") == json.loads(json.dumps(expected, default=float))


def test_per_component_precision_and_context_reach_the_bars(tmp_path):
    done = run_cli("--out", str(tmp_path), "--ids", "A1,B1", "--format", "json", "--context", "1.5K",
                   "--set", "main=fp8", "--set", "ikey=bf16")
    assert done.returncode == 0, done.stderr
    rows = {r["model"]: r for r in exported_numbers(tmp_path, "A01-ko.json")}
    p = core.Precision(main_kv="fp8", index_key="bf16")
    assert rows["v4.1-flash"]["read_total"] == core.reads("v4.1-flash", 1536, p).total


def test_out_of_range_values_are_clamped_with_a_note(tmp_path):
    done = run_cli("--out", str(tmp_path), "--ids", "A14", "--format", "json", "--set", "t_=99999")
    assert done.returncode == 0, done.stderr
    assert "t_=99999" in done.stderr and "30" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--ids", "B4", "--set", "zoom=2"], "no figure among B4 has a knob 'zoom'"),
    (["--ids", "B4", "--set", "groups"], "KEY=VALUE"),
    (["--ids", "A1", "--theme", "neon"], "theme=neon"),
])
def test_bad_knobs_stop_with_one_clear_line(tmp_path, args, message):
    done = run_cli("--out", str(tmp_path), *args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_key_shared_by_figures_is_clamped_by_each_figure_s_own_range(tmp_path):
    done = run_cli("--out", str(tmp_path), "--ids", "A9,A18", "--format", "json", "--set", "k=10")
    assert done.returncode == 0, done.stderr
    a9 = numbers(FIGURES["A9"].build(dict(topk=10), NATIVE)).to_dict(orient="records")
    a9 = json.loads(json.dumps(a9, default=float))
    assert exported_numbers(tmp_path, "A09-ko.json") == a9  # A9 takes k up to 12
    assert "A18: " in done.stderr and "A9: " not in done.stderr  # A18 takes at most 8: clamped, said so
