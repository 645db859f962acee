"""A submission creates one queued evaluation per hardware; messages leave only on commit."""

from __future__ import annotations

from unittest import mock

import pytest

from evaluator import modes, services
from evaluator.models import Evaluation
from submissions.services import create_submission
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_one_queued_evaluation_per_hardware_sent_on_commit(django_capture_on_commit_callbacks) -> None:
    cpu, h200 = factories.make_hardware("cpu"), factories.make_hardware("h200")
    with mock.patch.object(services, "send") as send:
        with django_capture_on_commit_callbacks(execute=True):
            submission = create_submission(factories.make_user(), factories.make_problem(),
                                           factories.solution(), "python", [cpu, h200])
            assert send.call_count == 0  # nothing leaves before the commit
    assert send.call_count == 2  # one message per hardware, sent by the commit's callbacks
    evaluations = {e.hardware.slug: e for e in submission.evaluations.select_related("hardware")}
    assert set(evaluations) == {"cpu", "h200"}
    assert {e.state for e in evaluations.values()} == {Evaluation.QUEUED}
    assert all(e.enqueued_at is not None and e.attempts == 0 for e in evaluations.values())
    assert evaluations["cpu"].seed != evaluations["h200"].seed
    assert sorted(c.args[:2] for c in send.call_args_list) == sorted(
        [(evaluations["cpu"].pk, "hw.cpu"), (evaluations["h200"].pk, "hw.h200")])
    assert submission.sources == {"solution.py": factories.CORRECT}
    assert submission.entry == "solution.py"


def test_a_broker_outage_leaves_the_evaluation_for_the_dispatcher(django_capture_on_commit_callbacks) -> None:
    with mock.patch.object(services, "send", side_effect=ConnectionError("broker down")):
        with django_capture_on_commit_callbacks(execute=True):
            submission = create_submission(factories.make_user(), factories.make_problem(),
                                           factories.solution(), "python", [factories.make_hardware()])
    evaluation = submission.evaluations.get()
    assert evaluation.state == Evaluation.QUEUED and evaluation.enqueued_at is None
    with mock.patch.object(services, "send") as send:
        assert services.dispatch_stale() == 1
    send.assert_called_once_with(evaluation.pk, "hw.cpu", modes.priority(modes.RANKED))


def test_a_submission_needs_hardware() -> None:
    with pytest.raises(ValueError, match="at least one hardware"):
        create_submission(factories.make_user(), factories.make_problem(), factories.solution(),
                          "python", [])
