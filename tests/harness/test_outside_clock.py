"""Holding reported times to the reporter's own clock (evaluator/harness/calibration.py): the
harness's fixed cost comes from its null problem, the allowance follows the host's spread, and a
workload whose reported times leave more of the outside clock unexplained is flagged."""

from __future__ import annotations

import pytest

from evaluator.harness.calibration import ALLOWED_MS, ALLOWED_SHARE, SPREAD_FACTOR, Calibration, unaccounted

QUIET = Calibration.from_calls([(0.30 + 0.0002 * i, 0.0) for i in range(20)])  # a steady host


def test_the_fixed_cost_is_what_the_null_calls_took_beyond_their_report() -> None:
    calibration = Calibration.from_calls([(1.0, 0.1), (1.2, 0.1), (1.1, 0.1), (5.0, 0.1)])
    assert calibration.overhead_ms == pytest.approx(1.05)
    assert calibration.least_ms == pytest.approx(0.9)
    assert calibration.calls == 4


def test_the_allowance_follows_the_spread_of_a_noisy_host_and_never_falls_below_the_floor() -> None:
    assert QUIET.allowed_ms == ALLOWED_MS
    noisy = Calibration.from_calls([(1.0 + 0.1 * (i % 5), 0.0) for i in range(20)])
    assert noisy.allowed_ms == pytest.approx(SPREAD_FACTOR * noisy.spread_ms)
    assert noisy.allowed_ms > ALLOWED_MS


def test_an_honest_workload_within_the_allowance_passes() -> None:
    calls = [(0.30 + 2.0 + 0.5 + 0.02, 2.0) for _ in range(20)]  # fixed cost, call, copy, prologue
    held = unaccounted(calls, QUIET, copy_ms=0.5)
    assert not held.tampered
    assert held.unaccounted_ms == pytest.approx(0.02, abs=0.005)
    assert held.allowed_ms == pytest.approx(ALLOWED_MS + ALLOWED_SHARE * 2.0)


def test_a_report_lowered_beyond_the_allowance_is_flagged() -> None:
    truth = 2.0
    calls = [(0.30 + truth + 0.5, truth / 2) for _ in range(20)]  # half the time reported
    held = unaccounted(calls, QUIET, copy_ms=0.5)
    assert held.tampered
    assert "tampered" in held.message() and "clock" in held.message()


def test_a_minority_of_honest_reports_does_not_hide_a_forged_median() -> None:
    truth = 2.0
    calls = [(0.30 + truth, truth if i < 9 else truth / 2) for i in range(20)]
    assert unaccounted(calls, QUIET, copy_ms=0.0).tampered
