"""GET /submissions/<id>/ (anyone; the source for the owner and staff, or once public),
GET /submissions/, the cancel button and the owner's publish/unpublish button: live refresh while
something is queued or running, hidden workloads as one aggregate, everything escaped."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from evaluator import services as evaluations
from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, Problem, Workload
from submissions.models import Submission
from tests.platform import factories

pytestmark = pytest.mark.django_db
REFRESH = '<meta http-equiv="refresh" content="3">'
SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


@pytest.fixture
def owner(db: Any) -> AbstractBaseUser:
    return factories.make_user()


def signed_in(client: Client, user: AbstractBaseUser) -> Client:
    client.force_login(user)
    return client


def page(submission_id: int) -> str:
    return f"/submissions/{submission_id}/"


def workloads(problem: Problem, visible: int, hidden: int) -> list[Workload]:
    rows = list(problem.workloads.order_by("position"))
    chosen = ([w for w in rows if w.visibility == Workload.VISIBLE][:visible]
              + [w for w in rows if w.visibility == Workload.HIDDEN][:hidden])
    assert len(chosen) == visible + hidden
    return chosen


def scored(evaluation: Evaluation, chosen: list[Workload], message: str = "ok") -> None:
    for i, workload in enumerate(chosen):
        WorkloadResult.objects.create(
            evaluation=evaluation, workload=workload, status="PASSED", message=f"{message} {i}",
            latency_ms=1.25 + i, reference_latency_ms=2.5, baseline_latency_ms=3.75, sol_ms=0.5,
            score=0.625)
    evaluation.state, evaluation.score = Evaluation.SCORED, 0.625
    evaluation.save(update_fields=["state", "score"])


def test_the_owner_sees_a_queued_submission_refreshing_itself(
        client: Client, owner: AbstractBaseUser, problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    response = signed_in(client, owner).get(page(evaluation.submission_id))
    assert response.status_code == 200
    body = response.content.decode()
    assert REFRESH in body and "queued" in body
    assert "Cancel queued evaluations" in body and "csrfmiddlewaretoken" in body
    assert "<pre><code>import torch" in body  # the source


def test_no_refresh_once_every_evaluation_is_done(
        client: Client, owner: AbstractBaseUser, problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    signed_in(client, owner)
    Evaluation.objects.filter(pk=evaluation.pk).update(state=Evaluation.RUNNING)
    body = client.get(page(evaluation.submission_id)).content.decode()
    assert REFRESH in body and "Cancel queued evaluations" not in body
    scored(evaluation, workloads(problem, 1, 0))
    body = client.get(page(evaluation.submission_id)).content.decode()
    assert 'http-equiv="refresh"' not in body and "scored" in body and "0.625" in body


def test_others_see_the_page_without_the_source_and_staff_with_it(
        client: Client, owner: AbstractBaseUser, problem: Problem, cpu: Hardware) -> None:
    submission_id = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu).submission_id
    for reader in (signed_in(client, factories.make_user()), Client()):
        response = reader.get(page(submission_id))
        assert response.status_code == 200
        body = response.content.decode()
        assert "import torch" not in body and "The source is private" in body
        assert "Publish the source" not in body and "Cancel queued evaluations" not in body
    assert client.get(page(submission_id + 1000)).status_code == 404
    staff = factories.make_user()
    staff.is_staff = True
    staff.save()
    response = signed_in(client, staff).get(page(submission_id))
    assert response.status_code == 200 and "import torch" in response.content.decode()
    assert "Cancel queued evaluations" not in response.content.decode()  # only the owner cancels
    assert "Publish the source" not in response.content.decode()  # only the owner publishes


def test_hidden_workloads_show_as_one_row_of_aggregates(client: Client, owner: AbstractBaseUser,
                                                        problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    visible, hidden = workloads(problem, 1, 0), workloads(problem, 0, 2)
    scored(evaluation, visible, message="visible-note")
    WorkloadResult.objects.create(
        evaluation=evaluation, workload=hidden[0], status="INCORRECT_NUMERICAL", message="hidden-secret",
        latency_ms=987.654, reference_latency_ms=876.543, baseline_latency_ms=765.432, sol_ms=654.321,
        score=0.0)
    WorkloadResult.objects.create(evaluation=evaluation, workload=hidden[1], status="PASSED",
                                  latency_ms=1.5, sol_ms=0.5, score=0.25)
    body = signed_in(client, owner).get(page(evaluation.submission_id)).content.decode()
    assert "visible-note 0" in body and "1.25 ms" in body and "0.400" in body  # fraction of SOL 0.5/1.25
    for secret in ("INCORRECT_NUMERICAL", "hidden-secret", "987.6", "876.5", "765.4", "654.3",
                   hidden[0].uuid, "hidden-workload\""):
        assert secret not in body, secret
    start = body.index('<tr class="hidden-workloads">')
    row = body[start:body.index("</tr>", start)]
    cells = [cell.split("</td>")[0].split(">", 1)[-1] for cell in row.split("<td")[1:]]
    assert cells == ["2 hidden workloads", "1 of 2 passed", "shown as a whole only", "", "", "", "", "",
                     "0.125"]


def test_everything_is_escaped(client: Client, owner: AbstractBaseUser, problem: Problem,
                               cpu: Hardware) -> None:
    Problem.objects.filter(pk=problem.pk).update(description=f"desc {SCRIPT}")
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu,
                                           source=f"# {SCRIPT}\n", error=f"error {SCRIPT}")
    scored(evaluation, workloads(problem, 1, 0), message=SCRIPT)
    body = signed_in(client, owner).get(page(evaluation.submission_id)).content.decode()
    assert SCRIPT not in body
    assert f"desc {ESCAPED}" in body and f"# {ESCAPED}" in body and f"error {ESCAPED}" in body
    assert f"{ESCAPED} 0" in body  # the workload message


def test_cancel_while_queued_then_refused(client: Client, owner: AbstractBaseUser, problem: Problem,
                                          cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    cancel = f"{page(evaluation.submission_id)}cancel/"
    assert signed_in(client, factories.make_user()).post(cancel).status_code == 404
    signed_in(client, owner)
    assert client.get(cancel).status_code == 405
    response = client.post(cancel, follow=True)
    assert response.redirect_chain == [(page(evaluation.submission_id), 302)]
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.CANCELLED
    body = response.content.decode()
    assert "Cancelled 1 queued evaluation." in body and "cancelled" in body and REFRESH not in body
    assert "Cancel queued evaluations" not in body
    response = client.post(cancel, follow=True)
    assert "has no queued evaluation left to cancel" in response.content.decode()
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.CANCELLED


def test_cancel_needs_csrf(owner: AbstractBaseUser, problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    strict = signed_in(Client(enforce_csrf_checks=True), owner)
    assert strict.post(f"{page(evaluation.submission_id)}cancel/").status_code == 403
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.QUEUED


def test_the_page_takes_the_same_queries_however_many_rows(
        client: Client, owner: AbstractBaseUser, problem: Problem, cpu: Hardware) -> None:
    signed_in(client, owner)
    h200 = factories.make_hardware("h200")

    def queries(visible: int, hidden: int) -> int:
        first = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
        second = Evaluation.objects.create(submission=first.submission, hardware=h200, seed=1)
        for evaluation in (first, second):
            scored(evaluation, workloads(problem, visible, 0) + workloads(problem, 0, hidden))
        with CaptureQueriesContext(connection) as captured:
            response = client.get(page(first.submission_id))
        assert response.status_code == 200
        assert response.content.decode().count("<tr") == 1 + 2 + 2 * (1 + visible + 1)
        return len(captured)

    assert queries(1, 1) == queries(3, 3)


def test_my_submissions_newest_first(client: Client, owner: AbstractBaseUser, problem: Problem,
                                     cpu: Hardware) -> None:
    with mock.patch.object(evaluations, "send"):
        older = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu).submission
        newer = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu).submission
        theirs = factories.make_evaluation(problem=problem, hardware=cpu).submission
    assert client.get("/submissions/").status_code == 302
    body = signed_in(client, owner).get("/submissions/").content.decode()
    assert body.index(page(newer.pk)) < body.index(page(older.pk))
    assert page(theirs.pk) not in body
    assert Submission.objects.count() == 3


def test_the_owner_publishes_and_unpublishes_the_source(client: Client, owner: AbstractBaseUser,
                                                         problem: Problem, cpu: Hardware) -> None:
    submission = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu).submission
    signed_in(client, owner)
    body = client.get(page(submission.pk)).content.decode()
    assert "Publish the source" in body and "private: only its owner and the admins may read it" in body
    assert f'action="{page(submission.pk)}publish/"' in body
    response = client.post(f"{page(submission.pk)}publish/", follow=True)
    assert response.redirect_chain == [(page(submission.pk), 302)]
    body = response.content.decode()
    assert "The source is public now" in body and "Unpublish the source" in body
    assert "published: anyone may read it" in body
    submission.refresh_from_db()
    assert submission.published
    body = client.post(f"{page(submission.pk)}unpublish/", follow=True).content.decode()
    assert "The source is private again" in body and "Publish the source" in body
    submission.refresh_from_db()
    assert not submission.published


def test_only_the_owner_publishes(client: Client, owner: AbstractBaseUser, problem: Problem,
                                  cpu: Hardware) -> None:
    submission = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu).submission
    publish = f"{page(submission.pk)}publish/"
    assert client.post(publish).status_code == 302  # to the login page
    staff = factories.make_user()
    staff.is_staff = True
    staff.save()
    signed_in(client, staff)
    assert "Publish the source" not in client.get(page(submission.pk)).content.decode()
    assert client.post(publish).status_code == 404
    signed_in(client, factories.make_user())
    assert client.post(publish).status_code == 404
    signed_in(client, owner)
    assert client.get(publish).status_code == 405
    strict = signed_in(Client(enforce_csrf_checks=True), owner)
    assert strict.post(publish).status_code == 403
    submission.refresh_from_db()
    assert not submission.published
