"""Which hardware has a worker online (evaluator/workers.py): a submission to hardware that no
worker serves, and that the operator does not expect workers for, is refused on every channel
with a message naming what is online, storing nothing; the API shows each hardware's state and a
queued evaluation's place in line with an estimated start."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from evaluator import workers
from evaluator.models import Evaluation, WorkerHeartbeat
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import SUBMISSIONS, api_user, client_for, upload
from tests.api.test_agent_submissions_api import good_files, send_bundle, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def nothing_expected(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.SOLARENA_EXPECTED_HARDWARE = ""
    monkeypatch.setattr("evaluator.services.send", lambda *args, **kwargs: None)  # no broker


@pytest.fixture
def h200(db: Any) -> Hardware:
    return factories.make_hardware("h200")


def _beat(hardware: Hardware, worker: str = "celery@gpu1/7", age: float = 0.0) -> None:
    seen = timezone.now() - timedelta(seconds=age)
    WorkerHeartbeat.objects.create(worker=worker, hardware=hardware, started=seen, last_seen=seen)


def test_no_worker_online_refuses_naming_what_is(problem: Problem, cpu: Hardware, h200: Hardware) -> None:
    _beat(cpu, "celery@cpu1/3")
    response = upload(client_for(api_user()), hardware=["h200"])
    assert response.status_code == 400
    assert response.json()["hardware"] == ["no worker for h200 is online, so its evaluation would wait with "
                                           "no end; online now: cpu"]
    assert not Submission.objects.exists()


def test_a_worker_online_takes_it_and_the_api_says_so(problem: Problem, cpu: Hardware) -> None:
    _beat(cpu)
    assert upload(client_for(api_user())).status_code == 201
    shown = client_for(None).get("/api/v1/hardware/cpu/").json()["availability"]
    assert shown["state"] == "online" and shown["workers"] == 1 and shown["last_seen"]


def test_a_worker_not_heard_from_for_three_beats_is_gone(problem: Problem, cpu: Hardware,
                                                         settings: Any) -> None:
    _beat(cpu, age=3 * settings.SOLARENA_WORKER_HEARTBEAT_SECONDS + 1)
    response = upload(client_for(api_user()))
    assert response.status_code == 400 and "online now: none" in response.json()["hardware"][0]
    assert client_for(None).get("/api/v1/hardware/cpu/").json()["availability"]["state"] == "offline"


def test_expected_hardware_waits_for_its_workers(problem: Problem, h200: Hardware, settings: Any) -> None:
    settings.SOLARENA_EXPECTED_HARDWARE = "h200"
    assert upload(client_for(api_user()), hardware=["h200"]).status_code == 201
    shown = client_for(None).get("/api/v1/hardware/h200/").json()["availability"]
    assert shown == {"state": "expected", "workers": 0, "last_seen": None}


def test_the_form_and_agent_bundles_are_refused_too(problem: Problem, cpu: Hardware, client: Client) -> None:
    user = factories.make_user()
    client.force_login(user)
    form = {"problem": "scale_shift", "hardware": ["cpu"], "language": "python",
            "file": SimpleUploadedFile("solution.py", factories.CORRECT.encode())}
    response = client.post("/submit/", form)
    assert response.status_code == 400 and b"no worker for cpu is online" in response.content
    agent = send_bundle(client_for(user), zipped(good_files()))
    assert agent.status_code == 400 and "no worker for cpu is online" in agent.json()["hardware"][0]
    assert not Submission.objects.exists() and not AgentSubmission.objects.exists()


def test_a_queued_evaluation_knows_its_place_and_start(problem: Problem, cpu: Hardware) -> None:
    _beat(cpu, "celery@cpu1/3")
    _beat(cpu, "celery@cpu2/4")
    now = timezone.now()
    for minutes in (2, 4, 6):  # recent runs: a median of 4 minutes
        done = factories.make_evaluation(problem=problem, hardware=cpu)
        started = now - timedelta(hours=1)
        Evaluation.objects.filter(pk=done.pk).update(state=Evaluation.SCORED, started_at=started,
                                                     finished_at=started + timedelta(minutes=minutes))
    running = factories.make_evaluation(problem=problem, hardware=cpu)
    Evaluation.objects.filter(pk=running.pk).update(state=Evaluation.RUNNING, started_at=now)
    queued = [factories.make_evaluation(problem=problem, hardware=cpu) for _ in range(3)]
    place = workers.queue_place(queued[2])
    assert place is not None and place.position == 3
    assert place.estimated_start_seconds == pytest.approx((2 + 0.5) * 240 / 2)
    assert workers.queue_place(Evaluation.objects.get(pk=running.pk)) is None
    shown = client_for(queued[0].submission.owner).get(f"{SUBMISSIONS}{queued[0].submission_id}/").json()
    assert shown["evaluations"][0]["queue"] == {"position": 1, "estimated_start_seconds": pytest.approx(60.0)}
