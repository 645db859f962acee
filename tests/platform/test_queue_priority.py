"""On a Redis broker, test and benchmark runs go ahead of ranked runs waiting in the same queue
(evaluator/modes.py): with a ranked evaluation sent first and a test run after it, a real Celery
worker that starts then runs the test first."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from evaluator.models import Evaluation
from submissions.services import create_submission
from tests.platform import factories
from tests.platform import test_worker_end_to_end as end_to_end

broker = end_to_end.broker  # the fixture: a flushed Redis database of this xdist process's own


@pytest.mark.django_db(transaction=True)
def test_a_test_run_overtakes_a_waiting_ranked_one(broker: str, tmp_path: Path) -> None:
    cpu, problem, owner = factories.make_hardware("cpu"), factories.make_problem(), factories.make_user()
    ranked = create_submission(owner, problem, factories.solution(), "python", [cpu]).evaluations.get()
    test = create_submission(owner, problem, factories.solution(), "python", [cpu],
                             mode="test").evaluations.get()
    log = tmp_path / "worker.log"
    with end_to_end.celery_worker(broker, log) as worker:  # started once both wait in the queue
        deadline = time.monotonic() + 2 * end_to_end.DEADLINE_SECONDS
        while time.monotonic() < deadline:
            assert worker.poll() is None, log.read_text()[-3000:]
            ranked.refresh_from_db()
            test.refresh_from_db()
            if ranked.state in Evaluation.TERMINAL and test.state in Evaluation.TERMINAL:
                break
            time.sleep(0.2)
    assert ranked.state == test.state == Evaluation.SCORED, log.read_text()[-3000:]
    assert test.started_at < ranked.started_at
    assert test.score is None and ranked.score is not None
