"""GPUs as the capacity planner sees them: HBM capacity and bandwidth, from the vendors' data sheets.

Units are decimal, as the data sheets write them: "80 GB" is 80 × 10⁹ B and "3.35 TB/s" is
3.35 × 10¹² B/s. Reading the capacity as decimal is the conservative reading (HBM stacks are
sized in GiB, and what a device reports can be a little more). A caller's own GPU is a `GPU`
made directly or with `custom`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

from .checks import int_at_least

GB = 10**9  # the data sheets' GB (and GB/s): decimal
TB = 10**12  # TB/s: decimal


@dataclass(frozen=True, kw_only=True)
class GPU:
    id: str
    name: str
    memory_bytes: int  # HBM capacity, decimal as stated on the data sheet
    bandwidth_bytes_per_s: int  # peak HBM bandwidth, decimal
    source: str = ""  # the data sheet the values come from; empty for a caller's own GPU

    def __post_init__(self):
        int_at_least("memory_bytes", self.memory_bytes)
        int_at_least("bandwidth_bytes_per_s", self.bandwidth_bytes_per_s)


GPUS: dict[str, GPU] = {
    g.id: g
    for g in (
        GPU(id="h100-sxm", name="NVIDIA H100 SXM 80 GB", memory_bytes=80 * GB, bandwidth_bytes_per_s=3350 * GB,
            source="https://www.nvidia.com/en-us/data-center/h100/"),
        GPU(id="h200", name="NVIDIA H200 SXM 141 GB", memory_bytes=141 * GB, bandwidth_bytes_per_s=4800 * GB,
            source="https://www.nvidia.com/en-us/data-center/h200/"),
        # The DGX B200 data sheet states the 8-GPU system: 1,440 GB and 64 TB/s in total.
        GPU(id="b200", name="NVIDIA B200 180 GB", memory_bytes=1440 * GB // 8, bandwidth_bytes_per_s=64 * TB // 8,
            source="https://www.nvidia.com/en-us/data-center/dgx-b200/"),
        GPU(id="mi300x", name="AMD Instinct MI300X 192 GB", memory_bytes=192 * GB, bandwidth_bytes_per_s=5300 * GB,
            source="https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html"),
    )
}


def custom(memory_gb: float, bandwidth_tb_s: float, name: str = "Custom GPU") -> GPU:
    """A caller's GPU from data-sheet numbers: decimal GB and TB/s, rounded to whole bytes."""
    return GPU(id="custom", name=name, memory_bytes=_decimal("memory_gb", memory_gb, GB),
               bandwidth_bytes_per_s=_decimal("bandwidth_tb_s", bandwidth_tb_s, TB))


def _decimal(name: str, value, unit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return round(value * unit)


def get(gpu: GPU | str) -> GPU:
    """The preset of a GPU id ('h200'); a GPU passes through."""
    if isinstance(gpu, GPU):
        return gpu
    try:
        return GPUS[gpu]
    except KeyError:
        raise ValueError(f"unknown GPU {gpu!r}; choose from {', '.join(GPUS)}") from None
