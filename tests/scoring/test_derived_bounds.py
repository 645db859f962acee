"""The work behind a SOL bound: the definition's sol.flops / sol.bytes each where given, else FLOPs
counted from the reference and bytes of the inputs and outputs (evaluator/scoring/sol.py), and the
report rows saying which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.harness import status
from evaluator.harness.flops import FlopCount
from evaluator.harness.problem import Definition, definition_from_json, load_problem
from evaluator.scoring import sol
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import scored_workload
from evaluator.scoring.score import sol_bound_ms
from tests.conftest import FIXTURES

TINY_MATMUL = FIXTURES / "problems" / "tiny_matmul"
H200 = get_hardware("h200")


def tiny_matmul(**sol_spec: str) -> Definition:
    """tiny_matmul (float32 c = a @ b) with the given `sol` expressions only."""
    data = json.loads((TINY_MATMUL / "definition.json").read_text())
    data["sol"] = sol_spec
    if not sol_spec:
        del data["sol"]
    return definition_from_json(data, base_dir=Path(TINY_MATMUL))


AXES = {"m": 512, "k": 512, "n": 256}
GEMM_FLOPS = 2.0 * 512 * 512 * 256
TENSOR_BYTES = 4.0 * (512 * 512 + 512 * 256 + 512 * 256)


def test_the_definitions_expressions_win_over_a_count() -> None:
    work = sol.workload_work(tiny_matmul(flops="7 * m", bytes="3 * n"), AXES, FlopCount(1e12))
    assert (work.flops, work.bytes) == (7 * 512, 3 * 256)
    assert (work.flops_from, work.bytes_from) == (sol.FROM_DEFINITION, sol.FROM_DEFINITION)


def test_each_missing_expression_is_derived_on_its_own() -> None:
    only_bytes = sol.workload_work(tiny_matmul(bytes="3 * n"), AXES, FlopCount(GEMM_FLOPS))
    assert (only_bytes.flops, only_bytes.flops_from) == (GEMM_FLOPS, sol.FROM_REFERENCE)
    assert (only_bytes.bytes, only_bytes.bytes_from) == (3 * 256, sol.FROM_DEFINITION)
    only_flops = sol.workload_work(tiny_matmul(flops="7 * m"), AXES, FlopCount(GEMM_FLOPS))
    assert (only_flops.flops, only_flops.flops_from) == (7 * 512, sol.FROM_DEFINITION)
    assert (only_flops.bytes, only_flops.bytes_from) == (TENSOR_BYTES, sol.FROM_TENSORS)


def test_a_failed_count_leaves_the_memory_bound_and_its_reason() -> None:
    work = sol.workload_work(tiny_matmul(), AXES, FlopCount(None, "the reference did not run"))
    assert (work.flops, work.flops_from, work.note) == (0.0, sol.NOT_COUNTED, "the reference did not run")
    assert sol.workload_work(tiny_matmul(), AXES).note == "not counted"


def test_a_derived_gemm_bound_is_compute_bound() -> None:
    # 8192^3 float32: 2 * 8192^3 / 67e12 = 16.41 ms of compute against 3 * 4 * 8192^2 / 4.8e12
    # = 0.168 ms of memory; without the count the bound was the memory one, 98x lower
    big = {"m": 8192, "k": 8192, "n": 8192}
    derived = sol.workload_work(tiny_matmul(), big, FlopCount(2.0 * 8192**3))
    memory_only = sol.workload_work(tiny_matmul(), big, FlopCount(None, "failed"))
    assert sol_bound_ms(derived.flops, derived.bytes, H200, derived.dtype) == pytest.approx(16.411, rel=1e-4)
    assert sol_bound_ms(memory_only.flops, memory_only.bytes, H200, memory_only.dtype) == pytest.approx(
        0.16777, rel=1e-4)


def test_the_report_row_says_where_the_work_came_from() -> None:
    problem = load_problem(TINY_MATMUL)
    workload = problem.workloads[0]
    raw = {"status": status.PASSED, "latency_ms": 2.0, "baseline_latency_ms": 3.0,
           "reference_latency_ms": 3.0}
    stored = scored_workload(tiny_matmul(), workload, raw, H200, counted=FlopCount(1e9))
    assert (stored["flops"], stored["flops_from"], stored["bytes_from"]) == (1e9, "reference", "tensors")
    # the local CLI has no stored count: the reference is counted on the spot
    counted_here = scored_workload(tiny_matmul(), workload, raw, H200)
    m, k, n = (workload.axes[a] for a in ("m", "k", "n"))
    assert (counted_here["flops"], counted_here["flops_from"]) == (2.0 * m * k * n, "reference")
    given = scored_workload(problem.definition, workload, raw, H200)
    assert (given["flops_from"], given["bytes_from"]) == ("definition", "definition")
