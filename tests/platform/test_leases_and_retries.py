"""Leases: renewed by their holder only; when one expires the reaper queues the evaluation again,
and after the last attempt fails it with a reason a person can read."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.core.management import call_command
from django.utils import timezone

from evaluator import modes, services
from evaluator.models import Evaluation
from tests.platform import factories

pytestmark = pytest.mark.django_db


def expire(evaluation: Evaluation) -> None:
    Evaluation.objects.filter(pk=evaluation.pk).update(lease_until=timezone.now() - timedelta(seconds=1))


def test_an_expired_lease_goes_back_to_the_queue(django_capture_on_commit_callbacks) -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "worker-a")
    expire(evaluation)
    with mock.patch.object(services, "send") as send:
        with django_capture_on_commit_callbacks(execute=True):
            assert services.reap_expired() == (1, 0)
    send.assert_called_once_with(evaluation.pk, "hw.cpu", modes.priority(modes.RANKED))
    evaluation.refresh_from_db()
    assert (evaluation.state, evaluation.attempts, evaluation.worker) == (Evaluation.QUEUED, 1, "")
    assert evaluation.lease_until is None and evaluation.enqueued_at is not None
    assert services.claim(evaluation.pk, "worker-b").attempts == 2


def test_the_last_attempt_fails_with_a_reason(settings, django_capture_on_commit_callbacks) -> None:
    settings.EVALUATION_MAX_ATTEMPTS = 3
    evaluation = factories.make_evaluation()
    outcomes = []
    with mock.patch.object(services, "send"):
        for attempt in range(3):
            assert services.claim(evaluation.pk, f"worker-{attempt}") is not None
            expire(evaluation)
            with django_capture_on_commit_callbacks(execute=True):
                outcomes.append(services.reap_expired())
    assert outcomes == [(1, 0), (1, 0), (0, 1)]
    evaluation.refresh_from_db()
    assert (evaluation.state, evaluation.attempts) == (Evaluation.FAILED, 3)
    assert "stopped answering 3 times" in evaluation.error
    assert evaluation.finished_at is not None
    assert services.claim(evaluation.pk, "worker-late") is None


def test_live_leases_are_left_alone() -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "worker-a")
    with mock.patch.object(services, "send") as send:
        assert services.reap_expired() == (0, 0)
    send.assert_not_called()
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.RUNNING


def test_only_the_holder_renews_the_lease() -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "worker-a")
    expire(evaluation)
    assert services.renew_lease(evaluation.pk, "worker-b") is False
    evaluation.refresh_from_db()
    assert evaluation.lease_until < timezone.now()
    assert services.renew_lease(evaluation.pk, "worker-a") is True
    evaluation.refresh_from_db()
    assert evaluation.lease_until > timezone.now()


def test_a_worker_that_lost_its_lease_cannot_write(django_capture_on_commit_callbacks) -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "worker-a")
    expire(evaluation)
    with mock.patch.object(services, "send"), django_capture_on_commit_callbacks(execute=True):
        services.reap_expired()
    services.claim(evaluation.pk, "worker-b")
    assert services.renew_lease(evaluation.pk, "worker-a") is False
    assert services.ingest(evaluation.pk, "worker-a", factories.fake_report(evaluation)) is False
    assert services.fail(evaluation.pk, "late failure", worker="worker-a") is False
    evaluation.refresh_from_db()
    assert (evaluation.state, evaluation.worker) == (Evaluation.RUNNING, "worker-b")
    assert not evaluation.results.exists()


def test_sweep_command_reaps_and_dispatches(capsys, django_capture_on_commit_callbacks) -> None:
    running = factories.make_evaluation()
    services.claim(running.pk, "worker-a")
    expire(running)
    unsent = factories.make_evaluation(problem=running.submission.problem)
    with mock.patch.object(services, "send") as send:
        with django_capture_on_commit_callbacks(execute=True):
            call_command("sweep_evaluations")
    # Here the reaper's on-commit send runs after the dispatcher, which also sees it unsent.
    assert "requeued 1, failed 0, resent 2" in capsys.readouterr().out
    assert {c.args[0] for c in send.call_args_list} == {running.pk, unsent.pk}
