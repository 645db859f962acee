"""`solarena cancel ID`, `solarena publish ID` and `solarena unpublish ID` against a live test server:
the owner's actions, with the same messages and exit codes as the other commands."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from evaluator import services as evaluator_services
from evaluator.models import Evaluation
from solarena.cli import main
from submissions.models import Submission
from tests.cli.support import Server
from tests.platform import factories

pytestmark = pytest.mark.timeout(60)


def queued(server: Server, owner: Any = None) -> Evaluation:
    return factories.make_evaluation(owner=owner or server.user, problem=server.problem, hardware=server.cpu)


def test_cancel_cancels_what_is_queued_then_exits_2(logged_in: Server, cli: Any) -> None:
    evaluation = queued(logged_in)
    result = cli("cancel", str(evaluation.submission_id))
    assert result.code == 0, result.err
    assert "cancelled" in result.err and "cpu: cancelled" in result.out
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.CANCELLED
    again = cli("cancel", str(evaluation.submission_id))
    assert again.code == 2 and "has no queued evaluation left to cancel" in again.err


def test_cancel_leaves_running_evaluations_alone(logged_in: Server, cli: Any) -> None:
    running = queued(logged_in)
    h200 = factories.make_hardware("h200")
    waiting = Evaluation.objects.create(submission=running.submission, hardware=h200, seed=1)
    assert evaluator_services.claim(running.pk, "worker") is not None
    document = cli("cancel", str(running.submission_id), "--json").json()
    states = {e["hardware"]: e["state"] for e in document["evaluations"]}
    assert states == {"cpu": "running", "h200": "cancelled"}
    running.refresh_from_db()
    waiting.refresh_from_db()
    assert (running.state, waiting.state) == (Evaluation.RUNNING, Evaluation.CANCELLED)


def test_cancel_of_someone_elses_or_a_missing_submission_exits_2(logged_in: Server, cli: Any) -> None:
    theirs = queued(logged_in, owner=factories.make_user())
    for submission_id in (theirs.submission_id, theirs.submission_id + 1000):
        result = cli("cancel", str(submission_id))
        assert result.code == 2 and f"no submission {submission_id} of yours" in result.err
    theirs.refresh_from_db()
    assert theirs.state == Evaluation.QUEUED


def test_an_admin_cancelling_someone_elses_exits_3(logged_in: Server, cli: Any) -> None:
    logged_in.user.is_staff = True
    logged_in.user.save()
    theirs = queued(logged_in, owner=factories.make_user())
    result = cli("cancel", str(theirs.submission_id))
    assert result.code == 3 and "only the owner may cancel" in result.err
    theirs.refresh_from_db()
    assert theirs.state == Evaluation.QUEUED


def test_owner_commands_need_a_login(server: Server, cli: Any) -> None:
    submission_id = queued(server).submission_id
    for command in ("cancel", "publish", "unpublish"):
        result = cli(command, str(submission_id), "--server", server.url)
        assert result.code == 3 and "not logged in" in result.err, command
    assert Evaluation.objects.get().state == Evaluation.QUEUED


def test_publish_and_unpublish(logged_in: Server, cli: Any) -> None:
    submission = queued(logged_in).submission
    source = f"{logged_in.url}/api/v1/submissions/{submission.pk}/source/"
    assert httpx.get(source).status_code == 404
    published = cli("publish", str(submission.pk))
    assert published.code == 0, published.err
    assert f"submission {submission.pk} is published" in published.out and source in published.out
    read = httpx.get(source)
    assert read.status_code == 200 and read.json()["sources"] == {"solution.py": factories.CORRECT}
    unpublished = cli("unpublish", str(submission.pk), "--json")
    assert unpublished.code == 0 and unpublished.json()["published"] is False
    assert httpx.get(source).status_code == 404
    assert not Submission.objects.get().published


def test_publish_of_someone_elses_submission_exits_2(logged_in: Server, cli: Any) -> None:
    theirs = queued(logged_in, owner=factories.make_user()).submission
    result = cli("publish", str(theirs.pk))
    assert result.code == 2 and f"no submission {theirs.pk} of yours" in result.err
    theirs.refresh_from_db()
    assert not theirs.published



def test_their_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("cancel", "publish", "unpublish"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "exit codes" in out and "cancel,\npublish, unpublish" in out, command
