"""Class 11, numerics abuse: float16 arithmetic, skipping a tenth of the bias, or summing 99% of a
softmax row must fail on tolerances set per problem. The premise is checked first: the fixture's
tolerance does reject what the cheats do (a loose default of 1e-2 would accept float16)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from evaluator.harness.problem import load_problem
from tests.anticheat.conftest import assert_cheated_workloads_never_score, assert_never_scores, evaluate_cheat
from tests.conftest import ROOT, SCALE_SHIFT


def test_the_fixture_tolerance_rejects_float16_arithmetic() -> None:
    tolerance = load_problem(SCALE_SHIFT).definition.tolerance
    x, bias = torch.randn(64, 256, generator=torch.Generator().manual_seed(0)), torch.ones(256)
    exact = x * 2.0 + bias
    error = ((x.half() * 2.0 + bias.half()).float() - exact).abs()
    within = (error <= tolerance.atol + tolerance.rtol * exact.abs()).float().mean().item()
    assert within < tolerance.required_matched_ratio


@pytest.mark.parametrize("name", ["half_precision", "skip_columns"])
def test_dropped_precision_or_skipped_work_never_scores(tmp_path: Path, name: str) -> None:
    assert_never_scores(evaluate_cheat(tmp_path, name))


def test_a_softmax_that_skips_part_of_its_sum_never_scores(tmp_path: Path) -> None:
    run = evaluate_cheat(tmp_path, "softmax_partial_sum", problem_dir=ROOT / "problems" / "softmax")
    assert_cheated_workloads_never_score(run, must_have_cheated=True)
