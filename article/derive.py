"""Byte counts written out as sums, from core: each term named, in the section's language, so
prose can show how a number is made and follow the precision controls ("512 B FP8 values +
16 B scales (4 × FP32) + 128 B BF16 RoPE part = 656 B")."""

from __future__ import annotations

from fractions import Fraction

from core import DEPLOYED, Layout, Precision, ReadTerm, fmt_bytes, fmt_exact, storage_groups
from i18n import t


def num(x: int | float | Fraction) -> str:
    """A byte count with thousands separators; a fraction as a decimal (0.5)."""
    x = Fraction(x)
    return f"{int(x):,}" if x.denominator == 1 else f"{float(x):,g}"


def factor(x: float, digits: int) -> str:
    """A factor as the prose writes it: whole numbers exact, others to `digits` significant digits
    ('57', '3.6', '1,200'), never in exponent notation."""
    return f"{x:,.0f}" if float(x).is_integer() else f"{float(f'{x:.{digits}g}'):,g}"


def entry_terms(layout: Layout, lang: str) -> str:
    """One entry's bytes, term by term and named: values per part, scales, padding, and the sum."""
    terms = []
    for s in layout.segments:
        terms.append(t("dv.rope" if s.part == "rope" else "dv.values", lang, b=num(s.value_bytes), f=s.dtype.short))
        if s.n_scales:
            terms.append(t("dv.scales", lang, b=num(s.scale_bytes), n=s.n_scales, f=s.scale.name))
    if layout.pad:
        terms.append(t("dv.pad", lang, b=num(layout.pad)))
    return " + ".join(terms) + (f" = {layout.nbytes:,} B" if len(terms) > 1 else "")


def entry_sum(layout: Layout) -> str:
    """One entry's bytes as bare numbers: '512 + 16 + 128 = 656 B' (one term: '1,152 B')."""
    terms = [num(b) for s in layout.segments for b in (s.value_bytes, s.scale_bytes) if b]
    terms += [num(layout.pad)] if layout.pad else []
    return f"{' + '.join(terms)} = {layout.nbytes:,} B" if len(terms) > 1 else f"{layout.nbytes:,} B"


def per_token_sum(model, precision: Precision = DEPLOYED) -> str:
    """The per-token storage as the article writes it: '21 × (584 + 68) B ÷ 4 + 20 × 584 B ÷ 128
    ≈ 3,514 B' (layers × entry bytes ÷ tokens per entry, a term per group of alike layers)."""
    groups = storage_groups(model, precision)
    terms = []
    for g in groups:
        entry = " + ".join(f"{b:,}" for _, b in g.entry)
        term = f"{g.layers:,} × ({entry}) B" if len(g.entry) > 1 else f"{g.layers:,} × {entry} B"
        terms.append(term + (f" ÷ {g.ratio:,}" if g.ratio > 1 else ""))
    total = fmt_exact(sum(g.per_token for g in groups))
    return " + ".join(terms) + (f" ≈ {total[1:]}" if total.startswith("≈") else f" = {total}")


def read_product(term: ReadTerm) -> str:
    """A decode step's read term as its factors, layers × entries × entry bytes: '61 × 2,048 × 656 B'."""
    return f"{term.layers:,} × {term.entries:,} × {term.entry_bytes:,} B"


def read_sum(terms, units: str = "decimal") -> str:
    """Read terms summed as the article writes them: '61 × 2,048 × 656 B + 61 × 131,072 × 132 B ≈ 1.14 GB'."""
    terms = tuple(terms)
    return " + ".join(read_product(r) for r in terms) + f" ≈ {fmt_bytes(sum(r.total for r in terms), units)}"
