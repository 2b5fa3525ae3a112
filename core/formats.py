"""Cache byte formats as data: an entry's size is computed from its definition.

A `Layout` is a list of segments (element dtype × dims, plus one scale per group of
elements) and trailing padding. The formats are functions of an entry's widths, which
come from the model specs (`core.models`); what stays here is what belongs to a byte
format: element types, scale groups and padding. Nothing here types a byte count;
`Layout.nbytes` derives it, so "584 B" is checked against its definition, not copied.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from .checks import one_of

PRECISIONS = ("bf16", "fp8", "fp4")  # what every article component offers (and the per-role knob picks)
FP8_BLOCK = "fp8_block"  # an open model's FP8 with DeepSeek's FP32 scale per 128 (its "fp8" is per-tensor)
LAYOUT_PRECISIONS = ("bf16", "fp8", FP8_BLOCK, "fp4")  # every name a layout may carry
OPEN_PRECISIONS = ("bf16", "fp8", FP8_BLOCK)  # what an imported model is priced in (CLI --config, import panel)


@dataclass(frozen=True)
class Dtype:
    name: str
    bits: int

    @property
    def short(self) -> str:
        """The family a reader knows it by: 'FP8' for 'FP8 E4M3'."""
        return self.name.split()[0]


BF16 = Dtype("BF16", 16)
FP32 = Dtype("FP32", 32)
E4M3 = Dtype("FP8 E4M3", 8)
E2M1 = Dtype("FP4 E2M1", 4)
UE8M0 = Dtype("UE8M0", 8)


class GroupError(ValueError):
    """A scale group that does not divide a segment: that format cannot hold the entry."""


@dataclass(frozen=True)
class Segment:
    """`dims` elements of `dtype`; with `group`, one `scale` per `group` elements. `part` names
    what the elements are where an entry holds parts in different formats ("rope": the rotated
    tail kept apart; "" for the entry's values as a whole)."""

    dims: int
    dtype: Dtype
    group: int | None = None
    scale: Dtype | None = None
    part: str = ""

    def __post_init__(self):
        if (self.group is None) != (self.scale is None):
            raise ValueError("group and scale go together")
        if self.group and self.dims % self.group:
            raise GroupError(f"{self.dims} dims do not split into groups of {self.group}")

    @property
    def n_scales(self) -> int:
        return self.dims // self.group if self.group else 0

    @property
    def value_bytes(self) -> Fraction:
        """Bytes of the values alone (a whole entry is whole bytes; a segment may not be)."""
        return Fraction(self.dims * self.dtype.bits, 8)

    @property
    def scale_bytes(self) -> Fraction:
        return Fraction(self.n_scales * (self.scale.bits if self.scale else 0), 8)

    @property
    def bits(self) -> int:
        return self.dims * self.dtype.bits + self.n_scales * (self.scale.bits if self.scale else 0)

    def describe(self) -> str:
        s = f"{self.dims} × {self.dtype.name}"
        if self.group:
            s += f" + {self.n_scales} × {self.scale.name} scale /{self.group}"
        return s


@dataclass(frozen=True)
class Layout:
    """One cached entry (one token or compressed block, one layer) in one precision."""

    precision: str  # one of LAYOUT_PRECISIONS: what the user picks
    segments: tuple[Segment, ...]
    pad: int = 0  # bytes

    def __post_init__(self):
        one_of("precision", self.precision, LAYOUT_PRECISIONS)
        if sum(s.bits for s in self.segments) % 8:
            raise ValueError("entry is not a whole number of bytes")

    @property
    def dims(self) -> int:
        return sum(s.dims for s in self.segments)

    @property
    def nbytes(self) -> int:
        return sum(s.bits for s in self.segments) // 8 + self.pad

    @property
    def uniform(self) -> bool:
        """Every value in one format, with no scales and no padding: bytes = values × one size."""
        return len(self.segments) == 1 and not self.segments[0].n_scales and not self.pad

    @property
    def short(self) -> str:
        """Element formats in order, e.g. 'FP8+BF16' for FP8 values with a BF16 RoPE part."""
        names = dict.fromkeys(s.dtype.short for s in self.segments)
        return "+".join(names)

    def describe(self) -> str:
        parts = [s.describe() for s in self.segments]
        if self.pad:
            parts.append(f"{self.pad} B pad")
        return " + ".join(parts) + f" = {self.nbytes:,} B"


def bf16(dims: int) -> Layout:
    return Layout("bf16", (Segment(dims, BF16),))


def fp8_tensor(dims: int) -> Layout:
    """FP8 E4M3 with one scale per tensor, as vLLM's fp8 KV cache: the scale lives outside the
    entry, so an entry is 1 byte per value (an open model's "fp8")."""
    return Layout("fp8", (Segment(dims, E4M3),))


def fp8_blocks(dims: int, precision: str = "fp8") -> Layout:
    """FP8 E4M3 with an FP32 scale per 128 values, DeepSeek's block quantisation
    (V3.2's index key: 128 + 4 = 132 B). Named "fp8" in the article's components,
    FP8_BLOCK in an open model's, whose "fp8" is per-tensor."""
    return Layout(precision, (Segment(dims, E4M3, 128, FP32),))


def mxfp4(dims: int) -> Layout:
    """FP4 E2M1 with a UE8M0 scale per 32 (V4's index key: 64 + 4 = 68 B)."""
    return Layout("fp4", (Segment(dims, E2M1, 32, UE8M0),))


def nvfp4(dims: int) -> Layout:
    """FP4 E2M1 with an FP8 E4M3 scale per 16 (V4.1's main KV, RoPE part too: 256 + 32 = 288 B)."""
    return Layout("fp4", (Segment(dims, E2M1, 16, E4M3),))


def mla_fp8(latent: int, rope: int, precision: str = "fp8") -> Layout:
    """FlashMLA's FP8 MLA entry: the latent C^KV in FP8 with an FP32 scale per 128, the
    RoPE key K^R kept BF16 (V3.2: 512 + 16 + 128 = 656 B)."""
    return _with_bf16_rope(fp8_blocks(latent, precision), rope)


def mla_fp4(latent: int, rope: int) -> Layout:
    """Where the article is silent: NVFP4 latent, RoPE key kept BF16 as FlashMLA keeps it in FP8."""
    return _with_bf16_rope(nvfp4(latent), rope)


def v4_fp8(width: int, rope: int) -> Layout:
    """V4's entry (SGLang's DSV4 layout): the part RoPE leaves alone in FP8 with a UE8M0
    scale per 64, the RoPE part BF16, one pad byte (448 + 7 + 128 + 1 = 584 B)."""
    return _with_bf16_rope(Layout("fp8", (Segment(width - rope, E4M3, 64, UE8M0),)), rope, pad=1)


def v41_fp8(width: int) -> Layout:
    """V4.1's local KV: every dim FP8, RoPE part too, with a UE8M0 scale per 32 (512 + 16 = 528 B)."""
    return Layout("fp8", (Segment(width, E4M3, 32, UE8M0),))


def _with_bf16_rope(quantised: Layout, rope: int, pad: int = 0) -> Layout:
    return Layout(quantised.precision, (*quantised.segments, Segment(rope, BF16, part="rope")), pad)


def fitting(*builds: Callable[[], Layout]) -> dict[str, Layout]:
    """Map precision name -> layout for an open model's entry, keeping the formats whose scale
    groups divide it: per-128 scales cannot hold 72 values, so such an entry is not offered
    in them."""
    out = {}
    for build in builds:
        try:
            layout = build()
        except GroupError:
            continue
        out[layout.precision] = layout
    return out


def open_choices(dims: int, fp4: Callable[[int], Layout] = nvfp4) -> dict[str, Layout]:
    """An open model's entry of `dims` values: BF16, per-tensor FP8, and where their groups
    divide it, FP8 with an FP32 scale per 128 and `fp4` (the article's FP4 formats)."""
    return fitting(lambda: bf16(dims), lambda: fp8_tensor(dims), lambda: fp8_blocks(dims, FP8_BLOCK),
                   lambda: fp4(dims))


def choices(*layouts: Layout) -> dict[str, Layout]:
    """Map precision name -> layout; every article component offers all three precisions."""
    out = {lo.precision: lo for lo in layouts}
    missing = set(PRECISIONS) - set(out)
    if missing:
        raise ValueError(f"missing precisions {sorted(missing)}")
    return out
