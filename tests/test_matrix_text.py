"""Matrices as text (B2's editable inputs): parsed with messages a reader can act on, bounded,
and written back exactly."""

import math

import pytest

from core.mechanisms.matrix_text import MAX_MATRIX_SIZE, format_matrix, parse_matrix


def test_rows_split_by_semicolons_or_new_lines_and_values_by_commas_or_spaces():
    assert parse_matrix("1, 0; 0 1\n2,3", "H") == [[1, 0], [0, 1], [2, 3]]


def test_natural_logs_are_written_as_ln():
    assert parse_matrix("ln 3, 0", "W_s") == [[math.log(3), 0]]
    assert format_matrix([[math.log(3), 0.0]]) == "ln 3, 0"


@pytest.mark.parametrize("rows", [[[1.0, -0.5]], [[-1.0986122886681098, 1e-300]], [[2.0, 4.0], [0.1, 1 / 3]]])
def test_format_is_the_exact_inverse_of_parse(rows):
    assert parse_matrix(format_matrix(rows), "M") == rows


@pytest.mark.parametrize("text, message", [
    ("", "H is empty"), (" ; ", "H is empty"), ("1, x", "row 1: 'x' is not a number"),
    ("1, 0; 0", "same number of values"), ("inf", "finite"), ("nan", "finite"), ("1e400", "finite"),
    ("1e7", "finite"), (";".join(["1"] * (MAX_MATRIX_SIZE + 1)), f"at most {MAX_MATRIX_SIZE} rows"),
    (",".join(["1"] * (MAX_MATRIX_SIZE + 1)), f"at most {MAX_MATRIX_SIZE} values"), ("ln 0", "not a number"),
])
def test_bad_text_gets_one_clear_message(text, message):
    with pytest.raises(ValueError, match=message):
        parse_matrix(text, "H")
