"""The output checks one by one, each given an output built to fail (or just pass) it."""

from __future__ import annotations

import torch

from evaluator.harness import status
from evaluator.harness.checks import as_output_list, check_outputs, check_tensor
from evaluator.harness.problem import TensorSpec, Tolerance

SPEC = TensorSpec("y", ("n",), "float32")
TOL = Tolerance(atol=1e-3, rtol=1e-3, required_matched_ratio=0.99)


def reference(n: int = 1000) -> torch.Tensor:
    return torch.linspace(-5, 5, n)


def test_exact_output_passes() -> None:
    ref = reference()
    result = check_tensor(ref.clone(), ref, SPEC, TOL)
    assert result.status == status.PASSED
    assert result.matched_ratio == 1.0
    assert result.max_abs_error == 0.0


def test_matched_ratio_threshold() -> None:
    ref = reference(1000)
    out = ref.clone()
    out[:10] += 1.0  # 10 of 1000 wrong: exactly 99.0% matched, the required share
    assert check_tensor(out, ref, SPEC, TOL).status == status.PASSED
    out[10] += 1.0  # 11 wrong: 98.9%
    result = check_tensor(out, ref, SPEC, TOL)
    assert result.status == status.INCORRECT_NUMERICAL
    assert "98.90% of elements" in result.message
    assert result.max_abs_error == 1.0


def test_relative_tolerance_scales_with_the_reference() -> None:
    ref = torch.full((100,), 1000.0)
    out = ref + 0.9  # allowed: 1e-3 + 1e-3 * 1000 = 1.001
    assert check_tensor(out, ref, SPEC, TOL).status == status.PASSED
    assert check_tensor(ref + 1.01, ref, SPEC, TOL).status == status.INCORRECT_NUMERICAL


def test_nan_where_reference_is_finite_fails_even_within_ratio() -> None:
    ref = reference()
    out = ref.clone()
    out[0] = float("nan")  # one element: 99.9% would otherwise match
    result = check_tensor(out, ref, SPEC, TOL)
    assert result.status == status.INCORRECT_NUMERICAL
    assert "NaN/Inf in 1 of 1000" in result.message


def test_inf_where_reference_is_finite_fails() -> None:
    ref = reference()
    out = ref.clone()
    out[5] = float("inf")
    assert check_tensor(out, ref, SPEC, TOL).status == status.INCORRECT_NUMERICAL


def test_nan_in_the_same_places_as_the_reference_passes() -> None:
    ref = reference()
    ref[3] = float("nan")
    ref[4] = float("-inf")
    assert check_tensor(ref.clone(), ref, SPEC, TOL).status == status.PASSED


def test_all_zero_output_fails_even_when_the_reference_is_tiny() -> None:
    ref = torch.full((100,), 5e-3)  # zeros are within atol=1e-2 of it, but all-zero is refused
    result = check_tensor(torch.zeros(100), ref, SPEC, Tolerance(atol=1e-2, rtol=0.0))
    assert result.status == status.INCORRECT_NUMERICAL
    assert "all zeros" in result.message


def test_all_zero_output_passes_for_an_all_zero_reference() -> None:
    assert check_tensor(torch.zeros(10), torch.zeros(10), SPEC, TOL).status == status.PASSED


def test_shape_dtype_type_and_device() -> None:
    ref = reference(10)
    assert check_tensor(ref[:9].clone(), ref, SPEC, TOL).status == status.INCORRECT_SHAPE
    assert check_tensor(ref.double(), ref, SPEC, TOL).status == status.INCORRECT_DTYPE
    assert check_tensor(ref.numpy(), ref, SPEC, TOL).status == status.INCORRECT_DTYPE
    assert check_tensor(ref.tolist(), ref, SPEC, TOL).status == status.INCORRECT_DTYPE
    assert check_tensor(torch.nn.Parameter(ref.clone()), ref, SPEC, TOL).status == status.REWARD_HACK
    assert check_tensor(torch.empty(10, device="meta"), ref, SPEC, TOL).status == status.RUNTIME_ERROR


def test_low_precision_outputs_compare_in_float32() -> None:
    spec = TensorSpec("y", ("n",), "bfloat16")
    ref = reference().to(torch.bfloat16)
    assert check_tensor(ref.clone(), ref, spec, TOL).status == status.PASSED
    fp8 = TensorSpec("q", ("n",), "float8_e4m3fn")
    q = reference().to(torch.float8_e4m3fn)
    assert check_tensor(q.clone(), q, fp8, TOL).status == status.PASSED


def test_multiple_outputs_are_checked_in_order() -> None:
    specs = [TensorSpec("y", ("n",), "float32"), TensorSpec("r", ("n",), "float32")]
    y, r = reference(), reference() * 3
    assert check_outputs([y.clone(), r.clone()], [y, r], specs, TOL).status == status.PASSED
    swapped = check_outputs([r.clone(), y.clone()], [y, r], specs, TOL)
    assert swapped.status == status.INCORRECT_NUMERICAL
    assert "'y'" in swapped.message


def test_output_list_normalisation() -> None:
    t = reference(4)
    assert as_output_list(t, 1) == [t]
    assert as_output_list((t,), 1) == [t]
    assert as_output_list([t, t], 2) == [t, t]
    assert as_output_list(t, 2).status == status.INCORRECT_SHAPE
    assert as_output_list((t, t, t), 2).status == status.INCORRECT_SHAPE
    assert as_output_list(None, 1) == [None]
