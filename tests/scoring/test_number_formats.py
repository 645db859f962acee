"""Numbers as people read them (evaluator/scoring/numbers.py): three significant digits, trailing
zeros kept, times in the unit that fits, rounding that never leaves a fourth digit."""

from __future__ import annotations

import math

import pytest

from evaluator.scoring.numbers import DASH, duration, rate, share, significant, with_interval


@pytest.mark.parametrize(("value", "text"), [
    (0.8, "0.800"), (0.00395, "0.00395"), (1.0, "1.00"), (0.812345, "0.812"), (123.456, "123"),
    (1234.5, "1230"), (0.9996, "1.00"), (99.96, "100"), (-0.05, "-0.0500"), (0, "0"),
    (1.234e-5, "1.23e-05"), (12345678, "1.23e+07"),
])
def test_three_significant_digits(value: float, text: str) -> None:
    assert significant(value) == text


@pytest.mark.parametrize(("ms", "text"), [
    (0.000412, "412 ns"), (0.00357, "3.57 us"), (12.34, "12.3 ms"), (1500, "1.50 s"),
    (0.99996, "1.00 ms"), (0.0009999, "1.00 us"), (0.0001, "100 ns"), (0, "0 ms"),
])
def test_times_in_the_unit_that_fits(ms: float, text: str) -> None:
    assert duration(ms) == text


@pytest.mark.parametrize(("value", "text"), [
    (989e12, "989 TFLOP/s"), (4.8e12, "4.80 TFLOP/s"), (999.96e9, "1.00 TFLOP/s"), (1.2e7, "12.0 MFLOP/s"),
    (2.5e18, "2500 PFLOP/s"), (0.5, "0.500 FLOP/s"), (0, "0 FLOP/s"),
])
def test_rates_with_the_prefix_that_fits(value: float, text: str) -> None:
    assert rate(value, "FLOP/s") == text


def test_nothing_to_show_is_a_dash() -> None:
    for value in (None, math.nan, math.inf, True, "0.5"):
        assert significant(value) == duration(value) == share(value) == rate(value, "B/s") == DASH
    assert share(0.4) == "40%"


def test_a_value_with_its_interval() -> None:
    assert with_interval(0.81234, 0.0043) == "0.812 ± 0.004"
    assert with_interval(0.5, 0.0) == with_interval(0.5, None) == "0.500"
    assert with_interval(None, 0.1) == DASH
