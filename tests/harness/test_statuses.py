"""Every verdict the harness can give, each provoked by a solution built to earn it, through the
real harness process (python -m evaluator.harness) under the supervisor, on the CPU."""

from __future__ import annotations

import json
from pathlib import Path

from evaluator.harness import status
from tests.conftest import SCALE_SHIFT_TRITON, evaluate_source

CORRECT = """
import torch

def run(x, bias):
    return x * 2.0 + bias[None, :]
"""

TRITON_CORRECT = SCALE_SHIFT_TRITON


def test_correct_torch_solution_passes_every_workload(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, CORRECT)
    assert set(evaluated.statuses.values()) == {status.PASSED}
    for workload in evaluated.workloads:
        result = evaluated.result(workload.uuid)
        assert result["latency_ms"] > 0
        assert result["reference_latency_ms"] > 0
        assert result["baseline_latency_ms"] > 0
        assert result["timing"]["clock"] == "host"
        assert result["correctness"]["rounds"] == 2
    assert evaluated.outcome.environment["triton_interpret"] is True


def test_correct_triton_solution_passes_in_the_interpreter(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, TRITON_CORRECT)
    assert set(evaluated.statuses.values()) == {status.PASSED}


def test_exception_is_runtime_error_with_the_line(tmp_path: Path) -> None:
    source = "def run(x, bias):\n    y = x * 2\n    raise ValueError('boom')\n"
    evaluated = evaluate_source(tmp_path, source)
    for uuid, verdict in evaluated.statuses.items():
        assert verdict == status.RUNTIME_ERROR
        assert "ValueError: boom" in evaluated.result(uuid)["message"]
        assert "solution.py:3" in evaluated.result(uuid)["message"]


def test_syntax_error_is_compile_error_for_every_workload(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, "def run(x, bias)\n    return x\n")
    assert set(evaluated.statuses.values()) == {status.COMPILE_ERROR}
    assert "SyntaxError" in evaluated.outcome.solution_error
    assert "line 1" in next(iter(evaluated.outcome.results.values()))["message"]


def test_module_without_run_is_compile_error(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, "def forward(x, bias):\n    return x\n")
    assert set(evaluated.statuses.values()) == {status.COMPILE_ERROR}
    assert "defines no function run" in evaluated.outcome.solution_error


def test_triton_compilation_failure_is_compile_error(tmp_path: Path) -> None:
    source = TRITON_CORRECT.replace("BLOCK=256", "BLOCK=100")  # tl.arange needs a power of 2
    evaluated = evaluate_source(tmp_path, source)
    assert set(evaluated.statuses.values()) == {status.COMPILE_ERROR}


def test_wrong_shape(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, CORRECT.replace("return x * 2.0 + bias[None, :]",
                                                          "return (x * 2.0 + bias)[:, :-1]"))
    assert set(evaluated.statuses.values()) == {status.INCORRECT_SHAPE}
    assert "has shape" in next(iter(evaluated.outcome.results.values()))["message"]


def test_wrong_number_of_outputs(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, "def run(x, bias):\n    return x * 2 + bias, x\n")
    assert set(evaluated.statuses.values()) == {status.INCORRECT_SHAPE}
    assert "2 outputs, expected 1" in next(iter(evaluated.outcome.results.values()))["message"]


def test_wrong_dtype(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, "def run(x, bias):\n    return (x * 2 + bias).double()\n")
    assert set(evaluated.statuses.values()) == {status.INCORRECT_DTYPE}
    assert "float64, expected float32" in next(iter(evaluated.outcome.results.values()))["message"]


def test_wrong_values(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, "def run(x, bias):\n    return x * 2.001 + bias\n")
    assert set(evaluated.statuses.values()) == {status.INCORRECT_NUMERICAL}


def test_one_failing_workload_does_not_stop_the_others(tmp_path: Path) -> None:
    source = """
def run(x, bias):
    if x.shape == (4, 256):
        raise RuntimeError("only this shape")
    return x * 2.0 + bias[None, :]
"""
    evaluated = evaluate_source(tmp_path, source)
    statuses = evaluated.statuses
    assert statuses.pop("smoke_rows4_cols256") == status.RUNTIME_ERROR
    assert set(statuses.values()) == {status.PASSED}


def test_hang_is_timeout_and_the_rest_still_run(tmp_path: Path) -> None:
    source = """
import time

def run(x, bias):
    if x.shape == (4, 256):
        while True:
            time.sleep(0.1)
    return x * 2.0 + bias[None, :]
"""
    evaluated = evaluate_source(tmp_path, source, workload_seconds=4)
    statuses = evaluated.statuses
    assert statuses.pop("smoke_rows4_cols256") == status.TIMEOUT
    assert "did not finish within 4 s" in evaluated.result("smoke_rows4_cols256")["message"]
    assert set(statuses.values()) == {status.PASSED}
    assert evaluated.outcome.attempts == 2


def test_hang_while_importing_is_timeout_for_every_workload(tmp_path: Path) -> None:
    source = "import time\n\nwhile True:\n    time.sleep(0.1)\n\ndef run(x, bias):\n    return x\n"
    evaluated = evaluate_source(tmp_path, source, startup_seconds=6)
    assert set(evaluated.statuses.values()) == {status.TIMEOUT}
    assert "did not load within 6 s" in next(iter(evaluated.outcome.results.values()))["message"]
    assert evaluated.outcome.attempts == 1


def test_crash_of_the_process_is_runtime_error_and_the_rest_still_run(tmp_path: Path) -> None:
    source = """
import os
import signal

def run(x, bias):
    if x.shape == (8, 128):
        os.kill(os.getpid(), signal.SIGSEGV)
    return x * 2.0 + bias[None, :]
"""
    evaluated = evaluate_source(tmp_path, source)
    statuses = evaluated.statuses
    assert statuses.pop("smoke_rows8_cols128") == status.RUNTIME_ERROR
    assert "signal 11" in evaluated.result("smoke_rows8_cols128")["message"]
    assert set(statuses.values()) == {status.PASSED}


def test_early_exit_does_not_pass(tmp_path: Path) -> None:
    source = "import sys\n\ndef run(x, bias):\n    sys.exit(0)\n"
    evaluated = evaluate_source(tmp_path, source)
    assert status.PASSED not in evaluated.statuses.values()


def test_tensor_subclass_output_is_reward_hack(tmp_path: Path) -> None:
    source = """
import torch

class Lazy(torch.Tensor):
    pass

def run(x, bias):
    return (x * 2.0 + bias[None, :]).as_subclass(Lazy)
"""
    evaluated = evaluate_source(tmp_path, source)
    assert set(evaluated.statuses.values()) == {status.REWARD_HACK}
    assert "subclass" in next(iter(evaluated.outcome.results.values()))["message"]


def test_wrong_only_when_timed_is_caught(tmp_path: Path) -> None:
    source = """
calls = 0

def run(x, bias):
    global calls
    calls += 1
    y = x * 2.0 + bias[None, :]
    return y if calls <= 3 else y * 0.5
"""
    evaluated = evaluate_source(tmp_path, source)
    assert status.PASSED not in evaluated.statuses.values()
    message = evaluated.result("smoke_rows4_cols256")["message"]
    assert "a timed call returned a wrong result" in message


def test_uninitialised_output_fails(tmp_path: Path) -> None:
    source = "import torch\n\ndef run(x, bias):\n    return torch.empty_like(x)\n"
    assert status.PASSED not in evaluate_source(tmp_path, source).statuses.values()


def test_destination_passing_style(tmp_path: Path) -> None:
    source = """
DESTINATION_PASSING_STYLE = True

def run(x, bias, y):
    y.copy_(x * 2.0 + bias[None, :])
"""
    assert set(evaluate_source(tmp_path, source).statuses.values()) == {status.PASSED}


def test_destination_passing_with_unwritten_cells_fails(tmp_path: Path) -> None:
    source = """
DESTINATION_PASSING_STYLE = True

def run(x, bias, y):
    y[1:].copy_(x[1:] * 2.0 + bias[None, :])
"""
    evaluated = evaluate_source(tmp_path, source)
    assert set(evaluated.statuses.values()) == {status.INCORRECT_NUMERICAL}
    assert "NaN/Inf" in next(iter(evaluated.outcome.results.values()))["message"]


def test_sol_execbench_solution_json(tmp_path: Path) -> None:
    solution = {
        "name": "scale_shift_torch",
        "definition": "scale_shift",
        "author": "tests",
        "spec": {"language": "python", "target_hardware": ["cpu"], "entry_point": "impl/main.py::forward",
                 "destination_passing_style": False},
        "sources": [{"path": "impl/main.py",
                     "content": "from impl.helpers import twice\n\ndef forward(x, bias):\n"
                                "    return twice(x) + bias[None, :]\n"},
                    {"path": "impl/helpers.py", "content": "def twice(x):\n    return x * 2.0\n"},
                    {"path": "impl/__init__.py", "content": ""}],
    }
    evaluated = evaluate_source(tmp_path, json.dumps(solution), filename="solution.json")
    assert set(evaluated.statuses.values()) == {status.PASSED}


def test_sol_execbench_solution_json_defaults_to_destination_passing(tmp_path: Path) -> None:
    solution = {
        "spec": {"language": "python", "entry_point": "main.py::run"},
        "sources": [{"path": "main.py", "content": "def run(x, bias, y):\n    y.copy_(x * 2.0 + bias)\n"}],
    }
    evaluated = evaluate_source(tmp_path, json.dumps(solution), filename="solution.json")
    assert set(evaluated.statuses.values()) == {status.PASSED}


def test_broken_reference_is_invalid_reference(tmp_path: Path) -> None:
    problem_dir = tmp_path / "problem"
    problem_dir.mkdir()
    from tests.conftest import SCALE_SHIFT

    for name in ("definition.json", "workload.jsonl", "smoke.jsonl"):
        (problem_dir / name).write_text((SCALE_SHIFT / name).read_text())
    (problem_dir / "reference.py").write_text("def run(x, bias):\n    return x.sum()\n")
    evaluated = evaluate_source(tmp_path, CORRECT, problem_dir=problem_dir)
    assert set(evaluated.statuses.values()) == {status.INVALID_REFERENCE}
