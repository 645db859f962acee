"""Holding reported times to the reporter's own clocks (evaluator/harness/calibration.py): on a GPU
each call's bound comes from the reporter's own stream (gpu_bracket.py), the harness's overhead
from its null problem, and a report that falls short of the bound by more than the allowance is
charged back to the bound; on the CPU the fixed cost taken off the reporter's clock is the least
one seen on the null problem."""

from __future__ import annotations

import pytest

from evaluator.harness.calibration import (
    ALLOWED_MS,
    ALLOWED_SHARE,
    Calibration,
    GpuCall,
    allowance_ms,
    beyond_bracket,
    hold,
    scored_ms,
)
from evaluator.harness.gpu_bracket import CallBracket

OVERHEAD = 0.012  # ms: the two contexts taking turns, the go and done words
PRELUDE = 0.030  # ms: the inputs copied and the L2 flushed, on an idle GPU


def call(span: float | None, truth: float | None = None, prelude: float = PRELUDE, freeze: float = 0.002,
         overhead: float = OVERHEAD) -> GpuCall:
    """A call whose GPU work really took `truth` ms (the span when not given) and whose process
    reported `span`."""
    truth = span if truth is None else truth
    bracket = CallBracket(prelude, (truth or 0.0) + overhead + freeze, freeze)
    return GpuCall(span, bracket, bracket.bound_ms(PRELUDE))


CALIBRATED = Calibration.from_gpu_calls([call(0.004, overhead=OVERHEAD + 0.0001 * (i % 5))
                                         for i in range(40)])


def test_the_overhead_is_how_far_the_null_calls_bound_exceeded_their_span() -> None:
    assert CALIBRATED.overhead_ms == pytest.approx(OVERHEAD + 0.0002)
    assert CALIBRATED.spread_ms == pytest.approx(0.0002, abs=0.0001)
    assert CALIBRATED.calls == 40


def test_the_bound_leaves_out_the_prelude_and_the_hand_over_but_not_a_longer_prelude() -> None:
    bracket = CallBracket(prelude_ms=PRELUDE, bracket_ms=1.0, freeze_ms=0.05)
    assert bracket.bound_ms(PRELUDE) == pytest.approx(0.95)
    stretched = CallBracket(prelude_ms=PRELUDE + 1.5, bracket_ms=1.0, freeze_ms=0.05)  # another context ran
    assert stretched.bound_ms(PRELUDE) == pytest.approx(2.45)


def test_the_allowance_is_five_microseconds_or_a_tenth_of_the_report() -> None:
    assert allowance_ms(0.01) == ALLOWED_MS == 0.005
    assert allowance_ms(2.0) == pytest.approx(ALLOWED_SHARE * 2.0)
    assert allowance_ms(None) == ALLOWED_MS


@pytest.mark.parametrize("span", [0.002, 0.05, 3.0])
def test_an_honest_report_is_the_score(span: float) -> None:
    assert scored_ms(call(span), CALIBRATED) == span


@pytest.mark.parametrize("truth", [0.004, 0.05, 0.5, 3.0])
def test_a_lowered_report_gains_at_most_the_allowance(truth: float) -> None:
    for share in (0.0, 0.2, 0.5, 0.9):
        forged = call(truth * share, truth=truth)
        scored = scored_ms(forged, CALIBRATED)
        assert scored >= truth - allowance_ms(forged.reported_ms) - 0.0003, (truth, share, scored)
        assert scored <= truth + 0.0003


def test_a_call_that_reported_no_gpu_activity_scores_its_bound() -> None:
    assert scored_ms(call(None, truth=0.2), CALIBRATED) == pytest.approx(0.2, abs=0.0003)


def test_a_report_longer_than_the_bracket_is_a_forgery() -> None:
    assert not beyond_bracket(call(1.0))
    inflated = GpuCall(1.5, CallBracket(PRELUDE, 1.0 + OVERHEAD, 0.002), 1.0)
    assert beyond_bracket(inflated)


def test_the_workload_figures_say_what_was_charged() -> None:
    calls = [call(0.1) for _ in range(6)] + [call(0.02, truth=0.1) for _ in range(5)]
    held = hold(calls, CALIBRATED, PRELUDE)
    assert held.charged_calls == 5
    assert held.reported_ms == pytest.approx(0.1)
    assert held.charged_ms == pytest.approx(0.0, abs=1e-9)  # the median call was honest
    doc = held.to_json()
    assert doc["clock"] == "gpu_bracket" and doc["calls"] == 11 and doc["prelude_ref_ms"] == PRELUDE


def test_on_the_cpu_the_least_fixed_cost_comes_off_the_clock() -> None:
    calibration = Calibration.from_cpu_calls([0.9, 1.1, 1.0, 5.0, -0.1])
    assert calibration.least_ms == 0.0  # a negative difference (clock noise) counts as none
    assert Calibration.from_cpu_calls([0.9, 1.1, 1.0]).least_ms == pytest.approx(0.9)
