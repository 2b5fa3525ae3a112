"""The rooms and the one-way flow between them: core → figures → article → publish → ui (i18n
beside core), and core's cost model apart from core/mechanisms/, the seeded runs. The rules are
import-linter contracts in pyproject.toml; grimp, its import graph (imports inside functions
too), finds circles between modules."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "figures", "article", "publish", "ui", "i18n")
GRAPH = grimp.build_graph(*PACKAGES, cache_dir=None)
CONTRACTS = ("each room imports only the rooms below it", "the cost model never imports the seeded mechanism runs")


def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    """import-linter's command on the contracts in `cwd`'s pyproject.toml, over the packages there."""
    return subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                           "sys.exit(lint_imports_command())", "--no-cache"],
                          cwd=cwd, env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)


def test_the_import_contracts_are_kept():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(f"{name} KEPT" in done.stdout for name in CONTRACTS), done.stdout


def test_a_planted_import_breaks_each_contract(tmp_path):
    """The contracts can fail: a copy of the rooms where core imports figures, and the cost model
    a seeded run, breaks both."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    for module, line in (("core/units.py", "import figures.style\n"), ("core/cost.py", "import core.mechanisms.mla\n")):
        path = tmp_path / module
        path.write_text(path.read_text(encoding="utf-8") + line, encoding="utf-8")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert all(f"{name} BROKEN" in done.stdout for name in CONTRACTS), done.stdout
    assert "core.units -> figures.style" in done.stdout and "core.cost -> core.mechanisms.mla" in done.stdout


def test_no_module_imports_another_in_a_circle():
    cycles = sorted(f"{module} → {dep} → … → {module}" for module in GRAPH.modules
                    for dep in GRAPH.find_modules_directly_imported_by(module)
                    if GRAPH.chain_exists(importer=dep, imported=module))
    assert not cycles, "import circles:\n" + "\n".join(cycles)


def test_the_graph_holds_every_room_and_imports_inside_functions():
    assert {"core.cost", "core.mechanisms.mla", "figures.registry", "publish.export", "ui.charts"} <= GRAPH.modules
    assert "core.registry" in GRAPH.find_modules_directly_imported_by("core.cost")  # inside a function
    assert "figures.animation" in GRAPH.find_modules_directly_imported_by("publish.export")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_folder_of_python_is_a_package_the_graph_sees(package):
    """A folder without __init__.py is a namespace package: setuptools leaves it out of the
    distribution (namespaces = false) and grimp out of the graph, so no contract would cover it."""
    missing = [str(d.relative_to(ROOT)) for d in (ROOT / package).rglob("*") if d.is_dir()
               and any(d.glob("*.py")) and not (d / "__init__.py").exists()]
    assert not missing


def test_every_figures_module_sits_in_a_layer_of_its_contract():
    """No module of figures/ escapes the layers: a new one must be placed (pyproject.toml)."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (figures,) = [c for c in contracts["contracts"] if c.get("containers") == ["figures"]]
    placed = {name.strip() for layer in figures["layers"] for name in layer.split("|")}
    modules = {m.split(".")[1] for m in GRAPH.modules if m.startswith("figures.")}
    assert modules == placed, f"not in a layer: {modules - placed}; no such module: {placed - modules}"
