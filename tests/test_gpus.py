"""GPU presets against their data sheets (decimal GB and TB/s), a caller's own GPU, bad values."""

from __future__ import annotations

import dataclasses
import math

import pytest

from core import gpus
from core.gpus import GPU, GPUS

# (memory in GB, bandwidth in TB/s, the vendor's domain) as the data sheets state them
DATASHEETS = {
    "h100-sxm": (80, 3.35, "nvidia.com"),
    "h200": (141, 4.8, "nvidia.com"),
    "b200": (180, 8, "nvidia.com"),  # DGX B200: 1,440 GB and 64 TB/s over 8 GPUs
    "mi300x": (192, 5.3, "amd.com"),
}


def test_the_presets_are_the_four_gpus_of_the_planner():
    assert set(GPUS) == set(DATASHEETS)
    assert all(gpus.get_gpu(i) is g and g.id == i for i, g in GPUS.items())


@pytest.mark.parametrize("gpu_id", DATASHEETS)
def test_a_preset_holds_its_data_sheet_in_decimal_units(gpu_id):
    memory_gb, bandwidth_tb_s, domain = DATASHEETS[gpu_id]
    g = GPUS[gpu_id]
    assert g.memory_bytes == memory_gb * 10**9
    assert g.bandwidth_bytes_per_s == round(bandwidth_tb_s * 10**12)
    assert isinstance(g.memory_bytes, int) and isinstance(g.bandwidth_bytes_per_s, int)
    assert g.source.startswith("https://www." + domain + "/")


def test_the_h100_is_80_billion_bytes_not_80_gib():
    assert GPUS["h100-sxm"].memory_bytes == 80_000_000_000 != 80 * 2**30


def test_a_caller_makes_a_gpu_from_data_sheet_numbers_or_directly():
    g = gpus.custom_gpu(96, 4.0, name="my card")
    assert (g.id, g.name, g.memory_bytes, g.bandwidth_bytes_per_s, g.source) == (
        "custom", "my card", 96_000_000_000, 4_000_000_000_000, "")
    assert gpus.custom_gpu(0.5, 0.001).memory_bytes == 500_000_000
    mine = GPU(id="lab", name="Lab GPU", memory_bytes=24 * 10**9, bandwidth_bytes_per_s=10**12)
    assert gpus.get_gpu(mine) is mine


def test_a_gpu_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        GPUS["h200"].memory_bytes = 1


@pytest.mark.parametrize("memory_gb,bandwidth_tb_s,name", [
    (0, 1, "memory_gb"), (-80, 1, "memory_gb"), (math.nan, 1, "memory_gb"), (math.inf, 1, "memory_gb"),
    (True, 1, "memory_gb"), ("80", 1, "memory_gb"), (None, 1, "memory_gb"),
    (80, 0, "bandwidth_tb_s"), (80, -3.35, "bandwidth_tb_s"), (80, math.nan, "bandwidth_tb_s"),
])
def test_custom_refuses_what_is_not_a_positive_number(memory_gb, bandwidth_tb_s, name):
    with pytest.raises(ValueError, match=f"{name} must be a positive number"):
        gpus.custom_gpu(memory_gb, bandwidth_tb_s)


@pytest.mark.parametrize("field,value", [("memory_bytes", 0), ("memory_bytes", 80.5e9),
                                         ("bandwidth_bytes_per_s", -1), ("bandwidth_bytes_per_s", True)])
def test_a_gpu_needs_whole_positive_bytes(field, value):
    values = {"memory_bytes": 80 * 10**9, "bandwidth_bytes_per_s": 3 * 10**12, field: value}
    with pytest.raises(ValueError, match=f"{field} must be an integer"):
        GPU(id="x", name="x", **values)


def test_an_unknown_id_names_the_presets():
    with pytest.raises(ValueError, match="unknown GPU 'h300'; choose from h100-sxm, h200, b200, mi300x"):
        gpus.get_gpu("h300")


# What each card's driver reports (nvidia-smi's memory.total, rocminfo's GPU pool), MiB, and where it was read
REPORTED = {"h100-sxm": (81_559, "NVIDIA/nccl/issues/1264"), "h200": (143_771, "sgl-project/sglang/issues/3196"),
            "b200": (183_359, "NVIDIA/TensorRT-LLM/issues/10278"),
            "mi300x": (201_310_208 // 1024, "stas00/ml-engineering")}  # rocminfo: 201,310,208 KB


@pytest.mark.parametrize("gpu_id", REPORTED)
def test_a_preset_holds_what_its_driver_reports_beside_its_data_sheet(gpu_id):
    mib, where = REPORTED[gpu_id]
    g = GPUS[gpu_id]
    assert g.reported_mib == mib and g.reported_bytes == mib * 2**20
    assert where in g.reported_source
    assert g.reported_bytes > g.memory_bytes  # every card reports more than its data sheet's decimal GB
    assert g.platform == ("rocm" if gpu_id == "mi300x" else "cuda")


def test_the_h200_reports_143771_mib_not_the_planners_141_gb():
    """The issue's reading: 143,771 MiB ≈ 150.75 × 10⁹ B, 6.9 % more than 141 × 10⁹."""
    h200 = GPUS["h200"]
    assert h200.reported_bytes == 143_771 * 1_048_576 == 150_754_820_096
    assert h200.memory_bytes == 141_000_000_000
    assert GPUS["h100-sxm"].reported_bytes == 85_520_809_984  # the total torch reports (modal-client#2797)
    assert GPUS["mi300x"].reported_mib == 196_592


def test_a_gpu_without_a_report_reads_its_data_sheet():
    assert gpus.custom_gpu(96, 4.0).reported_bytes == 96_000_000_000
    assert GPU(id="x", name="x", memory_bytes=10**9, bandwidth_bytes_per_s=10**12).reported_mib == 0
    with pytest.raises(ValueError, match="unknown platform"):
        GPU(id="x", name="x", memory_bytes=10**9, bandwidth_bytes_per_s=10**12, platform="metal")
    with pytest.raises(ValueError, match="reported_mib must be an integer"):
        GPU(id="x", name="x", memory_bytes=10**9, bandwidth_bytes_per_s=10**12, reported_mib=-1)
