"""claim() admits exactly one worker per attempt, however many messages or workers race for it."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from evaluator import services
from evaluator.models import Evaluation
from tests.platform import factories


@pytest.mark.django_db
def test_second_claim_is_refused() -> None:
    evaluation = factories.make_evaluation()
    first = services.claim(evaluation.pk, "worker-a")
    assert first is not None
    assert (first.state, first.worker, first.attempts) == (Evaluation.RUNNING, "worker-a", 1)
    assert first.started_at is not None and first.lease_until > first.started_at
    assert services.claim(evaluation.pk, "worker-b") is None
    evaluation.refresh_from_db()
    assert (evaluation.worker, evaluation.attempts) == ("worker-a", 1)


@pytest.mark.django_db
@pytest.mark.parametrize("state", [Evaluation.SCORED, Evaluation.FAILED, Evaluation.CANCELLED])
def test_finished_evaluations_cannot_be_claimed(state: str) -> None:
    evaluation = factories.make_evaluation(state=state)
    assert services.claim(evaluation.pk, "worker-a") is None


@pytest.mark.django_db
def test_claiming_a_missing_evaluation_is_quiet() -> None:
    assert services.claim(987654321, "worker-a") is None


@pytest.mark.django_db(transaction=True)
def test_racing_workers_admit_exactly_one() -> None:
    evaluation = factories.make_evaluation()
    racers = 8
    barrier = threading.Barrier(racers)
    won: list[str] = []

    def race(name: str) -> None:
        try:
            barrier.wait()
            if services.claim(evaluation.pk, name) is not None:
                won.append(name)
        finally:
            connection.close()  # each thread had its own connection

    threads = [threading.Thread(target=race, args=(f"worker-{i}",)) for i in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(won) == 1
    evaluation.refresh_from_db()
    assert (evaluation.state, evaluation.worker, evaluation.attempts) == (Evaluation.RUNNING, won[0], 1)
