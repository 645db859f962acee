"""Shared baselines (evaluator/baselines.py): a calibration on a real worker stores every workload's
baseline and reference times; an evaluation of that key is scored against them and its job times
neither; a key without them (a new harness, a new problem version, new hardware peaks) times them
in its own run and asks for a calibration once."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from evaluator import baselines, services, tasks
from evaluator.hidden_results import visible_rows
from evaluator.jobs import spec_path
from evaluator.models import BaselineCalibration, Evaluation, SharedTiming
from leaderboard.models import Hardware, Problem, Workload
from leaderboard.problems import workloads_for
from submissions.services import create_submission
from tests.platform import factories
from tests.platform import test_worker_end_to_end as end_to_end

broker = end_to_end.broker  # the fixture: a flushed Redis database of this xdist process's own


def wait_for(check: Any, worker: Any, log: Path, seconds: float = 2 * end_to_end.DEADLINE_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        assert worker.poll() is None, log.read_text()[-3000:]
        time.sleep(0.1)
    assert check(), log.read_text()[-3000:]


@pytest.mark.django_db(transaction=True)
def test_a_worker_calibrates_every_workload_and_evaluations_use_it(broker: str, tmp_path: Path) -> None:
    cpu, problem, log = factories.make_hardware("cpu"), factories.make_problem(), tmp_path / "worker.log"
    uuids = {w.uuid for w in workloads_for(problem, smoke=True, hidden=True)}
    with end_to_end.celery_worker(broker, log) as worker:
        call_command("calibrate_baselines", "--problem", problem.name, "--hardware", "cpu", "--runs", "3")
        calibration = BaselineCalibration.objects.get(problem=problem, hardware=cpu)

        def finished() -> bool:
            calibration.refresh_from_db()
            return calibration.state in (BaselineCalibration.DONE, BaselineCalibration.FAILED)

        wait_for(finished, worker, log)
        assert calibration.state == BaselineCalibration.DONE, calibration.error
        stored = {t.workload.uuid: t for t in calibration.timings.select_related("workload")}
        assert set(stored) == uuids and any(t.workload.visibility == "hidden" for t in stored.values())
        for timing in stored.values():
            assert timing.reference_ms > 0 and timing.baseline_ms and timing.baseline_ms > 0
            assert timing.reference_kept + timing.reference_rejected == 3 == len(timing.runs_ms["reference"])
            assert timing.baseline_kept >= 2 and not timing.baseline_is_reference

        evaluation = create_submission(factories.make_user(), problem, factories.solution(), "python",
                                       [cpu]).evaluations.get()
        wait_for(lambda: Evaluation.objects.get(pk=evaluation.pk).state in Evaluation.TERMINAL, worker, log)
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.SCORED, evaluation.error
    results = list(evaluation.results.select_related("workload"))
    assert {r.workload.uuid for r in results} == uuids
    for result in results:
        timing = stored[result.workload.uuid]
        assert result.shared_timing_id == timing.pk
        assert (result.baseline_latency_ms, result.reference_latency_ms) == (timing.baseline_ms,
                                                                            timing.reference_ms)
    visible = [r for r in results if r.workload.visibility == "visible"]
    assert all(r.raw["baseline_timing"]["shared"] and "samples_ms" not in r.raw["baseline_timing"]
               and r.raw["timing"]["samples_ms"] for r in visible)  # the solution is still timed
    assert all(row["baseline_shared"] for row in visible_rows(visible))
    assert BaselineCalibration.objects.count() == 1


@pytest.fixture
def jobs(settings: Any, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The options of every job the worker code writes (read from its spec as the harness starts)."""
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", True
    seen: list[dict[str, Any]] = []
    real = tasks.run_harness

    def spy(job_dir: Path, *args: Any, **kwargs: Any) -> Any:
        seen.append(json.loads(spec_path(job_dir).read_text())["options"])
        return real(job_dir, *args, **kwargs)

    monkeypatch.setattr(tasks, "run_harness", spy)
    return seen


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    messages: list[int] = []
    monkeypatch.setattr(baselines, "_send", lambda calibration_id, queue: messages.append(calibration_id))
    return messages


def stored_calibration(problem: Problem, hardware: Hardware, baseline_ms: float = 5.0) -> BaselineCalibration:
    """A finished calibration of the key, with made-up times no run would measure."""
    calibration = BaselineCalibration.objects.create(**baselines.key(problem, hardware), runs=5,
                                                     state=BaselineCalibration.DONE)
    for workload in problem.workloads.all():
        SharedTiming.objects.create(
            calibration=calibration, workload=workload, reference_ms=2 * baseline_ms, reference_spread=0.01,
            reference_rse=0.001, reference_kept=5, reference_rejected=0, baseline_ms=baseline_ms,
            baseline_spread=0.01, baseline_rse=0.002, baseline_kept=4, baseline_rejected=1,
            measured_at=timezone.now())
    return calibration


def measured(problem: Problem, hardware: Hardware, **fields: Any) -> dict[str, Any]:
    evaluation = factories.make_evaluation(problem=problem, hardware=hardware, **fields)
    claimed = services.claim(evaluation.pk, "worker-a")
    assert claimed is not None
    return tasks.measure(claimed, "worker-a")


def passed_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = [row for row in report["workloads"] if row["status"] == "PASSED"]
    assert rows and len(rows) == len(report["workloads"])
    return rows


@pytest.mark.django_db
def test_a_stored_calibration_replaces_the_timing_in_the_job(problem: Problem, cpu: Hardware,
                                                            jobs: list, sent: list) -> None:
    stored_calibration(problem, cpu)
    report = measured(problem, cpu)
    assert jobs == [{"time_reference": False, "time_baseline": False}]
    for row in passed_rows(report):
        assert (row["baseline_latency_ms"], row["reference_latency_ms"]) == (5.0, 10.0)
        assert row["shared_baseline"]["runs"] == 5 and row["baseline_timing"]["rse"] == 0.002
    assert sent == []


def new_problem_version(problem: Problem) -> Problem:
    """Version 2 of the problem, with the same workloads (as a sync of a changed definition makes it)."""
    workloads = list(problem.workloads.all())
    Problem.objects.filter(pk=problem.pk).update(is_current=False)
    problem.pk, problem.version = None, 2
    problem.save()
    for workload in workloads:
        workload.pk, workload.problem = None, problem
    Workload.objects.bulk_create(workloads)
    return problem


@pytest.mark.django_db
@pytest.mark.parametrize("change", ["harness version", "problem version", "hardware peaks"])
def test_a_changed_key_times_in_run_and_asks_for_a_calibration_once(
        change: str, problem: Problem, cpu: Hardware, jobs: list, sent: list, settings: Any,
        monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any) -> None:
    settings.SOLARENA_CALIBRATE_ON_MISS = True  # as deployed (tests/conftest.py turns it off)
    old = stored_calibration(problem, cpu)
    if change == "harness version":
        monkeypatch.setattr(baselines, "HARNESS_VERSION", "9999.01.01")
    elif change == "problem version":
        problem = new_problem_version(problem)
    else:
        Hardware.objects.filter(pk=cpu.pk).update(calibrated={"float32": 5e11})
        cpu.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        reports = [measured(problem, cpu), measured(problem, cpu, seed=99)]
    assert jobs == [{}, {}]  # timed in the run, as a ranked evaluation always was
    for report in reports:
        for row in passed_rows(report):
            assert row["baseline_timing"]["samples_ms"] and "shared_baseline" not in row
            assert row["baseline_latency_ms"] != 5.0
    fresh = BaselineCalibration.objects.exclude(pk=old.pk).get()
    assert fresh.state == BaselineCalibration.QUEUED and fresh.runs == baselines.DEFAULT_RUNS
    assert sent == [fresh.pk]  # once, for two evaluations
    assert BaselineCalibration.objects.filter(pk=old.pk, state=BaselineCalibration.DONE).exists()


@pytest.mark.django_db
def test_confirmation_runs_time_the_baseline_again(problem: Problem, cpu: Hardware,
                                                                jobs: list, sent: list) -> None:
    stored_calibration(problem, cpu)
    confirmed = factories.make_evaluation(problem=problem, hardware=cpu, state=Evaluation.SCORED)
    measured(problem, cpu, confirms=confirmed)
    assert jobs == [{}] and sent == []


@pytest.mark.django_db
def test_a_calibration_that_cannot_time_the_reference_fails_and_is_asked_again_later(
        problem: Problem, cpu: Hardware, sent: list, django_capture_on_commit_callbacks: Any) -> None:
    calibration = BaselineCalibration.objects.create(**baselines.key(problem, cpu), runs=3)
    with django_capture_on_commit_callbacks(execute=True):
        assert baselines.request(problem, cpu) and baselines.claim(calibration.pk, "w") is not None
    uuids = [w.uuid for w in workloads_for(problem, smoke=True)]
    runs = [{uuid: {"status": "PASSED", "reference_latency_ms": 1.0} for uuid in uuids}] * 2
    assert baselines.store(calibration.pk, "w", runs, uuids)
    calibration.refresh_from_db()
    assert calibration.state == BaselineCalibration.FAILED and "at least 3" in calibration.error
    assert not calibration.timings.exists()
    assert baselines.lookup(problem, cpu, uuids) is None
    with django_capture_on_commit_callbacks(execute=True):
        assert not baselines.request(problem, cpu)  # failed just now: not again at once
        assert baselines.request(problem, cpu, now=True)
    assert sent == [calibration.pk, calibration.pk]


@pytest.mark.django_db
def test_the_command_refuses_too_few_runs_and_unknown_names(problem: Problem, cpu: Hardware) -> None:
    with pytest.raises(CommandError, match="at least 3"):
        call_command("calibrate_baselines", "--runs", "2")
    with pytest.raises(CommandError, match="no current problem"):
        call_command("calibrate_baselines", "--problem", "nope")


@pytest.mark.django_db
def test_with_calibration_on_miss_off_an_evaluation_asks_for_none(
        problem: Problem, cpu: Hardware, jobs: list, sent: list, settings: Any,
        django_capture_on_commit_callbacks: Any) -> None:
    settings.SOLARENA_CALIBRATE_ON_MISS = False
    with django_capture_on_commit_callbacks(execute=True):
        measured(problem, cpu)
    assert jobs == [{}] and sent == [] and not BaselineCalibration.objects.exists()
