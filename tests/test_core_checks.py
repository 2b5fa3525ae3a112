"""Argument checks (core.checks): each kind of mistake is a ValueError naming the argument."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from core import checks


def test_int_at_least_returns_a_python_int_for_ints_and_numpy_ints():
    assert checks.int_at_least("n", 3) == 3
    value = checks.int_at_least("n", np.int64(0), 0)
    assert value == 0 and type(value) is int


@pytest.mark.parametrize("value", [True, 1.0, "2", None, 0, -4])
def test_int_at_least_refuses_bools_floats_strings_and_small_values_by_name(value):
    with pytest.raises(ValueError, match=r"tokens must be an integer ≥ 1"):
        checks.int_at_least("tokens", value)


def test_positive_ints_come_back_in_order_and_the_first_bad_one_is_named():
    assert checks.positive_ints(a=1, b=np.int32(2), c=3) == (1, 2, 3)
    with pytest.raises(ValueError, match="^b must"):
        checks.positive_ints(a=1, b=0, c=-1)


def test_positive_fields_checks_every_field_of_a_dataclass():
    @dataclass
    class Sizes:
        tokens: int
        heads: int

    checks.positive_fields(Sizes(2, 3))
    with pytest.raises(ValueError, match="heads"):
        checks.positive_fields(Sizes(2, 0))


def test_whole_numbers_take_ints_and_whole_floats_as_int64():
    out = checks.whole_numbers("n", np.array([1.0, 4096.0]), 1)
    assert out.dtype == np.int64 and out.tolist() == [1, 4096]
    assert checks.whole_numbers("n", 0, 0).ndim == 0


@pytest.mark.parametrize("values,message", [(1.5, "whole number"), (np.nan, "whole number"), (np.inf, "whole number"),
                                            ("abc", "whole number"), (0, "at least 1"), ([3, -1], "at least 1")])
def test_whole_numbers_refuse_fractions_non_numbers_and_small_values(values, message):
    with pytest.raises(ValueError, match=f"^context length must be (a )?{message}"):
        checks.whole_numbers("context length", values, 1)


def test_one_of_names_the_choices():
    assert checks.one_of("precision", "fp8", ("bf16", "fp8")) == "fp8"
    with pytest.raises(ValueError, match=r"unknown precision 'fp16'; choose from bf16, fp8"):
        checks.one_of("precision", "fp16", ("bf16", "fp8"))


@pytest.mark.parametrize("rope_dim,width,whole,ok", [(2, 6, False, True), (6, 6, False, False), (6, 6, True, True),
                                                    (3, 6, False, False), (8, 6, True, False)])
def test_rope_part_is_even_and_fits_the_width(rope_dim, width, whole, ok):
    if ok:
        checks.rope_part(rope_dim, width, whole=whole)
    else:
        with pytest.raises(ValueError, match="rope_dim must be even"):
            checks.rope_part(rope_dim, width, whole=whole)


def test_runnable_refuses_arrays_beyond_the_limit_with_a_hint():
    checks.runnable("small", checks.MAX_ELEMENTS)
    with pytest.raises(ValueError, match="too large to run here.*use formulas"):
        checks.runnable("huge", checks.MAX_ELEMENTS + 1, "; use formulas")
