"""benchmarks/launch_gaps.py's split of a call's span: the time its kernels ran, and the gaps in
which the GPU waited for the host's next launch; work launched outside the call's window (the L2
flush) is not the call's, and overlapping kernels are counted once."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.benchmarks import scripts


@pytest.fixture(scope="module")
def launch_gaps() -> ModuleType:
    return scripts.load("launch_gaps")


def window(call: int, start: float, length: float) -> dict:
    return {"cat": "user_annotation", "name": f"solarena_timed_call_{call}", "ts": start, "dur": length}


def launch(correlation: int, at: float) -> dict:
    return {"cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": at, "dur": 4.0,
            "args": {"correlation": correlation}}


def kernel(correlation: int, start: float, length: float, cat: str = "kernel") -> dict:
    return {"cat": cat, "name": "k", "ts": start, "dur": length, "args": {"correlation": correlation}}


def test_a_gap_between_two_kernels_is_the_hosts_launch(launch_gaps: ModuleType) -> None:
    events = [window(0, 100.0, 100.0), launch(1, 110.0), launch(2, 150.0),
              kernel(1, 120.0, 12.0), kernel(2, 160.0, 3.0),
              launch(9, 90.0), kernel(9, 95.0, 30.0, cat="gpu_memset")]  # the flush, before the window
    split = launch_gaps._split(events, 1)
    assert split["span_us"] == pytest.approx(43.0)  # 120 to 163
    assert split["kernels_us"] == pytest.approx(15.0)
    assert split["gaps_us"] == pytest.approx(28.0)
    assert split["launch_spread_us"] == pytest.approx(40.0)
    assert split["first_start_after_launch_us"] == pytest.approx(10.0)
    assert split["activities"] == 2


def test_overlapping_kernels_count_once_and_calls_are_taken_apart(launch_gaps: ModuleType) -> None:
    events = [window(0, 0.0, 50.0), launch(1, 5.0), launch(2, 6.0), kernel(1, 10.0, 20.0),
              kernel(2, 15.0, 5.0), window(1, 100.0, 50.0), launch(3, 105.0), kernel(3, 110.0, 40.0)]
    split = launch_gaps._split(events, 2)
    assert split["calls"] == 2
    assert split["span_us"] == pytest.approx(30.0)  # median of 20 and 40
    assert split["kernels_us"] == pytest.approx(30.0)
    assert split["gaps_us"] == 0.0
    assert (split["span_min_us"], split["span_max_us"]) == (20.0, 40.0)
