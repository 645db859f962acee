"""Profile mode on a worker with Nsight Compute, on the CPU: a fake `ncu` first on PATH
(tests/fixtures/ncu/fake_ncu.py) and the worker told it may use it (tasks.ncu_for, as on a GPU
worker). Each visible workload runs under ncu in the worker's sandbox (none, and bubblewrap where
it is installed) and limits, its kernels are
the report's, and the reports that fit the limits are stored beside the results for the owner,
whose page links them (who may download one: tests/api/test_profile_report_api.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from evaluator import services, tasks
from evaluator.harness import ncu, profiling
from evaluator.models import Evaluation, ProfileReport
from leaderboard.models import Hardware, Problem
from tests import fake_ncu
from tests.api.support import api_user, client_for, upload
from tests.sandbox.backends import require

pytestmark = pytest.mark.django_db
GEMM = "void gemm_kernel<float, 128, 128>(float const*, float*, int)"  # in the fake's CSV


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "send", lambda *args, **kwargs: None)


@pytest.mark.parametrize("backend", ["none", "bubblewrap"])
def test_the_worker_profiles_under_ncu_and_keeps_the_reports_within_the_limits(
        settings: Any, problem: Problem, cpu: Hardware, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    require(backend)
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = backend, backend == "none"
    bin_dir = tmp_path / "bin"
    fake_ncu.install(bin_dir)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(tasks, "ncu_for", lambda cpu: ncu.find_ncu())  # as on a GPU worker
    one = len(fake_ncu.MARK + b"ncu-0")  # the fake's reports: its mark and the job directory's name
    settings.SOLARENA_NCU_EVALUATION_BYTES = one + 1  # room for the first report only
    owner = api_user()
    response = upload(client_for(owner), mode="profile")
    assert response.status_code == 201, response.json()
    submission_id = response.json()["id"]
    evaluation = Evaluation.objects.get(submission_id=submission_id)
    claimed = services.claim(evaluation.pk, "worker-a")
    assert claimed is not None

    reports: dict[str, bytes] = {}
    report = tasks.measure(claimed, "worker-a", reports)
    first, second = report["workloads"]
    for row in (first, second):
        assert row["status"] == "PASSED" and row["latency_ms"] is None, row
        assert (row["profile"]["tool"], row["profile"]["calls"]) == (profiling.NCU, profiling.CALLS)
        assert [k["name"] for k in row["profile"]["kernels"]] == [GEMM, "_kernel"]
    assert first["profile"]["report_bytes"] == one and "report_left_out" not in first["profile"]
    assert "report_bytes" not in second["profile"]
    assert second["profile"]["report_left_out"] == f"the evaluation's reports would pass {one + 1} bytes"
    assert list(reports) == [first["uuid"]] and reports[first["uuid"]] == fake_ncu.MARK + b"ncu-0"
    if backend == "none":  # bubblewrap binds the fake's directory read-only: it logs nothing there
        assert [call[0] for call in fake_ncu.calls(bin_dir)] == ["--target-processes", "--import"] * 2

    assert services.ingest(evaluation.pk, "worker-a", report, reports)
    stored = ProfileReport.objects.select_related("result__workload").get()
    assert stored.result.workload.uuid == first["uuid"] and bytes(stored.data) == reports[first["uuid"]]
    assert stored.result.raw["profile"]["report_bytes"] == one

    url = f"/api/v1/submissions/{submission_id}/profile/cpu/{first['uuid']}.ncu-rep"
    page = Client()
    page.force_login(owner)
    text = page.get(f"/submissions/{submission_id}/").content.decode()
    assert f'href="{url}"' in text and text.count(".ncu-rep") == 1
    assert "The Nsight Compute report was not kept: the evaluation&#x27;s reports would pass" in text
    assert "SM %" in text and "occupancy %" in text
    assert page.get(url).content == reports[first["uuid"]]  # the link works with the page's login
