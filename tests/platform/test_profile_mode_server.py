"""Profile mode on the server: a profile run (every channel takes `mode=profile`) runs the visible
workloads only, checks them and lists each one's top kernels (operators on the CPU) under torch's
profiler; nothing is timed or scored, it is never ranked, and it is the owner's alone: the API's
results and the submission page show the kernels to the owner, anyone else gets 404."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from evaluator import modes, services, tasks
from evaluator.harness import profiling
from evaluator.jobs import UNTIMED
from evaluator.models import Evaluation
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.api.support import api_user, client_for, upload

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "send", lambda *args, **kwargs: None)


def test_the_worker_profiles_the_visible_workloads_and_stores_the_kernels(
        settings: Any, problem: Problem, cpu: Hardware) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", True
    assert tasks.mode_options(modes.PROFILE) == {**UNTIMED, "profile": profiling.TORCH}
    owner = api_user()
    response = upload(client_for(owner), mode="profile")
    assert response.status_code == 201, response.json()
    evaluation = Evaluation.objects.get(submission_id=response.json()["id"])
    claimed = services.claim(evaluation.pk, "worker-a")
    assert claimed is not None
    report = tasks.measure(claimed, "worker-a")
    assert report["workloads"] and all(r["visibility"] == "visible" for r in report["workloads"])
    for row in report["workloads"]:
        assert row["status"] == "PASSED" and row["latency_ms"] is None  # checked, never timed
        profile = row["profile"]
        assert profile["tool"] == profiling.TORCH and profile["calls"] == profiling.CALLS
        names = [k["name"] for k in profile["kernels"]]
        assert any("mul" in name or "add" in name for name in names), names  # x * 2.0 + bias
    assert services.ingest(evaluation.pk, "worker-a", report)
    evaluation.refresh_from_db()
    assert (evaluation.state, evaluation.score) == (Evaluation.SCORED, None)
    assert not LeaderboardEntry.objects.exists()

    body = client_for(owner).get(f"/api/v1/submissions/{evaluation.submission_id}/").json()
    [shown] = body["evaluations"]
    assert [r["profile"]["kernels"] for r in shown["results"]] == [
        r["profile"]["kernels"] for r in report["workloads"]]
    page = Client()
    page.force_login(owner)
    text = page.get(f"/submissions/{evaluation.submission_id}/").content.decode()
    assert "Top kernels under the profiler" in text and names[0] in text
    assert Client().get(f"/submissions/{evaluation.submission_id}/").status_code == 404
    assert client_for(None).get(f"/api/v1/submissions/{evaluation.submission_id}/").status_code in (401, 404)
