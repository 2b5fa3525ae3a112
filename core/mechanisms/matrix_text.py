"""Small matrices as text, for worked examples a reader edits (article B's B2):
'1, 0; 0, 1' — rows by ';' or a new line, values by commas or spaces, 'ln 3' allowed."""

from __future__ import annotations

import math
import re

MAX_MATRIX_SIZE = 8  # rows and columns: a worked example, drawn value by value
MAX_ABS = 1e6  # larger values overflow the softmax's exp into nothing readable


def parse_matrix(text: str, name: str) -> list[list[float]]:
    """Text -> rows of floats. Raises ValueError with a message a reader can act on."""
    rows = [r for r in re.split(r"[;\n]", text) if r.strip()]
    if not rows:
        raise ValueError(f"{name} is empty")
    if len(rows) > MAX_MATRIX_SIZE:
        raise ValueError(f"{name}: at most {MAX_MATRIX_SIZE} rows, got {len(rows)}")
    out = [[_number(token, name, i) for token in re.findall(r"ln\s*[^\s,]+|[^\s,]+", row.strip())]
           for i, row in enumerate(rows, 1)]
    if len({len(r) for r in out}) != 1:
        raise ValueError(f"{name}: every row needs the same number of values, got {[len(r) for r in out]}")
    if len(out[0]) > MAX_MATRIX_SIZE:
        raise ValueError(f"{name}: at most {MAX_MATRIX_SIZE} values per row, got {len(out[0])}")
    return out


def _number(token: str, name: str, row: int) -> float:
    try:
        x = math.log(float(token[2:])) if token.startswith("ln") else float(token)
    except ValueError:
        raise ValueError(f"{name}, row {row}: '{token}' is not a number") from None
    if not math.isfinite(x) or abs(x) > MAX_ABS:
        raise ValueError(f"{name}, row {row}: '{token}' must be a finite number of at most {MAX_ABS:g} in size")
    return x


def format_matrix(rows) -> str:
    """The inverse of parse_matrix, exactly (shortest round-trip digits); natural logs of
    whole numbers show as 'ln N'."""
    def cell(x: float) -> str:
        n = round(math.exp(x)) if 0 < x < 50 else 0
        if n > 1 and math.log(n) == x:
            return f"ln {n}"
        return repr(float(x)).removesuffix(".0")

    return "; ".join(", ".join(cell(x) for x in row) for row in rows)
