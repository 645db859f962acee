"""A profile run of one workload on the worker: the job holds that visible workload alone, whatever
its size (a full-size one on the cpu hardware too), under torch's profiler and under Nsight Compute
(the fake `ncu` of tests/fake_ncu.py, run once for it); its one result is stored, nothing else."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from evaluator import services, tasks
from evaluator.harness import ncu, profiling
from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, Problem
from tests import fake_ncu
from tests.api.support import api_user, client_for, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "send", lambda *args, **kwargs: None)


def profile_one(uuid: str) -> Evaluation:
    response = upload(client_for(api_user()), mode="profile", workload=uuid)
    assert response.status_code == 201, response.json()
    evaluation = Evaluation.objects.get(submission_id=response.json()["id"])
    claimed = services.claim(evaluation.pk, "worker-a")
    assert claimed is not None
    return claimed


@pytest.mark.parametrize("uuid", ["smoke_rows8_cols128", "rows1024_cols4096"])
def test_only_the_workload_asked_for_is_profiled(settings: Any, problem: Problem, cpu: Hardware,
                                                 uuid: str) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", True
    evaluation = profile_one(uuid)
    report = tasks.measure(evaluation, "worker-a")
    [row] = report["workloads"]
    assert (row["uuid"], row["visibility"], row["status"]) == (uuid, "visible", "PASSED")
    assert row["profile"]["tool"] == profiling.TORCH and row["profile"]["kernels"]
    assert services.ingest(evaluation.pk, "worker-a", report)
    assert [r.workload.uuid for r in WorkloadResult.objects.select_related("workload")] == [uuid]


def test_ncu_runs_once_for_the_workload_asked_for(settings: Any, problem: Problem, cpu: Hardware,
                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", True
    bin_dir = tmp_path / "bin"
    fake_ncu.install(bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(tasks, "ncu_for", lambda cpu: ncu.find_ncu())  # as on a GPU worker
    evaluation = profile_one("smoke_rows8_cols128")
    reports: dict[str, bytes] = {}
    report = tasks.measure(evaluation, "worker-a", reports)
    [row] = report["workloads"]
    assert row["uuid"] == "smoke_rows8_cols128" and row["profile"]["tool"] == profiling.NCU
    assert list(reports) == ["smoke_rows8_cols128"]
    assert [call[0] for call in fake_ncu.calls(bin_dir)] == ["--target-processes", "--import"]
