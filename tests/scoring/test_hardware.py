"""The hardware table, dtype -> compute class, and datasheet/calibrated peaks."""

import math

import pytest

from evaluator.scoring.hardware import (
    BANDWIDTH_KEY,
    COMPUTE_CLASSES,
    HARDWARE,
    HardwareSpec,
    UnknownHardware,
    compute_class,
    get_hardware,
    peak_bandwidth,
    peak_flops,
)


def test_table_has_the_expected_rows_in_order() -> None:
    assert list(HARDWARE) == ["h100", "h200", "b200", "a100", "mi300x", "cpu"]


def test_every_row_has_every_compute_class_with_a_positive_peak() -> None:
    for spec in HARDWARE.values():
        assert set(spec.peak_flops) == set(COMPUTE_CLASSES), spec.slug
        assert all(math.isfinite(v) and v > 0 for v in spec.peak_flops.values()), spec.slug
        assert spec.memory_bandwidth > 0 and spec.l2_bytes > 0 and spec.source, spec.slug


def test_h200_datasheet_figures() -> None:
    h200 = get_hardware("h200")
    assert h200.memory_bandwidth == 4.8e12  # 4.8 TB/s HBM3e
    assert h200.memory_gb == 141
    assert h200.peak_flops["bfloat16"] == 989e12  # 1,979 TFLOPS with sparsity / 2
    assert h200.peak_flops["float8"] == 1979e12  # 3,958 with sparsity / 2


def test_h100_and_h200_share_compute_but_not_bandwidth() -> None:
    h100, h200 = get_hardware("h100"), get_hardware("h200")
    assert dict(h100.peak_flops) == dict(h200.peak_flops)
    assert h100.memory_bandwidth == 3.35e12 < h200.memory_bandwidth


def test_low_precision_is_never_slower_than_high_precision() -> None:
    for spec in HARDWARE.values():
        p = spec.peak_flops
        assert p["float8"] >= p["bfloat16"] == p["float16"] >= p["tf32"] >= p["float32"], spec.slug


def test_peaks_cannot_be_mutated() -> None:
    with pytest.raises(TypeError):
        get_hardware("h100").peak_flops["bfloat16"] = 1.0  # type: ignore[index]


def test_a_row_missing_a_class_is_rejected() -> None:
    with pytest.raises(ValueError, match="float8"):
        HardwareSpec("x", "X", "v", 1, 1e12, 1, {c: 1e12 for c in COMPUTE_CLASSES if c != "float8"}, "s")


def test_get_hardware_ignores_case_and_spaces() -> None:
    assert get_hardware(" H200 ").slug == "h200"


def test_unknown_hardware_names_the_known_slugs() -> None:
    with pytest.raises(UnknownHardware, match="h100, h200, b200, a100, mi300x, cpu"):
        get_hardware("v100")
    assert issubclass(UnknownHardware, ValueError)


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        ("float32", "float32"),
        ("float16", "float16"),
        ("bfloat16", "bfloat16"),
        ("float8_e4m3fn", "float8"),
        ("float8_e5m2", "float8"),
        ("int8", "int8"),
        ("int32", "float32"),
        ("int64", "float32"),
        ("bool", "float32"),
        ("float64", "float64"),
        ("tf32", "tf32"),
        ("torch.bfloat16", "bfloat16"),
    ],
)
def test_compute_class(dtype: str, expected: str) -> None:
    assert compute_class(dtype) == expected


def test_unknown_dtype_raises() -> None:
    with pytest.raises(ValueError, match="complex64"):
        compute_class("complex64")


def test_peak_flops_uses_the_class_of_the_dtype() -> None:
    h200 = get_hardware("h200")
    assert peak_flops(h200, "float8_e4m3fn") == 1979e12
    assert peak_flops(h200, "int32") == 67e12  # FP32 CUDA-core rate


def test_calibrated_figures_override_only_what_they_cover() -> None:
    h200 = get_hardware("h200")
    calibrated = {"bfloat16": 700e12, BANDWIDTH_KEY: 4.3e12}
    assert peak_flops(h200, "bfloat16", calibrated) == 700e12
    assert peak_flops(h200, "float16", calibrated) == 989e12
    assert peak_bandwidth(h200, calibrated) == 4.3e12
    assert peak_bandwidth(h200) == 4.8e12
    assert peak_bandwidth(h200, {"bfloat16": 1.0}) == 4.8e12


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_nonsense_calibration_is_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="positive finite"):
        peak_flops(get_hardware("h200"), "bfloat16", {"bfloat16": bad})
    with pytest.raises(ValueError, match="positive finite"):
        peak_bandwidth(get_hardware("h200"), {BANDWIDTH_KEY: bad})
