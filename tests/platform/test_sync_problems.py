"""manage.py sync_problems: the suite and the hardware table into the database, versioned."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evaluator.harness.problem import load_problem
from evaluator.scoring.hardware import HARDWARE
from leaderboard.models import Category, Hardware, Problem, Workload
from leaderboard.problems import harness_problem, workloads_for
from tests.conftest import ROOT, SCALE_SHIFT, TEST_SECRET

SUITE = ROOT / "problems"
SUITE_NAMES = sorted(p.parent.name for p in SUITE.glob("*/definition.json"))


def sync(directory: Path = SUITE, secret: str = TEST_SECRET) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("sync_problems", str(directory), "--secret", secret, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def copy_problem(tmp_path: Path, source: Path = SCALE_SHIFT) -> Path:
    target = tmp_path / "suite" / source.name
    shutil.copytree(source, target)
    return target


def edit_definition(directory: Path, **changes: object) -> None:
    path = directory / "definition.json"
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


@pytest.mark.django_db
def test_suite_is_stored_with_categories_workloads_and_hardware() -> None:
    out, err = sync()
    assert len(SUITE_NAMES) == 12
    assert out.splitlines() == [f"{name}: created" for name in SUITE_NAMES]
    assert err == ""
    assert set(Hardware.objects.values_list("slug", flat=True)) == set(HARDWARE)
    assert {"l1", "l2", "quant"} <= set(Category.objects.values_list("slug", flat=True))
    assert Category.objects.get(slug="l1").name == "L1"
    for problem in Problem.objects.all():
        assert (problem.version, problem.is_current) == (1, True)
        loaded = load_problem(SUITE / problem.name)
        stored = problem.workloads.all()
        visible = [w for w in stored if w.visibility == Workload.VISIBLE and not w.smoke]
        assert [w.uuid for w in visible] == [w.uuid for w in loaded.workloads]
        assert stored.filter(visibility=Workload.VISIBLE, smoke=True).count() == len(loaded.smoke_workloads)
        hidden = loaded.definition.hidden
        assert stored.filter(visibility=Workload.HIDDEN, smoke=False).count() == hidden.count
        assert stored.filter(visibility=Workload.HIDDEN, smoke=True).count() == hidden.smoke_count
        tolerance = stored.first().tolerance
        assert set(tolerance) == {"atol", "rtol", "required_matched_ratio"}


@pytest.mark.django_db
def test_stored_problem_round_trips_and_keeps_hidden_workloads_out() -> None:
    sync()
    row = Problem.objects.get(name="softmax")
    loaded = load_problem(SUITE / "softmax")
    again = harness_problem(row)
    assert again.definition == loaded.definition
    assert again.workloads == loaded.workloads
    assert again.smoke_workloads == loaded.smoke_workloads
    assert all(w.visibility == "visible" for w in again.workloads + again.smoke_workloads)
    full = workloads_for(row, smoke=False)
    assert [w.visibility for w in full].count("hidden") == loaded.definition.hidden.count
    assert all(w.uuid.startswith("hidden-") for w in full if w.visibility == "hidden")


@pytest.mark.django_db
def test_second_run_changes_nothing() -> None:
    sync()
    before = list(Workload.objects.order_by("pk").values_list("pk", "uuid", "axes"))
    out, _ = sync()
    assert out.splitlines() == [f"{name}: unchanged (version 1)" for name in SUITE_NAMES]
    assert Problem.objects.count() == 12
    assert list(Workload.objects.order_by("pk").values_list("pk", "uuid", "axes")) == before


@pytest.mark.django_db
def test_another_secret_is_not_a_new_version() -> None:
    sync(SCALE_SHIFT)
    hidden = set(Workload.objects.filter(visibility=Workload.HIDDEN).values_list("uuid", flat=True))
    out, _ = sync(SCALE_SHIFT, secret="another-secret")
    assert out == "scale_shift: unchanged (version 1)\n"
    assert Problem.objects.count() == 1
    assert set(Workload.objects.filter(visibility=Workload.HIDDEN).values_list("uuid", flat=True)) == hidden


@pytest.mark.django_db
@pytest.mark.parametrize("change", [{"description": "Reworded."},
                                    {"tolerance": {"atol": 1e-4, "rtol": 1e-4}}])
def test_changed_definition_makes_a_new_version(tmp_path: Path, change: dict) -> None:
    directory = copy_problem(tmp_path)
    sync(directory)
    first = Problem.objects.get()
    workloads = first.workloads.count()
    edit_definition(directory, **change)
    out, _ = sync(directory)
    assert out == "scale_shift: new version 2\n"
    first.refresh_from_db()
    second = Problem.objects.get(is_current=True)
    assert (first.version, first.is_current, second.version) == (1, False, 2)
    assert first.definition_hash != second.definition_hash
    assert first.workloads.count() == second.workloads.count() == workloads
    assert sync(directory)[0] == "scale_shift: unchanged (version 2)\n"


@pytest.mark.django_db
def test_changed_workload_makes_a_new_version(tmp_path: Path) -> None:
    directory = copy_problem(tmp_path)
    sync(directory)
    path = directory / "workload.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n")
    assert sync(directory)[0] == "scale_shift: new version 2\n"
    assert Problem.objects.get(is_current=True).workloads.filter(
        visibility=Workload.VISIBLE, smoke=False).count() == len(lines) - 1


@pytest.mark.django_db
def test_malformed_problem_stores_nothing(tmp_path: Path) -> None:
    directory = copy_problem(tmp_path)
    edit_definition(directory, task_type="rewrite_everything")
    with pytest.raises(CommandError, match=r"definition\.json: task_type: must be one of"):
        sync(tmp_path / "suite")
    assert not Problem.objects.exists()
    assert not Workload.objects.exists()


@pytest.mark.django_db
def test_malformed_workload_names_file_and_line(tmp_path: Path) -> None:
    directory = copy_problem(tmp_path)
    with (directory / "workload.jsonl").open("a") as f:
        f.write("{not json\n")
    with pytest.raises(CommandError, match=r"workload\.jsonl:\d+: not valid JSON"):
        sync(directory)
    assert not Problem.objects.exists()


@pytest.mark.django_db
def test_axes_without_domain_give_a_warning_and_no_hidden_workloads(tmp_path: Path) -> None:
    directory = copy_problem(tmp_path)
    data = json.loads((directory / "definition.json").read_text())
    for axis in data["axes"].values():
        axis.pop("domain"), axis.pop("smoke_domain")
    (directory / "definition.json").write_text(json.dumps(data))
    out, err = sync(directory)
    assert out == "scale_shift: created\n"
    assert "scale_shift: no hidden workloads" in err and "rows, cols" in err
    problem = Problem.objects.get()
    assert problem.workloads.exists()
    assert not problem.workloads.filter(visibility=Workload.HIDDEN).exists()


@pytest.mark.django_db
def test_hardware_sync_keeps_calibration_and_active(tmp_path: Path) -> None:
    sync(SCALE_SHIFT)
    Hardware.objects.filter(slug="h200").update(calibrated={"memory_bandwidth": 4.1e12}, active=False,
                                                name="stale name")
    sync(SCALE_SHIFT)
    h200 = Hardware.objects.get(slug="h200")
    assert (h200.calibrated, h200.active) == ({"memory_bandwidth": 4.1e12}, False)
    assert h200.name == HARDWARE["h200"].name
