"""The rooms and the one-way flow between them: core → figures → article → publish → ui (i18n
beside core), and core's cost model apart from core/mechanisms/, the seeded runs. Each room has a front
door (its `__init__`'s `__all__`; core.mechanisms one of its own). The rules are import-linter contracts
in pyproject.toml; grimp, its import graph (imports inside functions too), finds circles between
modules."""

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
CONTRACTS = ("each room imports only the rooms below it", "the cost model never imports the seeded mechanism runs",
             *(f"{room} front door: another room imports the package, never a module of it"
               for room in ("core's", "mechanisms'", "figures'", "publish's", "article's", "i18n's")))
FRONT_DOORS = ("core", "core.mechanisms", "figures", "publish", "article", "i18n", "ui")
SCRIPTS = ("pages", "scripts", "benchmarks")  # Python outside the packages, which import-linter cannot see


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
    """The contracts can fail: a copy of the rooms where core imports figures, the cost model a seeded run, and
    rooms import modules behind the front doors (core's and core.mechanisms' too), breaks every one."""
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    for module, line in (("core/units.py", "import figures.style\n"), ("core/cost.py", "import core.mechanisms.mla\n"),
                         ("ui/state.py", "import publish.export\n"), ("ui/nav.py", "import article.prose\n"),
                         ("figures/style.py", "import i18n.text\n"), ("article/derive.py", "import core.units\n"),
                         ("figures/knobs.py", "import core.mechanisms.mla\n")):
        path = tmp_path / module
        path.write_text(path.read_text(encoding="utf-8") + line, encoding="utf-8")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert all(f"{name} BROKEN" in done.stdout for name in CONTRACTS), done.stdout
    assert all(f"{importer} -> {imported}" in done.stdout for importer, imported in (
        ("core.units", "figures.style"), ("core.cost", "core.mechanisms.mla"), ("article.derive", "core.units"),
        ("figures.knobs", "core.mechanisms.mla"))), done.stdout


def test_importing_core_leaves_the_seeded_runs_unloaded():
    """The cost model's door loads none of core.mechanisms (the forbidden contract, as Python runs it)."""
    code = "import sys, core; print(sorted(m for m in sys.modules if m.startswith('core.mechanisms')))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_no_module_imports_another_in_a_circle():
    cycles = sorted(f"{module} → {dep} → … → {module}" for module in GRAPH.modules
                    for dep in GRAPH.find_modules_directly_imported_by(module)
                    if GRAPH.chain_exists(importer=dep, imported=module))
    assert not cycles, "import circles:\n" + "\n".join(cycles)


def test_the_graph_holds_every_room_and_imports_inside_functions():
    assert {"core.cost", "core.mechanisms.mla", "figures.registry", "publish.export", "ui.charts"} <= GRAPH.modules
    assert "core.registry" in GRAPH.find_modules_directly_imported_by("core.cost")  # inside a function
    assert "figures" in GRAPH.find_modules_directly_imported_by("publish.export")  # by its front door


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


def _door(module: str) -> str | None:
    """The innermost front door `module` sits behind ("core.mechanisms" for core.mechanisms.mla), or None."""
    return max((d for d in FRONT_DOORS if module == d or module.startswith(f"{d}.")), key=len, default=None)


def _outside_files() -> list[Path]:
    scripts = [p for d in SCRIPTS for p in sorted((ROOT / d).rglob("*.py"))]
    return [*scripts, ROOT / "app.py", ROOT / "browser_harness.py"]


@pytest.mark.parametrize("path", _outside_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_scripts_pages_and_benchmarks_enter_the_rooms_by_their_front_doors(path):
    """What import-linter cannot see (pages are scripts with hyphens in their names): their imports of a room with
    a front door name the package, never one of its modules."""
    import ast

    through = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        modules = [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        through += [m for m in modules if _door(m) not in (None, m)]
        if isinstance(node, ast.ImportFrom) and node.module in FRONT_DOORS:  # a module by the package's attribute
            folder = ROOT / node.module.replace(".", "/")
            through += [f"{node.module}.{a.name}" for a in node.names
                        if (folder / f"{a.name}.py").exists() or (folder / a.name).is_dir()]
    assert not through, f"{path.name} imports modules behind a front door: {through}"
