"""An evaluation's environment never names the worker's host: a report's `host` is not stored, a
row stored with one before is shown without it, by the API and the submission page alike."""

from __future__ import annotations

import pytest
from django.test import Client

from evaluator import services
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
HOST = "gpu-node-7.internal.example"


def test_a_reported_host_is_not_stored(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    services.claim(evaluation.pk, "worker-a")
    report = factories.fake_report(evaluation)
    report["environment"] = {"torch": "2.13.0", "host": HOST}
    assert services.ingest(evaluation.pk, "worker-a", report)
    evaluation.refresh_from_db()
    assert evaluation.environment == {"torch": "2.13.0"}


def test_a_stored_host_is_shown_neither_by_the_api_nor_the_page(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    Evaluation.objects.filter(pk=evaluation.pk).update(
        state=Evaluation.SCORED, score=0.5, environment={"torch": "2.13.0", "host": HOST})
    owner = evaluation.submission.owner
    api = client_for(owner).get(f"/api/v1/submissions/{evaluation.submission_id}/")
    assert api.status_code == 200
    assert api.json()["evaluations"][0]["environment"] == {"torch": "2.13.0"}
    assert HOST not in api.content.decode()
    page = Client()
    page.force_login(owner)
    submission = f"/submissions/{evaluation.submission_id}/"
    for path in (submission, f"{submission}live/"):
        assert HOST not in page.get(path).content.decode()
