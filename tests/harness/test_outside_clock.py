"""Holding reported times to the reporter's own clock (evaluator/harness/calibration.py): the
harness's fixed cost comes from its null problem, the allowance follows the host's spread, and a
workload whose reported times leave more of the outside clock unexplained is flagged; for a
language whose libraries do host work per call, time the solution's side spent on the CPU is
charged to it instead."""

from __future__ import annotations

import pytest

from evaluator.harness.calibration import (
    ALLOWED_MS,
    ALLOWED_SHARE,
    SPREAD_FACTOR,
    Calibration,
    CallClock,
    unaccounted,
)

HARNESS_CPU = 0.1  # ms of CPU the harness's own code uses per call in the solution's process


def clocks(*calls: tuple[float, float] | tuple[float, float, float]) -> list[CallClock]:
    """(outside, reported[, cpu beyond the harness's own]) ms per call."""
    return [CallClock(c[0], c[1], HARNESS_CPU + (c[2] if len(c) > 2 else 0.0)) for c in calls]

QUIET = Calibration.from_calls(clocks(*[(0.30 + 0.0002 * i, 0.0) for i in range(20)]))  # a steady host


def test_the_fixed_cost_is_what_the_null_calls_took_beyond_their_report() -> None:
    calibration = Calibration.from_calls(clocks((1.0, 0.1), (1.2, 0.1), (1.1, 0.1), (5.0, 0.1)))
    assert calibration.overhead_ms == pytest.approx(1.05)
    assert calibration.least_ms == pytest.approx(0.9)
    assert calibration.calls == 4
    assert calibration.cpu_ms == pytest.approx(HARNESS_CPU)


def test_the_allowance_follows_the_spread_of_a_noisy_host_and_never_falls_below_the_floor() -> None:
    assert QUIET.allowed_ms == ALLOWED_MS
    noisy = Calibration.from_calls(clocks(*[(1.0 + 0.1 * (i % 5), 0.0) for i in range(20)]))
    assert noisy.allowed_ms == pytest.approx(SPREAD_FACTOR * noisy.spread_ms)
    assert noisy.allowed_ms > ALLOWED_MS


def test_an_honest_workload_within_the_allowance_passes() -> None:
    calls = [(0.30 + 2.0 + 0.5 + 0.02, 2.0) for _ in range(20)]  # fixed cost, call, copy, prologue
    held = unaccounted(clocks(*calls), QUIET, copy_ms=0.5)
    assert not held.tampered
    assert held.unaccounted_ms == pytest.approx(0.02, abs=0.005)
    assert held.allowed_ms == pytest.approx(ALLOWED_MS + ALLOWED_SHARE * 2.0)


def test_a_report_lowered_beyond_the_allowance_is_flagged() -> None:
    truth = 2.0
    calls = [(0.30 + truth + 0.5, truth / 2) for _ in range(20)]  # half the time reported
    held = unaccounted(clocks(*calls), QUIET, copy_ms=0.5)
    assert held.tampered
    assert "tampered" in held.message() and "clock" in held.message()


def test_a_minority_of_honest_reports_does_not_hide_a_forged_median() -> None:
    truth = 2.0
    calls = [(0.30 + truth, truth if i < 9 else truth / 2) for i in range(20)]
    assert unaccounted(clocks(*calls), QUIET, copy_ms=0.0).tampered


def test_time_the_solution_spent_on_the_cpu_is_charged_not_flagged() -> None:
    """A library that creates and destroys a handle on every call: 2 ms of host work around a
    1 ms kernel; the call's time is the outside clock's less the harness's costs."""
    calls = [(0.30 + 2.0 + 1.0, 1.0, 2.0) for _ in range(20)]
    held = unaccounted(clocks(*calls), QUIET, copy_ms=0.0, charges_host_work=True)
    assert not held.tampered
    assert held.host_cpu_ms == pytest.approx(2.0)
    assert held.charged_ms == pytest.approx(2.0, abs=0.01)
    assert held.to_json()["charged_ms"] == pytest.approx(2.0, abs=0.01)


def test_hidden_time_the_cpu_does_not_cover_is_flagged() -> None:
    """Half the GPU time left out of the report while the process waited asleep: the CPU time
    explains only the launches."""
    truth = 2.0
    calls = [(0.30 + truth, truth / 2, 0.05) for _ in range(20)]
    held = unaccounted(clocks(*calls), QUIET, copy_ms=0.0, charges_host_work=True)
    assert held.tampered and held.charged_ms == 0.0
    assert "CPU time" in held.message()


def test_a_lowered_report_with_a_busy_cpu_is_charged_the_time_it_hid() -> None:
    """Spinning the CPU to make hidden GPU time look like host work wins nothing: the call is
    charged back to the outside clock."""
    truth = 2.0
    calls = [(0.30 + truth, truth / 2, truth) for _ in range(20)]
    held = unaccounted(clocks(*calls), QUIET, copy_ms=0.0, charges_host_work=True)
    assert not held.tampered
    assert held.reported_ms + held.charged_ms == pytest.approx(truth, abs=0.01)


def test_nothing_is_charged_within_the_allowance() -> None:
    calls = [(0.30 + 2.0 + 0.02, 2.0, 1.0) for _ in range(20)]
    assert unaccounted(clocks(*calls), QUIET, copy_ms=0.0, charges_host_work=True).charged_ms == 0.0


def test_elsewhere_time_beyond_the_allowance_is_flagged_whatever_the_cpu_did() -> None:
    """A Python or Triton solution has no per-call host work to charge: the same calls as the
    cuDNN-like ones above are REWARD_HACK."""
    calls = [(0.30 + 2.0 + 1.0, 1.0, 2.0) for _ in range(20)]
    held = unaccounted(clocks(*calls), QUIET, copy_ms=0.0)
    assert held.tampered and held.charged_ms == 0.0
