"""Per-problem fallback rules: a forbidden function named in the sources is refused before the
solution runs; one reached by a detour (getattr) trips at run time; either way REWARD_HACK. The
operators behind the forbidden names (and their aliases) are refused at PyTorch's dispatcher."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.harness import status
from evaluator.harness.fallback import (
    FAMILIES,
    PYTHON_NAMES,
    _overloads,
    computing_keys,
    named_in_source,
    operators_forbidden,
    resolve_owner,
)
from evaluator.harness.problem import ProblemError, load_problem
from tests.conftest import ROOT, SCALE_SHIFT, evaluate_source


def forbidding(tmp_path: Path, forbidden: list[str]) -> Path:
    problem = tmp_path / "problem_copy"
    shutil.copytree(SCALE_SHIFT, problem)
    definition = json.loads((problem / "definition.json").read_text())
    definition["forbidden"] = forbidden
    (problem / "definition.json").write_text(json.dumps(definition))
    return problem


@pytest.mark.parametrize("source", [
    "import torch\ny = torch.add(1, 2)\n",
    "import torch as t\ny = t.add(1, 2)\n",
    "from torch import add\n",
    "from torch import add as plus\n",
])
def test_forbidden_names_are_found_through_aliases(tmp_path: Path, source: str) -> None:
    path = tmp_path / "s.py"
    path.write_text(source)
    assert named_in_source([path], ["torch.add"]) == "torch.add"


def test_other_names_are_not_flagged(tmp_path: Path) -> None:
    path = tmp_path / "s.py"
    path.write_text("import torch\ny = torch.addmm\nz = torch.mul(2, 3)  # torch.add in a comment\n")
    assert named_in_source([path], ["torch.add"]) is None


def test_a_malformed_rule_is_a_problem_error(tmp_path: Path) -> None:
    with pytest.raises(ProblemError, match="forbidden"):
        load_problem(forbidding(tmp_path, ["add"]))


def test_a_solution_naming_a_forbidden_function_is_refused(tmp_path: Path) -> None:
    source = "import torch\n\ndef run(x, bias):\n    return torch.add(x * 2.0, bias[None, :])\n"
    evaluated = evaluate_source(tmp_path, source, problem_dir=forbidding(tmp_path, ["torch.add"]))
    results = list(evaluated.outcome.results.values())
    assert {r["status"] for r in results} == {status.REWARD_HACK}
    assert "torch.add" in results[0]["message"]


def test_a_detour_to_a_forbidden_function_trips_at_run_time(tmp_path: Path) -> None:
    source = ("import torch\n\nFN = getattr(torch, 'a' + 'dd')\n\n"
              "def run(x, bias):\n    return FN(x * 2.0, bias[None, :])\n")
    evaluated = evaluate_source(tmp_path, source, problem_dir=forbidding(tmp_path, ["torch.add"]))
    results = list(evaluated.outcome.results.values())
    assert {r["status"] for r in results} == {status.REWARD_HACK}
    assert "called torch.add" in results[0]["message"]


def test_the_same_solution_passes_where_nothing_is_forbidden(tmp_path: Path) -> None:
    source = "import torch\n\ndef run(x, bias):\n    return torch.add(x * 2.0, bias[None, :])\n"
    evaluated = evaluate_source(tmp_path, source, problem_dir=forbidding(tmp_path, []))
    assert set(evaluated.statuses.values()) == {status.PASSED}


# The operations behind the names (class 23): which ATen operators each rule forbids.

def ops(*rules: str) -> set[str]:
    return set(operators_forbidden(rules))


def test_a_forbidden_matrix_product_forbids_its_aliases_and_every_overload() -> None:
    found = ops("torch.matmul")
    assert {"aten::mm", "aten::mm.out", "aten::bmm", "aten::bmm.out", "aten::addmm", "aten::baddbmm",
            "aten::matmul", "aten::linear", "aten::einsum", "aten::tensordot", "aten::mv", "aten::dot",
            "aten::linalg_multi_dot"} <= found
    assert not found & {"aten::softmax.int", "aten::_softmax", "aten::mul.Tensor", "aten::sum"}


@pytest.mark.parametrize(("rule", "expected", "not_expected"), [
    ("torch.softmax", {"aten::softmax.int", "aten::_softmax", "aten::_safe_softmax", "aten::_masked_softmax",
                       "aten::_sparse_softmax"}, {"aten::_log_softmax", "aten::mm"}),
    ("torch.nn.functional.log_softmax", {"aten::_log_softmax", "aten::log_softmax.int"}, {"aten::_softmax"}),
    ("torch.nn.functional.rms_norm", {"aten::rms_norm", "aten::_fused_rms_norm"}, {"aten::layer_norm"}),
    ("torch.nn.functional.layer_norm", {"aten::layer_norm", "aten::native_layer_norm"}, {"aten::rms_norm"}),
    ("torch.nn.functional.scaled_dot_product_attention",
     {"aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention_for_cpu",
      "aten::_scaled_dot_product_attention_math"}, {"aten::_softmax", "aten::bmm"}),
    ("torch._scaled_mm", {"aten::_scaled_mm"}, {"aten::mm", "aten::matmul"}),
    ("torch.nn.functional.conv1d", {"aten::convolution", "aten::conv1d"}, {"aten::mm"}),
])
def test_each_family_forbids_its_own_operators_only(rule: str, expected: set[str],
                                                    not_expected: set[str]) -> None:
    found = ops(rule)
    assert expected <= found
    assert not found & not_expected


def test_an_operator_rule_forbids_that_operator_or_that_overload() -> None:
    assert ops("aten::mm") == {o for o in ops("torch.mm") if o == "aten::mm" or o.startswith("aten::mm.")}
    assert ops("aten::mm.out") == {"aten::mm.out"}
    assert ops("aten::no_such_operator") == set()


def test_a_name_outside_the_table_reaches_no_operator() -> None:
    """Only the wrapper and the source scan forbid it: the harness may use such a function itself."""
    assert ops("torch.add") == set()


def test_a_violation_names_the_first_rule_that_forbids_the_operator() -> None:
    found = operators_forbidden(["torch.mm", "torch.matmul", "aten::bmm"])
    assert found["aten::bmm"] == ("torch.mm", "matrix product")
    assert operators_forbidden(["aten::bmm", "torch.mm"])["aten::bmm"] == ("aten::bmm", None)


def test_every_bundled_problem_forbids_operators_at_the_dispatcher() -> None:
    for definition in sorted((ROOT / "problems").glob("*/definition.json")):
        forbidden = json.loads(definition.read_text()).get("forbidden") or []
        for rule in forbidden:
            assert ops(rule), f"{definition.parent.name}: {rule} reaches no operator"


def test_the_table_matches_this_pytorch() -> None:
    """Every Python name of the table exists, and every family's main operator does."""
    assert [name for name in PYTHON_NAMES if resolve_owner(name)[0] is None] == []
    assert all(FAMILIES[family][0] in _overloads() for family in FAMILIES)


def test_only_kernels_that_compute_are_replaced() -> None:
    keys = computing_keys("aten::mm")
    assert "CPU" in keys
    assert not set(keys) & {"Meta", "AutogradCPU", "Autograd", "Tracer", "AutocastCPU", "FuncTorchBatched"}
    assert "CompositeImplicitAutograd" in computing_keys("aten::matmul")
    assert computing_keys("aten::no_such_operator") == ()


@pytest.mark.parametrize("rule", ["aten::mm", "aten::mm.out", "quantized::linear"])
def test_an_operator_is_a_valid_rule(tmp_path: Path, rule: str) -> None:
    assert load_problem(forbidding(tmp_path, [rule])).definition.forbidden == (rule,)


@pytest.mark.parametrize("rule", ["aten::", "aten::mm.", "aten::mm.out.x", "aten:mm", "::mm"])
def test_a_malformed_operator_rule_is_a_problem_error(tmp_path: Path, rule: str) -> None:
    with pytest.raises(ProblemError, match="forbidden"):
        load_problem(forbidding(tmp_path, [rule]))


@pytest.mark.parametrize("source", [
    "import torch\ny = torch.ops.aten.mm.default\n",
    "from torch.ops import aten\ny = aten.mm(1, 2)\n",
])
def test_an_operator_rule_is_found_in_the_sources(tmp_path: Path, source: str) -> None:
    path = tmp_path / "s.py"
    path.write_text(source)
    assert named_in_source([path], ["aten::mm"]) == "aten::mm"


# Installed in a process of its own: the kernels stay for the life of the process.
GUARD_SCRIPT = r"""
import json, threading, time, torch, torch.library
from pathlib import Path
from evaluator.harness import fallback

out = {}
a, b = torch.randn(3, 4), torch.randn(4, 5)
tw = fallback.Tripwires(Path("."), ["torch.matmul"])
out["clean"] = [tw.take(), tw.verify()]

def attempt(call):
    try:
        call()
        return "ran"
    except fallback.ForbiddenOperation:
        return tw.take()

out["outside"] = attempt(lambda: torch.ops.aten.mm.default(a, b))
tw.active = True
out["inside"] = attempt(lambda: torch.einsum("ik,kj->ij", a, b))
caught = []
worker = threading.Thread(target=lambda: caught.append(attempt(lambda: torch.bmm(a[None], b[None]))))
worker.start(); worker.join()
out["thread"] = caught[0]
tw.active = False
out["allowed"] = [attempt(lambda: (a[:, :, None] * b[None]).sum(1)), attempt(lambda: torch.softmax(a, -1))]
try:
    torch.ops.aten.mm.default(a, b)
except RuntimeError:
    pass
out["caught_then_hidden"] = tw.take()

lib = torch.library.Library("aten", "IMPL")
lib.impl("bmm", lambda x, y: (x[..., None] * y[:, None]).sum(2), "CPU")
out["overridden"] = [tw.verify(), attempt(lambda: torch.bmm(a[None], b[None]))]
start = time.perf_counter()
for _ in range(20):
    tw.verify()
out["verify_ms"] = (time.perf_counter() - start) / 20 * 1e3

kept = []
fallback._keep_alive = kept.append
second = fallback.Tripwires(Path("."), ["torch.softmax"])
out["second_clean"] = [second.take(), second.verify()]
for handle in kept:
    handle.reset()
out["removed"] = [second.take(), second.verify(), attempt(lambda: torch.softmax(a, -1))]
print(json.dumps(out))
"""


def test_the_dispatcher_guard_in_a_process_of_its_own() -> None:
    done = subprocess.run([sys.executable, "-c", GUARD_SCRIPT], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["clean"] == [None, None]
    for key, op, where in [("outside", "aten::mm", "outside run()"), ("inside", "aten::einsum", ""),
                           ("thread", "aten::bmm", "from a thread of its own")]:
        assert f"ran {op} (the matrix product, which this problem forbids as torch.matmul)" in out[key]
        assert where in out[key]
    assert out["allowed"] == ["ran", "ran"]
    assert "aten::mm" in out["caught_then_hidden"]
    verdict, call = out["overridden"]
    assert "aten::bmm" in verdict and "removed or replaced" in verdict and call == "ran"
    assert out["verify_ms"] < 50
    assert out["second_clean"] == [None, None]
    taken, verified, call = out["removed"]
    assert "removed or replaced" in taken and "removed or replaced" in verified and call == "ran"
