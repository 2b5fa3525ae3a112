"""GPUs as the capacity planner sees them: HBM capacity and bandwidth, from the vendors' data sheets,
and each card's memory as its driver reports it.

Units are decimal, as the data sheets write them: "80 GB" is 80 × 10⁹ B and "3.35 TB/s" is
3.35 × 10¹² B/s. Reading the capacity as decimal is the conservative reading (HBM stacks are
sized in GiB, and what a device reports can be a little more). A caller's own GPU is a `GPU`
made directly or with `custom`.

What the engines start from is the driver's figure, not the data sheet's: `reported_mib`, the
total `nvidia-smi --query-gpu=memory.total` prints in MiB (the total CUDA's cudaMemGetInfo and
torch give, in bytes: H100 81,559 MiB = 85,520,809,984 B), or on AMD the size of the GPU's first
memory pool `rocminfo` prints in KB. SGLang reads exactly these (sglang/srt/utils/common.py:682-707,
802-832); vLLM reads the total in bytes (torch.accelerator memory info). An H200's 143,771 MiB are
150,754,820,096 B: 6.9 % more than the data sheet's 141 × 10⁹. `reported_bytes` is that total, or
the data sheet's where no report is known (a caller's own GPU).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

from .checks import int_at_least, one_of

GB = 10**9  # the data sheets' GB (and GB/s): decimal
TB = 10**12  # TB/s: decimal
MiB = 1 << 20  # what nvidia-smi's "MiB" means: binary
PLATFORMS = ("cuda", "rocm")  # the runtime a card runs under: engines size some reserves by it


@dataclass(frozen=True, kw_only=True)
class GPU:
    id: str
    name: str
    memory_bytes: int  # HBM capacity, decimal as stated on the data sheet
    bandwidth_bytes_per_s: int  # peak HBM bandwidth, decimal
    source: str = ""  # the data sheet the values come from; empty for a caller's own GPU
    reported_mib: int = 0  # the total memory its driver reports, MiB; 0 where none is known
    reported_source: str = ""  # where a driver's report of it was read
    platform: str = "cuda"  # "cuda" (NVIDIA) or "rocm" (AMD)

    def __post_init__(self):
        int_at_least("memory_bytes", self.memory_bytes)
        int_at_least("bandwidth_bytes_per_s", self.bandwidth_bytes_per_s)
        int_at_least("reported_mib", self.reported_mib, 0)
        one_of("platform", self.platform, PLATFORMS)

    @property
    def reported_bytes(self) -> int:
        """The card's memory as its driver reports it, in bytes (reported_mib × 2²⁰); the data sheet's
        memory_bytes where no report is known."""
        return self.reported_mib * MiB if self.reported_mib else self.memory_bytes


# Reported totals, each read from a driver's own output quoted in public threads (no card was at hand):
# - H100 SXM: nvidia-smi "0MiB / 81559MiB" on 8 × "NVIDIA H100 80GB HBM3" (NVIDIA/nccl#1264); 81,559 MiB =
#   85,520,809,984 B, the total torch reports there too (modal-labs/modal-client#2797).
# - H200: nvidia-smi "124585MiB / 143771MiB" on 8 × "NVIDIA H200" (sgl-project/sglang#3196).
# - B200: nvidia-smi "166593MiB / 183359MiB" on 8 × "NVIDIA B200", driver 580.95.05 (NVIDIA/TensorRT-LLM#10278):
#   183,359 MiB = 192,265,846,784 B, more than the DGX data sheet's 180 GB a GPU.
# - MI300X: rocminfo's GPU pool "Size: 201310208(0xbffc000) KB" = 196,592 MiB on 8 × MI300X in SPX/NPS1 mode
#   (stas00/ml-engineering, compute/accelerator/amd/debug.md, at 1c4d240), the figure SGLang reads on ROCm.
_NCCL, _SGL, _TRT = ("https://github.com/NVIDIA/nccl/issues/1264", "https://github.com/sgl-project/sglang/issues/3196",
                     "https://github.com/NVIDIA/TensorRT-LLM/issues/10278")
_ROCMINFO = "https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/amd/debug.md"

GPUS: dict[str, GPU] = {
    g.id: g
    for g in (
        GPU(id="h100-sxm", name="NVIDIA H100 SXM 80 GB", memory_bytes=80 * GB, bandwidth_bytes_per_s=3350 * GB,
            source="https://www.nvidia.com/en-us/data-center/h100/", reported_mib=81_559, reported_source=_NCCL),
        GPU(id="h200", name="NVIDIA H200 SXM 141 GB", memory_bytes=141 * GB, bandwidth_bytes_per_s=4800 * GB,
            source="https://www.nvidia.com/en-us/data-center/h200/", reported_mib=143_771, reported_source=_SGL),
        # The DGX B200 data sheet states the 8-GPU system: 1,440 GB and 64 TB/s in total.
        GPU(id="b200", name="NVIDIA B200 180 GB", memory_bytes=1440 * GB // 8, bandwidth_bytes_per_s=64 * TB // 8,
            source="https://www.nvidia.com/en-us/data-center/dgx-b200/", reported_mib=183_359, reported_source=_TRT),
        GPU(id="mi300x", name="AMD Instinct MI300X 192 GB", memory_bytes=192 * GB, bandwidth_bytes_per_s=5300 * GB,
            source="https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html", reported_mib=196_592,
            reported_source=_ROCMINFO, platform="rocm"),
    )
}


def custom_gpu(memory_gb: float, bandwidth_tb_s: float, name: str = "Custom GPU") -> GPU:
    """A caller's GPU from data-sheet numbers: decimal GB and TB/s, rounded to whole bytes."""
    return GPU(id="custom", name=name, memory_bytes=_decimal("memory_gb", memory_gb, GB),
               bandwidth_bytes_per_s=_decimal("bandwidth_tb_s", bandwidth_tb_s, TB))


def _decimal(name: str, value, unit: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return round(value * unit)


def get_gpu(gpu: GPU | str) -> GPU:
    """The preset of a GPU id ('h200'); a GPU passes through."""
    if isinstance(gpu, GPU):
        return gpu
    try:
        return GPUS[gpu]
    except KeyError:
        raise ValueError(f"unknown GPU {gpu!r}; choose from {', '.join(GPUS)}") from None
