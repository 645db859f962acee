"""The dispatcher re-sends queued evaluations whose message was never sent or went unanswered."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from evaluator import services
from evaluator.models import Evaluation
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_stale_and_unsent_are_sent_again_fresh_and_running_are_not(settings) -> None:
    settings.DISPATCH_RESEND_SECONDS = 120
    now = timezone.now()
    problem = factories.make_problem()
    h200 = factories.make_hardware("h200")
    stale = factories.make_evaluation(problem=problem, hardware=h200,
                                      enqueued_at=now - timedelta(seconds=300))
    unsent = factories.make_evaluation(problem=problem)
    factories.make_evaluation(problem=problem, enqueued_at=now - timedelta(seconds=10))
    factories.make_evaluation(problem=problem, state=Evaluation.RUNNING,
                              enqueued_at=now - timedelta(seconds=300))
    factories.make_evaluation(problem=problem, state=Evaluation.SCORED, enqueued_at=None)
    with mock.patch.object(services, "send") as send:
        assert services.dispatch_stale() == 2
        assert sorted(c.args[:2] for c in send.call_args_list) == sorted(
            [(stale.pk, "hw.h200"), (unsent.pk, "hw.cpu")])
        send.reset_mock()
        assert services.dispatch_stale() == 0  # just sent: fresh again
        send.assert_not_called()
    stale.refresh_from_db()
    assert stale.enqueued_at > now - timedelta(seconds=1)


def test_a_failed_send_stays_due() -> None:
    evaluation = factories.make_evaluation()
    with mock.patch.object(services, "send", side_effect=ConnectionError("broker down")):
        assert services.dispatch_stale() == 0
    evaluation.refresh_from_db()
    assert evaluation.enqueued_at is None and evaluation.state == Evaluation.QUEUED


def test_duplicate_messages_are_harmless() -> None:
    evaluation = factories.make_evaluation()
    claims = [services.claim(evaluation.pk, f"worker-{i}") for i in range(3)]
    assert sum(c is not None for c in claims) == 1
