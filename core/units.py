"""Byte formatting in one place: decimal units as the article (kB/MB/GB = 10³/10⁶/10⁹),
binary (KiB/MiB/GiB) as an option."""

from __future__ import annotations

import math
from fractions import Fraction

from .checks import one_of

BYTE_UNITS = ("decimal", "binary")
_PREFIX = {"decimal": (1000, ("B", "kB", "MB", "GB", "TB", "PB")),
           "binary": (1024, ("B", "KiB", "MiB", "GiB", "TiB", "PiB"))}


def fmt_bytes(x: float, units: str = "decimal", sig: int = 3) -> str:
    """'515 GB', '9.06 GB', '35.0 MB': `sig` significant digits; below 1 kB, whole bytes."""
    base, names = _PREFIX[one_of("units", units, BYTE_UNITS)]
    x = float(x)
    if abs(x) < base:
        return fmt_exact(x)
    k = min(int(math.log(abs(x), base)), len(names) - 1)
    v = _round_sig(x / base**k, sig)
    if v >= base and k + 1 < len(names):
        k, v = k + 1, _round_sig(v / base, sig)
    digits = max(sig - 1 - int(math.floor(math.log10(abs(v)))), 0)
    return f"{v:.{digits}f} {names[k]}"


def _round_sig(v: float, sig: int) -> float:
    return round(v, sig - 1 - int(math.floor(math.log10(abs(v)))))


def fmt_exact(x: float) -> str:
    """Exact bytes with thousands separators; '≈' marks a fractional per-token value."""
    if float(x).is_integer():
        return f"{int(x):,} B"
    return f"≈{round(x):,} B"


def fmt_ratio(r: float) -> str:
    """'1/57' for a 56.9× reduction."""
    return f"1/{round(r):,}"


def fmt_tokens(n: int) -> str:
    """'128K' for 131,072 (binary K/M as context lengths are usually quoted)."""
    for unit, name in ((1 << 20, "M"), (1 << 10, "K")):
        if n >= unit:
            v = n / unit
            return f"{v:g}{name}" if v == round(v, 2) else f"{n:,}"
    return f"{n:,}"


def exact(x) -> int | float:
    """A byte count as an int where it is whole, else a float (3,514.25 B stays fractional)."""
    x = Fraction(x)
    return int(x) if x.denominator == 1 else float(x)
