"""The error figures a check reports beside its verdict (what traces carry as `correctness`): the
largest absolute and relative error, and which non-finite value made an output wrong."""

from __future__ import annotations

import sys

import pytest
import torch

from evaluator.harness import status
from evaluator.harness.checks import check_outputs, check_tensor
from evaluator.harness.problem import TensorSpec, Tolerance

SPEC = TensorSpec("y", ("n",), "float32")
TOL = Tolerance(atol=1e-3, rtol=1e-3, required_matched_ratio=0.99)


def test_relative_error_is_against_the_reference_floored_at_atol() -> None:
    ref = torch.tensor([100.0, 0.0, 2.0, -4.0])
    out = torch.tensor([100.05, 0.00001, 2.0, -4.0])
    result = check_tensor(out, ref, SPEC, TOL)
    assert result.status == status.PASSED
    # 0.05 / 100 = 5e-4; the element at 0 is 1e-5 off, divided by atol (1e-3): 1e-2, the largest
    assert result.max_rel_error == pytest.approx(1e-2, rel=1e-3)
    assert result.max_abs_error == pytest.approx(0.05, rel=1e-3)
    assert result.error_figures() is None  # only a numerically wrong output reports them


def test_wrong_output_reports_its_figures() -> None:
    ref = torch.ones(100)
    result = check_tensor(ref * 3.0, ref, SPEC, TOL)
    assert result.status == status.INCORRECT_NUMERICAL
    assert result.error_figures() == {"max_abs_error": 2.0, "max_rel_error": 2.0,
                                      "min_matched_ratio": 0.0, "has_nan": False, "has_inf": False}


@pytest.mark.parametrize(("value", "nan", "inf"), [(float("nan"), True, False), (float("inf"), False, True)])
def test_non_finite_output_names_nan_or_inf_and_zero_errors(value: float, nan: bool, inf: bool) -> None:
    ref = torch.linspace(-5, 5, 1000)
    out = ref.clone()
    out[3] = value
    figures = check_tensor(out, ref, SPEC, TOL).error_figures()
    assert figures is not None
    assert (figures["has_nan"], figures["has_inf"]) == (nan, inf)
    assert figures["max_abs_error"] == figures["max_rel_error"] == 0.0


def test_huge_relative_error_stays_a_finite_number() -> None:
    tight = Tolerance(atol=0.0, rtol=0.0, required_matched_ratio=0.5)
    ref = torch.zeros(4)
    out = torch.tensor([0.0, 0.0, 0.0, 3e38])
    result = check_tensor(out, ref, SPEC, tight)
    assert result.max_rel_error is not None and result.max_rel_error <= sys.float_info.max


def test_special_values_the_output_matches_add_no_error() -> None:
    ref = torch.tensor([1.0, float("nan"), float("inf"), -float("inf")])
    result = check_tensor(ref.clone(), ref, SPEC, TOL)
    assert result.status == status.PASSED
    assert result.max_rel_error == result.max_abs_error == 0.0


def test_several_outputs_report_the_largest_errors_of_any() -> None:
    specs = [TensorSpec("a", ("n",), "float32"), TensorSpec("b", ("n",), "float32")]
    ref_a, ref_b = torch.ones(1000), torch.full((1000,), 1000.0)
    out_a, out_b = ref_a.clone(), ref_b + 0.9  # b: every element 0.9 off, within rtol
    out_a[0] += 0.5  # a: one element far off, 99.9% matched (the worst ratio)
    result = check_outputs([out_a, out_b], [ref_a, ref_b], specs, TOL)
    assert result.status == status.PASSED
    assert result.max_abs_error == pytest.approx(0.9, rel=1e-3)  # b's
    assert result.max_rel_error == pytest.approx(0.5, rel=1e-3)  # a's
