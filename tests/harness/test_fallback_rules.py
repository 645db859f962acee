"""Per-problem fallback rules: a forbidden function named in the sources is refused before the
solution runs; one reached by a detour (getattr) trips at run time; either way REWARD_HACK."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.harness import status
from evaluator.harness.fallback import named_in_source
from evaluator.harness.problem import ProblemError, load_problem
from tests.conftest import SCALE_SHIFT, evaluate_source


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
