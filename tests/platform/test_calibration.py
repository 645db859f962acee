"""Measured peaks stored as a hardware's calibrated peaks, and refused when malformed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evaluator.scoring.hardware import get_hardware, peak_bandwidth, peak_flops
from leaderboard.models import Hardware
from leaderboard.services import sync_hardware

pytestmark = pytest.mark.django_db

# Measured on the lent H200 on 2026-11-30 (python -m evaluator.harness.calibrate --json).
H200 = {"memory_bandwidth": 4.2629e12, "bfloat16": 7.809e14, "float8": 1.419e15, "tf32": 4.064e14}


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data))
    return path


def test_stored_peaks_replace_the_datasheet_in_sol_bounds(tmp_path: Path) -> None:
    sync_hardware()
    call_command("load_calibration", "h200", str(write(tmp_path, {"gpu": "NVIDIA H200", "peaks": H200})))
    calibrated = Hardware.objects.get(slug="h200").calibrated
    assert calibrated == H200
    spec = get_hardware("h200")
    assert peak_bandwidth(spec, calibrated) == H200["memory_bandwidth"] < spec.memory_bandwidth
    assert peak_flops(spec, "bfloat16", calibrated) == H200["bfloat16"]
    assert peak_flops(spec, "float16", calibrated) == spec.peak_flops["float16"]  # not measured: datasheet


@pytest.mark.parametrize(("peaks", "words"), [
    ({"bandwidth": 1e12}, "unknown peak names"),
    ({"bfloat16": -1}, "positive finite"),
    ({"bfloat16": "fast"}, "positive finite"),
    ({}, "non-empty"),
])
def test_malformed_peaks_are_refused_and_nothing_changes(tmp_path: Path, peaks: dict, words: str) -> None:
    sync_hardware()
    with pytest.raises(CommandError, match=words):
        call_command("load_calibration", "h200", str(write(tmp_path, {"peaks": peaks})))
    assert Hardware.objects.get(slug="h200").calibrated == {}


def test_unknown_hardware_is_named(tmp_path: Path) -> None:
    sync_hardware()
    with pytest.raises(CommandError, match="no hardware 'h300'"):
        call_command("load_calibration", "h300", str(write(tmp_path, {"peaks": H200})))
