"""The rooms and the one-way flow between them, read from the import statements (those inside
functions too): core → figures → article → publish → ui → pages. No module imports another in a circle;
figures/ builds figures and never imports publish/, which writes them out; core's cost model never
imports core/mechanisms/, the seeded runs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "figures", "article", "publish", "ui", "i18n")
# which rooms each room may import: below it in the flow, never above
MAY_IMPORT = {
    "core": {"core"},
    "i18n": {"i18n"},
    "figures": {"core", "i18n", "figures"},
    "article": {"core", "i18n", "figures", "article"},
    "publish": {"core", "i18n", "figures", "article", "publish"},
    "ui": {"core", "i18n", "figures", "article", "publish", "ui"},
}
ENTRY_POINTS = {"figures.__main__"}  # run, never imported: it hands `python -m figures` to publish


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def imports(name: str) -> set[str]:
    """Every module of ours that `name` imports, anywhere in its text."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        found |= {t for t in targets if t in MODULES}
        found |= {t.rpartition(".")[0] for t in targets if t not in MODULES and t.rpartition(".")[0] in MODULES}
    return found - {name}


GRAPH = {name: imports(name) for name in MODULES}


def test_the_rooms_are_found():
    assert {"core.cost", "core.mechanisms.mla", "figures.registry", "publish.export", "ui.charts"} <= set(MODULES)


def test_no_module_imports_another_in_a_circle():
    cycles, state = [], {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for dep in sorted(GRAPH[name]):
            if state.get(dep) == "open":
                cycles.append(" → ".join(trail[trail.index(dep):] + [name, dep]) if dep in trail else f"{name} → {dep}")
            elif dep not in state:
                visit(dep, [*trail, name])
        state[name] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [])
    assert not cycles, "import circles:\n" + "\n".join(cycles)


@pytest.mark.parametrize("room", MAY_IMPORT)
def test_a_room_imports_only_the_rooms_below_it(room):
    wrong = {f"{name} imports {dep}" for name, deps in GRAPH.items() if name.split(".")[0] == room
             and name not in ENTRY_POINTS for dep in deps if dep.split(".")[0] not in MAY_IMPORT[room]}
    assert not wrong, "\n".join(sorted(wrong))


def test_the_cost_model_imports_nothing_from_the_mechanisms():
    cost = [n for n in GRAPH if n.startswith("core") and not n.startswith("core.mechanisms")]
    wrong = {f"{n} imports {d}" for n in cost for d in GRAPH[n] if d.startswith("core.mechanisms")}
    assert len(cost) > 10 and not wrong, "\n".join(sorted(wrong))


def test_the_graph_sees_function_level_and_relative_imports():
    assert "core.registry" in GRAPH["core.cost"]  # from .registry import get, lookup
    assert "publish.animation" in GRAPH["publish.export"]
    assert "figures.canvas" in GRAPH["figures.slide"]
