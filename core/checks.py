"""Argument checks shared by core: one wording per kind of mistake, always a ValueError
that names the argument, so a page can show it as it is."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

MAX_ELEMENTS = 4_000_000  # the largest array a mechanism run may make; the article's sizes are for formulas
# The longest context core prices: 2^30 tokens, the app's CONTEXT knob's range (figures/knobs.py), to which
# core.config_import's MAX_ENTRY keeps a layer's bytes in int64.
MAX_CONTEXT = 1 << 30
# The most GPUs one layout may take (tp × pp × dp, each at most this): 1,024, 128 nodes of 8. A bound of
# this tool, not of an engine (core.layouts says what each engine refuses below it).
MAX_GPUS = 1 << 10


def int_at_least(name: str, value, minimum: int = 1) -> int:
    """`value` as an int when it is an integer ≥ minimum (a bool is not a count)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)


def int_between(name: str, value, minimum: int, maximum: int) -> int:
    """`value` as an int when it is an integer from minimum to maximum."""
    n = int_at_least(name, value, minimum)
    if n > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {value!r}")
    return n


def positive_ints(**values) -> tuple[int, ...]:
    """Each keyword's value as an int ≥ 1, in the order given."""
    return tuple(int_at_least(name, value) for name, value in values.items())


def positive_fields(obj) -> None:
    """Every field of a dataclass of sizes is an integer ≥ 1."""
    positive_ints(**{f.name: getattr(obj, f.name) for f in fields(obj)})


def whole_numbers(name: str, values, minimum: int) -> np.ndarray:
    """`values` (a number or an array) as int64 when all are whole numbers ≥ minimum;
    whole floats such as 4096.0 count."""
    arr = np.asarray(values)
    whole = arr.dtype.kind in "iu" or (arr.dtype.kind == "f" and np.all(np.isfinite(arr) & (arr == np.floor(arr))))
    if not whole:
        raise ValueError(f"{name} must be a whole number, got {values!r}")
    if np.any(arr < minimum):
        raise ValueError(f"{name} must be at least {minimum}, got {values!r}")
    return arr.astype(np.int64)


def one_of(what: str, value, choices):
    """`value` when it is one of `choices`."""
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; choose from {', '.join(map(str, choices))}")
    return value


def rope_part(rope_dim: int, width: int, *, whole: bool = False) -> None:
    """RoPE turns pairs of dims: `rope_dim` is even and leaves part of `width` unrotated
    (with whole=True it may rotate all of it)."""
    if rope_dim % 2 or rope_dim > width or (rope_dim == width and not whole):
        bound = "at most" if whole else "smaller than"
        raise ValueError(f"rope_dim must be even and {bound} {width}, got {rope_dim}")


def runnable(dims, biggest: int, hint: str = "") -> None:
    """A run of `dims` would make an array of `biggest` values: refuse it beyond MAX_ELEMENTS."""
    if biggest > MAX_ELEMENTS:
        raise ValueError(f"{dims} is too large to run here (an array of {biggest:,} values){hint}")
