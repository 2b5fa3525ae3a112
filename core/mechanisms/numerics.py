"""Rounding to the precision a computation runs in (not a cache byte format: see formats.py).

The mechanism runs compute in float64 and round where hardware would: every matmul
operand and result goes through `round_to`, while the sum inside a matmul stays float64
(tensor cores accumulate wider than their inputs). Comparing the same product computed
in different orders then shows only the rounding each order adds.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ..checks import one_of

CALC_PRECISIONS = ("fp64", "bf16", "fp8")

_E4M3 = ml_dtypes.float8_e4m3fn
_E4M3_MAX = float(ml_dtypes.finfo(_E4M3).max)  # 448; e4m3fn has no inf: beyond it is NaN


def check_precision(precision: str) -> str:
    return one_of("precision", precision, CALC_PRECISIONS)


def round_to(x, precision: str) -> np.ndarray:
    """`x` rounded to `precision` and returned as float64.

    fp64: unchanged. bf16: round to nearest bfloat16. fp8: FP8 E4M3 with one per-tensor
    scale amax/448, so the largest value lands on 448 and nothing overflows; non-finite
    entries (a −∞ mask) pass through unscaled.
    """
    check_precision(precision)
    x = np.asarray(x, dtype=np.float64)
    if precision == "fp64":
        return x
    if precision == "bf16":
        return x.astype(ml_dtypes.bfloat16).astype(np.float64)
    finite = np.isfinite(x)
    amax = float(np.max(np.abs(x), where=finite, initial=0.0))
    if amax == 0.0:
        return x.copy()
    scale = amax / _E4M3_MAX
    q = (np.where(finite, x, 0.0) / scale).astype(_E4M3).astype(np.float64) * scale
    return np.where(finite, q, x)


def matmul(a, b, precision: str) -> np.ndarray:
    """a @ b with both operands and the result rounded to `precision`, summed in float64."""
    return round_to(round_to(a, precision) @ round_to(b, precision), precision)
