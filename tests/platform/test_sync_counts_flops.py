"""sync_problems counts the reference's FLOPs of every workload of a problem without sol.flops,
once, and stores them: the pages and the scoring read the stored count, never the reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.harness.problem import load_problem
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import build_report
from evaluator.scoring.score import sol_bound_ms
from evaluator.scoring.sol import tensor_bytes
from evaluator.supervise import HarnessOutcome
from leaderboard import services
from leaderboard.models import Hardware, Problem, Workload
from leaderboard.problems import harness_problem, stored_flops_by_uuid, visible_sol_bounds, workloads_for
from tests.conftest import FIXTURES
from tests.platform.test_sync_problems import copy_problem, sync

pytestmark = pytest.mark.django_db
TINY_MATMUL = FIXTURES / "problems" / "tiny_matmul"


def without_sol(tmp_path: Path, reference: str | None = None) -> Path:
    directory = copy_problem(tmp_path, TINY_MATMUL)
    data = json.loads((directory / "definition.json").read_text())
    del data["sol"]
    (directory / "definition.json").write_text(json.dumps(data))
    if reference is not None:
        (directory / "reference.py").write_text(reference)
    return directory


def test_every_workload_hidden_ones_too_gets_its_count(tmp_path: Path) -> None:
    out, err = sync(without_sol(tmp_path).parent)
    assert out == "tiny_matmul: created\n" and err == ""
    rows = list(Problem.objects.get(name="tiny_matmul").workloads.all())
    assert {w.visibility for w in rows} == {Workload.VISIBLE, Workload.HIDDEN}
    for row in rows:
        assert row.reference_flops == 2 * row.axes["m"] * row.axes["k"] * row.axes["n"], row.uuid
        assert row.flops_note == ""


def test_pages_bound_the_visible_workloads_with_the_stored_count(tmp_path: Path) -> None:
    directory = without_sol(tmp_path)
    sync(directory.parent)
    problem = Problem.objects.get(name="tiny_matmul")
    definition = load_problem(directory).definition
    h200 = Hardware.objects.get(slug="h200")
    Workload.objects.filter(problem=problem).update(reference_flops=1e12)  # not what a recount gives
    for workload, bounds in visible_sol_bounds(problem, [h200]):
        nbytes = tensor_bytes(definition, definition.resolve_axes(workload.axes))
        assert bounds["h200"] == pytest.approx(sol_bound_ms(1e12, nbytes, get_hardware("h200"), "float32"))


def test_the_scoring_reads_the_stored_count(tmp_path: Path) -> None:
    sync(without_sol(tmp_path).parent)
    problem = Problem.objects.get(name="tiny_matmul")
    Workload.objects.filter(problem=problem).update(reference_flops=123.0)
    workloads = workloads_for(problem, smoke=False)
    report = build_report(harness_problem(problem).definition, workloads, HarnessOutcome(),
                          get_hardware("h200"), counted=stored_flops_by_uuid(problem))
    assert {w.visibility for w in workloads} == {"visible", "hidden"}
    assert {row["flops"] for row in report["workloads"]} == {123.0}
    assert {row["flops_from"] for row in report["workloads"]} == {"reference"}


def test_a_reference_that_cannot_be_counted_is_a_warning_and_a_memory_bound(tmp_path: Path) -> None:
    reference = "import torch\n\ndef run(a, b):\n    return torch.matmul(a, b) * a.sum().item()\n"
    out, err = sync(without_sol(tmp_path, reference).parent)
    assert out == "tiny_matmul: created\n"
    total = Problem.objects.get(name="tiny_matmul").workloads.count()  # visible, smoke and hidden
    assert f"FLOPs not counted from the reference for {total} of {total} workloads" in err
    assert "DataDependentOutputException" in err
    problem = Problem.objects.get(name="tiny_matmul")
    assert set(problem.workloads.values_list("reference_flops", flat=True)) == {None}
    assert all("did not run on fake tensors" in w.flops_note for w in problem.workloads.all())
    bounds = visible_sol_bounds(problem, [Hardware.objects.get(slug="h200")])
    assert bounds and all(b["h200"] > 0 for _, b in bounds)  # the memory bound


def test_a_definition_with_sol_flops_runs_no_count(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("counted although the definition gives sol.flops")

    monkeypatch.setattr(services, "count_reference_flops", refuse)
    sync(TINY_MATMUL.parent)
    assert set(Workload.objects.values_list("reference_flops", flat=True)) == {None}
