"""Confirmed leaders and rescores, run by a real Celery worker on a real broker: a new leader's
confirmation run is queued, run with a fresh seed and settled by itself; a rescore after a harness
change replaces the leader's evaluation with the one the worker measured under the new harness."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from evaluator import confirmations
from evaluator.harness import HARNESS_VERSION
from evaluator.models import Evaluation
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from submissions.services import create_submission
from tests.platform import factories
from tests.platform import test_worker_end_to_end as end_to_end
from tests.platform.test_shared_baselines import wait_for

broker = end_to_end.broker  # the fixture: a flushed Redis database of this xdist process's own


def submitted(problem: Problem, cpu: Hardware) -> Evaluation:
    """A new participant's working solution, submitted: its one evaluation."""
    submission = create_submission(factories.make_user(), problem, factories.solution(), "python", [cpu])
    return submission.evaluations.get()


def settled(evaluation: Evaluation) -> bool:
    return all(state in Evaluation.TERMINAL for state in
               Evaluation.objects.filter(submission=evaluation.submission).values_list("state", flat=True))


@pytest.mark.django_db(transaction=True)
def test_a_new_leader_is_run_again_and_settled_by_the_worker(broker: str, tmp_path: Path) -> None:
    cpu, problem, log = factories.make_hardware("cpu"), factories.make_problem(), tmp_path / "worker.log"
    with end_to_end.celery_worker(broker, log) as worker:
        evaluation = submitted(problem, cpu)
        wait_for(lambda: Evaluation.objects.filter(confirms=evaluation).exists() and settled(evaluation),
                 worker, log)
    evaluation.refresh_from_db()
    run = Evaluation.objects.get(confirms=evaluation)
    assert evaluation.state == run.state == Evaluation.SCORED, (evaluation.error, run.error)
    assert run.seed != evaluation.seed and run.score is not None
    # The worker's settling said what the rule says of the two scores it measured.
    why = confirmations.disagreement(evaluation, run)
    assert evaluation.confirmation == (Evaluation.DISPUTED if why else Evaluation.CONFIRMED)
    assert confirmations.status(evaluation) == evaluation.confirmation
    if why:
        assert f"confirmation run #{run.pk}" in evaluation.hack_reason
    entry = LeaderboardEntry.objects.get(problem=problem, hardware=cpu)
    assert entry.evaluation == evaluation and entry.score == evaluation.score  # the run never counts


@pytest.mark.django_db(transaction=True)
def test_a_rescore_replaces_the_leaders_evaluation(broker: str, tmp_path: Path) -> None:
    cpu, problem, log = factories.make_hardware("cpu"), factories.make_problem(), tmp_path / "worker.log"
    with end_to_end.celery_worker(broker, log) as worker:
        old = submitted(problem, cpu)
        wait_for(lambda: Evaluation.objects.get(pk=old.pk).state in Evaluation.TERMINAL and settled(old),
                 worker, log)
        Evaluation.objects.filter(pk=old.pk).update(harness_version="an older harness")
        call_command("rescore", "--top", "1")
        new = Evaluation.objects.get(rescore_of=old)
        wait_for(lambda: Evaluation.objects.get(pk=new.pk).state in Evaluation.TERMINAL, worker, log)
    old.refresh_from_db()
    new.refresh_from_db()
    assert new.state == Evaluation.SCORED, new.error
    assert new.harness_version == HARNESS_VERSION and new.seed != old.seed
    assert old.superseded and not new.superseded
    entry = LeaderboardEntry.objects.get(problem=problem, hardware=cpu)
    assert entry.evaluation == new and entry.score == new.score
