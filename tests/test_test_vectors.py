"""docs/test-vectors.md: every bold number is core's, and its arithmetic evaluates to it."""

from __future__ import annotations

import re
from pathlib import Path

import core
from core.open_models import OPEN_MODELS

DOC = Path(__file__).resolve().parents[1] / "docs" / "test-vectors.md"
N = 131072
BF16 = core.Precision.every("bf16")


def _rows() -> dict[str, list[str]]:
    rows = [line.strip("|").split("|") for line in DOC.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith("| model")]
    return {cells[0].strip(): [c.strip() for c in cells[1:]] for cells in rows}


def _value(cell: str) -> int:
    """A cell's bold number, after checking that its arithmetic gives it."""
    if cell == "0":
        return 0
    found = re.fullmatch(r"(?:(.+) = )?\*\*([\d,]+)\*\*", cell)
    assert found, cell
    value = int(found[2].replace(",", ""))
    if found[1]:
        assert re.fullmatch(r"[\d ×+()]+", found[1]), cell  # plain arithmetic, nothing else to evaluate
        assert eval(found[1].replace("×", "*")) == value, cell
    return value


def test_every_preset_has_a_row_and_every_row_is_cores():
    rows = _rows()
    assert set(rows) == {m.name for m in OPEN_MODELS.values()}
    for m in OPEN_MODELS.values():
        _, growth, window, state, cache = rows[m.name]
        assert _value(growth) == core.storage_per_token(m.id, BF16).total, m.id
        assert _value(window) == core.local_kv(m.id, BF16), m.id
        assert _value(state) == core.state_bytes(m.id), m.id
        assert _value(cache) == core.cache_at(m.id, N, BF16).total, m.id


# --- docs/engine-vectors.md: the engines' allocation, by hand ---------------------------------------

ENGINES_DOC = DOC.with_name("engine-vectors.md")


def _exact(cell: str):
    """An engine cell's bold number, after checking that its arithmetic (× + / ( ) and ⌈ ⌉) gives it."""
    import math
    from fractions import Fraction
    if cell == "0":
        return 0
    found = re.fullmatch(r"(.+) = \*\*([\d,.]+)\*\*", cell)
    assert found, cell
    value = Fraction(found[2].replace(",", ""))
    assert re.fullmatch(r"[\d ×+/()⌈⌉]+", found[1]), cell
    expr = re.sub(r"(\d+)", r"F(\1)", found[1].replace("×", "*").replace("⌈", "ceil(").replace("⌉", ")"))
    assert eval(expr, {"F": Fraction, "ceil": math.ceil}) == value, cell
    return value


def test_every_engine_vector_is_core_engines():
    from core.engines import allocation
    from core.registry import get
    names = {get(m).name: m for m in (*OPEN_MODELS, *core.MODELS)}
    rows = [line.strip("|").split("|") for line in ENGINES_DOC.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith("| model")]
    assert len(rows) >= 20
    for model, engine, per_token, at in ([c.strip() for c in row] for row in rows):
        a = allocation(names[model], N, core.DEPLOYED, engine.lower())
        assert _exact(per_token) == a.per_token, (model, engine)
        assert _exact(at) == a.charge, (model, engine)
    assert {m.kind for row in rows for m in get(names[row[0].strip()]).layers} >= {
        "GQA", "SWA", "MLA", "DSA", "CSA", "HCA", "GDN", "KDA", "Mamba2", "FFN"}
