"""Cache byte formats as data: an entry's size is computed from its definition.

A `Layout` is a list of segments (element dtype × dims, plus one scale per group of
elements) and trailing padding. Nothing here types a byte count; `Layout.nbytes`
derives it, so "584 B" is checked against its definition, not copied.
"""

from __future__ import annotations

from dataclasses import dataclass

PRECISIONS = ("bf16", "fp8", "fp4")


@dataclass(frozen=True)
class Dtype:
    name: str
    bits: int


BF16 = Dtype("BF16", 16)
FP32 = Dtype("FP32", 32)
E4M3 = Dtype("FP8 E4M3", 8)
E2M1 = Dtype("FP4 E2M1", 4)
UE8M0 = Dtype("UE8M0", 8)


@dataclass(frozen=True)
class Segment:
    """`dims` elements of `dtype`; with `group`, one `scale` per `group` elements."""

    dims: int
    dtype: Dtype
    group: int | None = None
    scale: Dtype | None = None

    def __post_init__(self):
        if (self.group is None) != (self.scale is None):
            raise ValueError("group and scale go together")
        if self.group and self.dims % self.group:
            raise ValueError(f"{self.dims} dims do not split into groups of {self.group}")

    @property
    def n_scales(self) -> int:
        return self.dims // self.group if self.group else 0

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

    precision: str  # "bf16" | "fp8" | "fp4": what the user picks
    segments: tuple[Segment, ...]
    pad: int = 0  # bytes

    def __post_init__(self):
        if self.precision not in PRECISIONS:
            raise ValueError(f"unknown precision {self.precision!r}")
        if sum(s.bits for s in self.segments) % 8:
            raise ValueError("entry is not a whole number of bytes")

    @property
    def dims(self) -> int:
        return sum(s.dims for s in self.segments)

    @property
    def nbytes(self) -> int:
        return sum(s.bits for s in self.segments) // 8 + self.pad

    @property
    def short(self) -> str:
        """Element formats in order, e.g. 'FP8+BF16' for FP8 values with a BF16 RoPE part."""
        names = dict.fromkeys(s.dtype.name.split()[0] for s in self.segments)
        return "+".join(names)

    def describe(self) -> str:
        parts = [s.describe() for s in self.segments]
        if self.pad:
            parts.append(f"{self.pad} B pad")
        return " + ".join(parts) + f" = {self.nbytes:,} B"


def bf16(dims: int) -> Layout:
    return Layout("bf16", (Segment(dims, BF16),))


def fp8_fp32(dims: int, group: int) -> Layout:
    """FP8 E4M3 values with one FP32 scale per `group` (FlashMLA, V3.2 index key)."""
    return Layout("fp8", (Segment(dims, E4M3, group, FP32),))


def fp8_ue8m0(dims: int, group: int) -> Layout:
    return Layout("fp8", (Segment(dims, E4M3, group, UE8M0),))


def mxfp4(dims: int) -> Layout:
    """FP4 E2M1 with a UE8M0 scale per 32 (V4 index key)."""
    return Layout("fp4", (Segment(dims, E2M1, 32, UE8M0),))


def nvfp4(dims: int) -> Layout:
    """FP4 E2M1 with an FP8 E4M3 scale per 16 (V4.1 main KV)."""
    return Layout("fp4", (Segment(dims, E2M1, 16, E4M3),))


# --- The article's deployed formats --------------------------------------------------

# V3.2 main KV (FlashMLA FP8): 512 FP8 + 4 FP32 scales per 128 + 64 BF16 RoPE = 656 B
MLA_FP8 = Layout("fp8", (Segment(512, E4M3, 128, FP32), Segment(64, BF16)))
# V3.2 index key: 128 FP8 + 1 FP32 scale = 132 B
INDEX_FP8 = fp8_fp32(128, 128)
# V4 main/local entry: 448 FP8 + 7 UE8M0 per 64 + 64 BF16 RoPE + 1 B pad = 584 B
V4_FP8 = Layout("fp8", (Segment(448, E4M3, 64, UE8M0), Segment(64, BF16)), pad=1)
# V4/V4.1 index key: 128 E2M1 + 4 UE8M0 per 32 = 68 B
INDEX_FP4 = mxfp4(128)
# V4.1 main KV: 512 E2M1 + 32 E4M3 scales per 16 (RoPE part quantised too) = 288 B
V41_FP4 = nvfp4(512)
# V4.1 local KV: 512 FP8 + 16 UE8M0 per 32 (RoPE part too) = 528 B
V41_LOCAL_FP8 = fp8_ue8m0(512, 32)

# --- Where the article is silent (per-component overrides) ----------------------------
# MLA in FP4: NVFP4 latent, RoPE kept BF16 as FlashMLA keeps it in FP8.
MLA_FP4 = Layout("fp4", (Segment(512, E2M1, 16, E4M3), Segment(64, BF16)))


def choices(*layouts: Layout) -> dict[str, Layout]:
    """Map precision name -> layout; every component offers all three precisions."""
    out = {lo.precision: lo for lo in layouts}
    missing = set(PRECISIONS) - set(out)
    if missing:
        raise ValueError(f"missing precisions {sorted(missing)}")
    return out
