"""The starter suite holds what the platform promises its users."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from evaluator.harness.hidden import draw_hidden
from evaluator.harness.problem import Problem, load_problem
from evaluator.scoring.sol import workload_work
from tests.conftest import ROOT, TEST_SECRET

PROBLEM_DIRS = sorted(p.parent for p in (ROOT / "problems").glob("*/definition.json"))
FIXED = {
    "softmax": ({"x": "float32"}, {"y": "float32"}),
    "rmsnorm": ({"x": "bfloat16", "weight": "bfloat16", "eps": "float32"}, {"y": "bfloat16"}),
    "gemm_bf16": ({"a": "bfloat16", "b": "bfloat16"}, {"c": "bfloat16"}),
    "fused_add_rmsnorm": (
        {"x": "bfloat16", "residual": "bfloat16", "weight": "bfloat16", "eps": "float32"},
        {"y": "bfloat16", "residual_out": "bfloat16"},
    ),
}


@pytest.fixture(scope="module")
def suite() -> dict[str, Problem]:
    return {p.name: load_problem(p) for p in PROBLEM_DIRS}


def test_suite_size_categories_and_task_types(suite: dict[str, Problem]) -> None:
    assert len(suite) >= 12
    assert {"L1", "L2", "Quant"} <= {p.definition.category for p in suite.values()}
    assert {"from_reference", "optimize_triton"} <= {p.definition.task_type for p in suite.values()}


def test_fixed_problems_have_their_signatures(suite: dict[str, Problem]) -> None:
    for name, (inputs, outputs) in FIXED.items():
        definition = suite[name].definition
        assert list(definition.inputs) == list(inputs), name
        assert list(definition.outputs) == list(outputs), name
        for tensor, dtype in inputs.items():
            spec = definition.inputs[tensor]
            if tensor == "eps":
                assert spec.is_scalar
            else:
                assert spec.dtype == dtype, (name, tensor)
        for tensor, dtype in outputs.items():
            assert definition.outputs[tensor].dtype == dtype, (name, tensor)


@pytest.mark.parametrize("problem_dir", PROBLEM_DIRS, ids=lambda p: p.name)
def test_each_problem_is_complete(problem_dir: Path) -> None:
    problem = load_problem(problem_dir)
    definition = problem.definition
    assert len(problem.workloads) >= 6
    assert problem.smoke_workloads
    assert definition.sol is not None and definition.sol.flops and definition.sol.bytes
    assert definition.description
    for axis in definition.var_axes:
        assert axis.domain is not None and axis.smoke_domain is not None, axis.name
    if definition.task_type != "from_reference":
        assert definition.starter is not None
    for workload in problem.workloads + problem.smoke_workloads:
        work = workload_work(definition, workload.axes)
        assert work.bytes > 0
    assert draw_hidden(problem, TEST_SECRET), "no hidden workloads can be drawn"
    assert draw_hidden(problem, TEST_SECRET, smoke=True)
    manifest = json.loads((problem_dir / "solutions" / "manifest.json").read_text())
    files = [entry["file"] for entry in manifest["solutions"]]
    assert "triton.py" in files
    for name in files:
        assert (problem_dir / "solutions" / name).is_file()


def test_at_least_three_problems_ship_a_hard_coded_solution() -> None:
    with_hardcoded = [p.name for p in PROBLEM_DIRS
                      if any(e["expect"] == "fail_hidden" for e in
                             json.loads((p / "solutions" / "manifest.json").read_text())["solutions"])]
    assert len(with_hardcoded) >= 3, with_hardcoded


def test_visible_workloads_are_realistic_gpu_sizes(suite: dict[str, Problem]) -> None:
    for problem in suite.values():
        largest = max(workload_work(problem.definition, w.axes).bytes for w in problem.workloads)
        assert largest >= 8 << 20, f"{problem.name}: largest visible workload moves only {largest} bytes"


def test_references_take_their_inputs_in_definition_order(suite: dict[str, Problem]) -> None:
    for problem in suite.values():
        namespace: dict = {}
        exec(compile(problem.definition.reference, f"{problem.name}/reference.py", "exec"), namespace)
        params = list(inspect.signature(namespace["run"]).parameters)
        assert params == list(problem.definition.inputs), problem.name
