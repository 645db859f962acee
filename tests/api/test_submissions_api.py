"""POST/GET /api/v1/submissions/: creating (file upload or JSON sources), who sees what, refusing
bad input without storing anything, cancelling, and hidden workloads as one aggregate."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractBaseUser
from rest_framework.test import APIClient

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem, Workload
from submissions.models import Submission
from tests.api.support import SUBMISSIONS, client_for, post_sources, upload
from tests.platform import factories

pytestmark = pytest.mark.django_db


def detail(submission_id: int) -> str:
    return f"{SUBMISSIONS}{submission_id}/"


def test_upload_creates_a_queued_submission_sent_on_commit(
        problem: Problem, cpu: Hardware, django_capture_on_commit_callbacks: Any) -> None:
    user = factories.make_user()
    factories.make_hardware("h200")
    with mock.patch.object(evaluations, "send") as send:
        with django_capture_on_commit_callbacks(execute=True):
            response = upload(client_for(user), hardware=["cpu", "h200"])
    assert response.status_code == 201, response.json()
    body = response.json()
    submission = Submission.objects.get()
    assert body["id"] == submission.pk and submission.owner == user and submission.problem == problem
    assert body["sources"] == {"solution.py": factories.CORRECT} and body["entry"] == "solution.py"
    assert sorted((e["hardware"], e["state"]) for e in body["evaluations"]) == [
        ("cpu", "queued"), ("h200", "queued")]
    assert sorted(call.args[1] for call in send.call_args_list) == ["hw.cpu", "hw.h200"]


def test_json_sources_create_a_submission(problem: Problem, cpu: Hardware) -> None:
    helper = "SCALE = 2.0\n"
    main = "from helper import SCALE\n\n\ndef run(x, bias):\n    return x * SCALE + bias[None, :]\n"
    response = post_sources(client_for(factories.make_user()),
                            {"main.py": main, "helper.py": helper}, entry="main.py", language="triton")
    assert response.status_code == 201, response.json()
    submission = Submission.objects.get()
    assert submission.sources == {"main.py": main, "helper.py": helper}
    assert (submission.entry, submission.language) == ("main.py", "triton")


def test_a_solution_json_upload(problem: Problem, cpu: Hardware) -> None:
    document = json.dumps({"sources": [{"path": "kernel.py", "content": factories.CORRECT}],
                           "spec": {"entry_point": "kernel.py::run"}})
    response = upload(client_for(factories.make_user()), document.encode(), name="solution.json")
    assert response.status_code == 201, response.json()
    assert Submission.objects.get().entry == "solution.json"


def test_anonymous_requests_get_401(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    anonymous = client_for(None)
    for response in (anonymous.get(SUBMISSIONS), anonymous.get(detail(evaluation.submission_id)),
                     upload(anonymous), anonymous.post(f"{detail(evaluation.submission_id)}cancel/")):
        assert response.status_code == 401
    assert Submission.objects.count() == 1


def test_participants_see_only_their_own(problem: Problem, cpu: Hardware) -> None:
    owner, other = factories.make_user(), factories.make_user()
    mine = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu).submission
    factories.make_evaluation(owner=other, problem=problem, hardware=cpu)
    listed = client_for(owner).get(SUBMISSIONS).json()
    assert [s["id"] for s in listed["results"]] == [mine.pk]
    assert "sources" not in listed["results"][0]
    assert client_for(owner).get(detail(mine.pk)).json()["sources"] == mine.sources
    response = client_for(other).get(detail(mine.pk))
    assert response.status_code == 404
    assert factories.CORRECT not in response.content.decode()


def test_an_admin_opens_anyones_submission(problem: Problem, cpu: Hardware) -> None:
    submission = factories.make_evaluation(problem=problem, hardware=cpu).submission
    admin = factories.make_user()
    admin.is_staff = True
    admin.save()
    response = client_for(admin).get(detail(submission.pk))
    assert response.status_code == 200 and response.json()["sources"] == submission.sources
    assert client_for(admin).get(SUBMISSIONS).json()["count"] == 0  # the list is one's own


CORRECT_SOURCES = {"solution.py": factories.CORRECT}
NO_PROBLEM = {"hardware": ["cpu"], "language": "python", "sources": CORRECT_SOURCES, "entry": "solution.py"}
BAD_INPUTS = [
    ("unknown problem", lambda c: upload(c, problem="no_such_problem"), 400, "problem", "no_such_problem"),
    ("unknown hardware", lambda c: upload(c, hardware=["cpu", "tpu9"]), 400, "hardware", "tpu9"),
    ("wrong language", lambda c: upload(c, language="fortran"), 400, "language", "fortran"),
    ("empty file", lambda c: upload(c, b""), 400, "file", "empty"),
    ("blank file", lambda c: upload(c, b"  \n\n"), 400, "file", "empty"),
    ("binary file", lambda c: upload(c, b"def run(x):\x00\x01\x02"), 400, "file", "binary"),
    ("not UTF-8", lambda c: upload(c, "def run(x): return 'é'".encode("latin-1")), 400, "file", "UTF-8"),
    ("not a solution file", lambda c: upload(c, name="solution.exe"), 400, "file", ".py"),
    ("oversized file", lambda c: upload(c, b"#" * ((1 << 20) + 1)), 413, "file", "over the limit"),
    ("oversized sources", lambda c: post_sources(c, {"solution.py": factories.CORRECT,
                                                     "big.py": "#" * (1 << 20)}), 413, "sources", "limit"),
    ("empty source", lambda c: post_sources(c, {"solution.py": ""}), 400, "sources", "empty"),
    ("entry not in sources", lambda c: post_sources(c, entry="main.py"), 400, "entry", "main.py"),
    ("entry not a solution", lambda c: post_sources(c, entry="notes.txt"), 400, "entry", ".py"),
    ("escaping path", lambda c: post_sources(c, {"../x.py": "x = 1\n", "solution.py": factories.CORRECT}),
     400, "sources", "relative"),
    ("sources without entry", lambda c: post_sources(c, entry=None), 400, "entry", "name the file"),
    ("no solution at all", lambda c: c.post(SUBMISSIONS, {"problem": "scale_shift", "hardware": ["cpu"],
                                                          "language": "python"}, format="json"),
     400, "file", "either"),
    ("no hardware", lambda c: upload(c, hardware=[]), 400, "hardware", ""),
    ("hardware not a list", lambda c: post_sources(c, hardware="cpu"), 400, "hardware", "list"),
    ("no problem", lambda c: c.post(SUBMISSIONS, NO_PROBLEM, format="json"), 400, "problem", "required"),
    ("sources not a mapping", lambda c: post_sources(c, ["solution.py"]), 400, "sources", "dictionary"),
    ("absolute source path", lambda c: post_sources(c, {"/tmp/x.py": "x = 1\n", **CORRECT_SOURCES}),
     400, "sources", "relative"),
    ("malformed JSON", lambda c: c.generic("POST", SUBMISSIONS, '{"problem": "scale_shift",',
                                           content_type="application/json"),
     400, "detail", "JSON parse error"),
]


@pytest.mark.parametrize(("case", "send", "status", "field", "words"), BAD_INPUTS,
                         ids=[case[0] for case in BAD_INPUTS])
def test_bad_input_is_refused_naming_the_problem_and_nothing_is_stored(
        problem: Problem, cpu: Hardware, case: str, send: Any, status: int, field: str, words: str) -> None:
    response = send(client_for(factories.make_user()))
    assert response.status_code == status, response.content
    errors = response.json()
    assert field in errors, errors
    assert words in str(errors[field])
    assert Submission.objects.count() == 0 and Evaluation.objects.count() == 0


def test_an_inactive_hardware_is_refused(problem: Problem, cpu: Hardware) -> None:
    Hardware.objects.filter(pk=cpu.pk).update(active=False)
    response = upload(client_for(factories.make_user()))
    assert response.status_code == 400 and "hardware" in response.json()
    assert not Submission.objects.exists()


def cancel(user: AbstractBaseUser, submission_id: int) -> Any:
    return client_for(user).post(f"{detail(submission_id)}cancel/")


def test_the_owner_cancels_while_queued(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    owner = evaluation.submission.owner
    response = cancel(owner, evaluation.submission_id)
    assert response.status_code == 200
    assert [e["state"] for e in response.json()["evaluations"]] == ["cancelled"]
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.CANCELLED and evaluation.finished_at is not None
    assert evaluations.claim(evaluation.pk, "worker-a") is None  # no worker picks it up afterwards
    again = cancel(owner, evaluation.submission_id)
    assert again.status_code == 409 and "no queued evaluation" in again.json()["detail"]


def test_running_and_finished_evaluations_are_not_cancelled(problem: Problem, cpu: Hardware) -> None:
    running = factories.make_evaluation(problem=problem, hardware=cpu)
    submission = running.submission
    h200 = factories.make_hardware("h200")
    queued = Evaluation.objects.create(submission=submission, hardware=h200, seed=7)
    assert evaluations.claim(running.pk, "worker-a") is not None
    assert cancel(submission.owner, submission.pk).status_code == 200
    running.refresh_from_db()
    queued.refresh_from_db()
    assert (running.state, queued.state) == (Evaluation.RUNNING, Evaluation.CANCELLED)
    assert cancel(submission.owner, submission.pk).status_code == 409
    running.refresh_from_db()
    assert running.state == Evaluation.RUNNING


def test_only_the_owner_cancels(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    admin = factories.make_user()
    admin.is_staff = True
    admin.save()
    assert cancel(factories.make_user(), evaluation.submission_id).status_code == 404
    assert cancel(admin, evaluation.submission_id).status_code == 403
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.QUEUED


def test_hidden_workloads_show_as_one_aggregate(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    report = factories.fake_report(evaluation, verdict="RUNTIME_ERROR", message="bad shape (8, 128)")
    assert evaluations.ingest(evaluation.pk, "worker-a", report)
    response = client_for(evaluation.submission.owner).get(detail(evaluation.submission_id))
    assert response.status_code == 200
    shown = response.json()["evaluations"][0]
    hidden = Workload.objects.filter(problem=problem, visibility=Workload.HIDDEN, smoke=True)
    visible = Workload.objects.filter(problem=problem, visibility=Workload.VISIBLE, smoke=True)
    assert hidden.exists()
    assert [row["uuid"] for row in shown["results"]] == [w.uuid for w in visible.order_by("position")]
    for row in shown["results"]:
        assert row["visibility"] == "visible"
        assert row["message"] == "bad shape (8, 128)" and row["latency_ms"] == 1.0 and row["axes"]
    assert shown["hidden"] == {"passed": 0, "total": hidden.count(), "score": 0.5}
    assert shown["timing_note"].startswith("CPU times come from the Triton interpreter, not a GPU")
    text = response.content.decode()
    for workload in hidden:
        assert workload.uuid not in text
        assert json.dumps(workload.axes) not in text


def test_the_browser_session_signs_api_requests_with_csrf(problem: Problem, cpu: Hardware) -> None:
    user = factories.make_user()
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(user)
    assert browser.get(SUBMISSIONS).status_code == 200
    refused = upload(browser)
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    assert not Submission.objects.exists()
