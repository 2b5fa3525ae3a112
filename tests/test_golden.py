"""Every number the article states, checked against the cost model.

The numbers live as data in `golden/article_numbers.csv` (one row per number, with the
article passage it comes from and its tolerance). Exact integers have tolerance 0 and are
compared with `==`; rounded numbers ("≈ 9.06 GB") may differ from core by at most half of
their last stated digit.
"""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import pytest

import core

CSV_PATH = Path(__file__).parent / "golden" / "article_numbers.csv"
COLUMNS = ["id", "model", "quantity", "precision", "context", "value", "unit", "tolerance", "source"]
QUANTITIES = (
    "storage_per_token", "local_kv", "read_main_kv", "read_local_kv", "read_kv", "read_index_key",
    "read_total", "ratio_to_mha", "crossover", "entry_bytes_main_kv", "entry_bytes_index_key",
    "entry_bytes_local_kv",
)
READ_ATTR = {"read_main_kv": "main_kv", "read_local_kv": "local_kv", "read_kv": "kv",
             "read_index_key": "index_key", "read_total": "total"}
UNIT = {"B": 1, "kB": 10**3, "MB": 10**6, "GB": 10**9, "times": 1, "tokens": 1}
PRECISION = {"deployed": core.DEPLOYED, "bf16": core.ALL_BF16}


def assert_golden_rows() -> list[dict]:
    with CSV_PATH.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == COLUMNS
        return list(reader)


ROWS = assert_golden_rows()


def core_value(row: dict):
    """What core says for one row (model, quantity, precision, context)."""
    model, quantity, prec = row["model"], row["quantity"], PRECISION[row["precision"]]
    if quantity == "storage_per_token":
        return core.storage_per_token(model, prec).total
    if quantity == "local_kv":
        return core.local_kv(model, prec)
    if quantity in READ_ATTR:
        return getattr(core.reads(model, int(row["context"]), prec), READ_ATTR[quantity])
    if quantity == "ratio_to_mha":
        return core.ratio_to(model, "mha", prec)
    if quantity == "crossover":  # the first whole context where growth × N reaches local KV
        return core.crossover_tokens(model, prec)
    if quantity.startswith("entry_bytes_"):
        return core.entry_bytes(core.get(model), prec)[quantity.removeprefix("entry_bytes_")]
    raise AssertionError(f"unknown quantity {quantity!r}")


def _in_bytes(row: dict, field: str) -> Fraction:
    return Fraction(row[field]) * UNIT[row["unit"]]


# --- the CSV itself -------------------------------------------------------------------


def test_the_csv_rows_are_well_formed():
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids)), "row ids must be unique"
    for r in ROWS:
        where = f"row {r['id']}"
        assert r["model"] in core.MODELS, where
        assert r["quantity"] in QUANTITIES, where
        assert r["precision"] in PRECISION, where
        assert r["unit"] in UNIT, where
        assert r["source"].strip(), where
        assert Fraction(r["tolerance"]) >= 0, where
        if r["quantity"].startswith("read_"):
            assert int(r["context"]) > 0, f"{where}: reads need a context"
        else:
            assert r["context"] == "", f"{where}: only reads take a context"
        if Fraction(r["tolerance"]) == 0:
            assert r["unit"] in ("B", "tokens"), f"{where}: exact rows are stated in bytes or tokens"


# The article's numbers (docs/catalogue.md lists the figures that show them), plus the crossover
# contexts of "Also from article A's text": (model, quantity, precision, value, unit).
FIGURES_NUMBERS = [
    ("mha", "storage_per_token", "deployed", "3932160", "B"),
    ("v2", "storage_per_token", "deployed", "69120", "B"),
    ("v3", "storage_per_token", "deployed", "70272", "B"),
    ("v3.2", "storage_per_token", "deployed", "48068", "B"),
    ("v3.2", "entry_bytes_main_kv", "deployed", "656", "B"),
    ("v3.2", "entry_bytes_index_key", "deployed", "132", "B"),
    ("v4-flash", "storage_per_token", "deployed", "3514", "B"),
    ("v4-flash", "entry_bytes_main_kv", "deployed", "584", "B"),
    ("v4-flash", "entry_bytes_index_key", "deployed", "68", "B"),
    ("v4.1-flash", "storage_per_token", "deployed", "890", "B"),
    ("v4.1-flash", "entry_bytes_main_kv", "deployed", "288", "B"),
    ("v4.1-flash", "entry_bytes_index_key", "deployed", "68", "B"),
    ("v3.2", "storage_per_token", "bf16", "85888", "B"),
    ("v4-flash", "storage_per_token", "bf16", "6880", "B"),
    ("v4.1-flash", "storage_per_token", "bf16", "3200", "B"),
    ("v4-flash", "local_kv", "deployed", "3.2", "MB"),
    ("v4-flash", "entry_bytes_local_kv", "deployed", "584", "B"),
    ("v4.1-flash", "local_kv", "deployed", "2.7", "MB"),
    ("v4.1-flash", "entry_bytes_local_kv", "deployed", "528", "B"),
    ("mha", "read_total", "deployed", "515", "GB"),
    ("v2", "read_total", "deployed", "9.06", "GB"),
    ("v3.2", "read_kv", "deployed", "82", "MB"),
    ("v3.2", "read_index_key", "deployed", "1.06", "GB"),
    ("v3.2", "read_total", "deployed", "1.14", "GB"),
    ("v4-flash", "read_kv", "deployed", "21.5", "MB"),
    ("v4-flash", "read_index_key", "deployed", "46.8", "MB"),
    ("v4-flash", "read_total", "deployed", "68", "MB"),
    ("v4-flash", "read_total", "deployed", "68.2", "MB"),
    ("v4.1-flash", "read_kv", "deployed", "8.3", "MB"),
    ("v4.1-flash", "read_main_kv", "deployed", "5.6", "MB"),
    ("v4.1-flash", "read_local_kv", "deployed", "2.7", "MB"),
    ("v4.1-flash", "read_index_key", "deployed", "26.7", "MB"),
    ("v4.1-flash", "read_total", "deployed", "35", "MB"),
    ("v4.1-flash", "read_total", "deployed", "35.0", "MB"),
    ("v2", "ratio_to_mha", "deployed", "57", "times"),
    ("v3.2", "ratio_to_mha", "deployed", "82", "times"),
    ("v4-flash", "ratio_to_mha", "deployed", "1119", "times"),
    ("v4.1-flash", "ratio_to_mha", "deployed", "4418", "times"),
    ("v4-flash", "crossover", "deployed", "900", "tokens"),
    ("v4.1-flash", "crossover", "deployed", "3038", "tokens"),
]


@pytest.mark.parametrize("model,quantity,precision,value,unit", FIGURES_NUMBERS,
                         ids=lambda x: str(x))
def test_the_csv_has_every_number_figures_md_asks_for(model, quantity, precision, value, unit):
    wanted = Fraction(value) * UNIT[unit]
    matches = [r for r in ROWS if (r["model"], r["quantity"], r["precision"]) == (model, quantity, precision)
               and _in_bytes(r, "value") == wanted]
    assert matches, f"no golden row for {model} {quantity} ({precision}) = {value} {unit}"


def test_the_csv_covers_every_quantity_and_all_bf16_read_formulas():
    assert {r["quantity"] for r in ROWS} == set(QUANTITIES)
    bf16_reads = {(r["model"], r["quantity"]) for r in ROWS
                  if r["precision"] == "bf16" and r["quantity"].startswith("read_")
                  and Fraction(r["tolerance"]) == 0}
    for model in ("v3.2", "v4-flash", "v4.1-flash"):
        assert {(model, "read_kv"), (model, "read_index_key")} <= bf16_reads, model


# --- every row against core ----------------------------------------------------------

EXACT = [r for r in ROWS if Fraction(r["tolerance"]) == 0]
ROUNDED = [r for r in ROWS if Fraction(r["tolerance"]) != 0]


@pytest.mark.parametrize("row", EXACT, ids=[r["id"] for r in EXACT])
def test_core_reproduces_the_exact_article_number(row):
    expected = _in_bytes(row, "value")
    got = core_value(row)
    assert got is not None, f"{row['id']}: core returned None ({row['source']})"
    assert got == expected, (
        f"{row['id']}: core {got!r} != article {row['value']} {row['unit']} ({row['source']})")


@pytest.mark.parametrize("row", ROUNDED, ids=[r["id"] for r in ROUNDED])
def test_core_rounds_to_the_article_number(row):
    got = core_value(row)
    assert got is not None, f"{row['id']}: core returned None ({row['source']})"
    diff = abs(Fraction(got) - _in_bytes(row, "value"))
    tol = _in_bytes(row, "tolerance")
    scale = UNIT[row["unit"]]
    assert diff <= tol, (
        f"{row['id']}: core {float(Fraction(got) / scale):.6g} {row['unit']} vs article "
        f"{row['value']} {row['unit']} (± {row['tolerance']}) ({row['source']})")
