"""On our own suite, the FLOPs counted from each reference against the hand-written `sol.flops`,
workload by workload (visible and smoke): equal where the counter sees all of the work, and
otherwise different in the one way each problem's entry below says."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from evaluator.harness import expr
from evaluator.harness.flops import count_reference_flops
from evaluator.harness.problem import load_problem
from evaluator.scoring.hardware import HARDWARE
from evaluator.scoring.score import sol_bound_ms
from tests.conftest import ROOT

PROBLEM_DIRS = sorted(p.parent for p in (ROOT / "problems").glob("*/definition.json"))

# Matrix products only (the scales, bias and GELU epilogues are elementwise: in neither count).
EQUAL = {"gemm_bf16", "fp8_scaled_gemm", "linear_gelu", "attention_decode"}
# Elementwise work and reductions, which the counter does not count: it gives 0, and the
# hand-written expression counts the arithmetic (irrelevant to the bound: these are memory-bound).
ELEMENTWISE_ONLY = {"rmsnorm", "fused_add_rmsnorm", "layernorm", "softmax", "silu_and_mul", "rope",
                    "per_token_fp8_quant"}


def causal_attention(axes: Mapping[str, int], counted: float, written: float) -> bool:
    """The counter counts the full seq_len^2 square of both products, 4 * b * h * s^2 * d; the
    expression counts the causal triangle, key j <= query i: 2 * b * h * s * (s + 1) * d."""
    b, h, s, d = (axes[a] for a in ("batch", "num_qo_heads", "seq_len", "head_dim"))
    return counted == 4 * b * h * s * s * d and written == counted * (s + 1) / (2 * s)


DIFFERENT: dict[str, Callable[[Mapping[str, int], float, float], bool]] = {
    "attention_prefill": causal_attention,
    **{name: (lambda axes, counted, written: counted == 0 and written > 0) for name in ELEMENTWISE_ONLY},
}


def test_every_problem_of_the_suite_is_classified() -> None:
    assert {p.name for p in PROBLEM_DIRS} == EQUAL | set(DIFFERENT)
    assert not EQUAL & set(DIFFERENT)


@pytest.mark.parametrize("problem_dir", PROBLEM_DIRS, ids=lambda p: p.name)
def test_counted_flops_against_the_hand_written_ones(problem_dir: Path) -> None:
    problem = load_problem(problem_dir)
    definition = problem.definition
    assert definition.sol is not None and definition.sol.flops
    for workload in problem.workloads + problem.smoke_workloads:
        axes = definition.resolve_axes(workload.axes)
        count = count_reference_flops(definition, workload.axes, workload.inputs)
        written = float(expr.evaluate(definition.sol.flops, axes))
        assert count.flops is not None, (workload.uuid, count.reason)
        if definition.name in EQUAL:
            assert count.flops == written, workload.uuid
        else:
            differs_as_said = DIFFERENT[definition.name](axes, count.flops, written)
            assert differs_as_said, (workload.uuid, count.flops, written)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE_ONLY))
def test_uncounted_elementwise_flops_leave_the_bounds_as_they_are(name: str) -> None:
    """Their bound is the memory one on every hardware of the table, written FLOPs or none."""
    problem = load_problem(ROOT / "problems" / name)
    definition = problem.definition
    assert definition.sol is not None and definition.sol.flops and definition.sol.bytes
    for workload in problem.workloads + problem.smoke_workloads:
        axes = definition.resolve_axes(workload.axes)
        written = float(expr.evaluate(definition.sol.flops, axes))
        nbytes = float(expr.evaluate(definition.sol.bytes, axes))
        for hardware in HARDWARE.values():
            with_flops = sol_bound_ms(written, nbytes, hardware, definition.sol.dtype)
            assert sol_bound_ms(0.0, nbytes, hardware, definition.sol.dtype) == with_flops, (
                workload.uuid, hardware.slug)
