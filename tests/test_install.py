"""core is a package that installs: built from the checkout's files into a fresh virtual environment (its
dependencies taken from this environment's site-packages, as pip would have fetched them), then imported and run
from a folder outside any checkout, its presets' configs read from the installed package data."""

from __future__ import annotations

import json
import shutil
import subprocess
import sysconfig
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _checkout_files(to: Path) -> None:
    """The checkout's files (tracked, and new ones not ignored), copied: a build never writes into the checkout."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, to / name)


def test_core_installs_and_runs_outside_the_checkout(tmp_path):
    src, env, elsewhere = tmp_path / "src", tmp_path / "env", tmp_path / "elsewhere"
    _checkout_files(src)
    venv.create(env, with_pip=False)
    python = env / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # numpy, pip, setuptools…
    install = subprocess.run([python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                              "--quiet", str(src)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-3000:]
    elsewhere.mkdir()

    def run(*args) -> str:
        r = subprocess.run([python, *args], cwd=elsewhere, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr[-3000:]
        return r.stdout

    where = run("-c", "import core, core.open_models as o; print(core.__file__); print(o.CONFIGS)").split()
    assert all(Path(p).is_relative_to(site) for p in where), where  # the installed copy, not the checkout
    report = json.loads(run("-m", "core", "--context", "128K", "--json"))
    assert {m["id"]: m["storage_bytes_per_token"] for m in report["models"]}["v4.1-flash"] == 890
    budget = json.loads(run("-m", "core", "--budget", "--model", "qwen3-8b", "--gpu", "h200", "--json"))
    assert budget["name"] == "Qwen3 8B" and budget["budgets"]
