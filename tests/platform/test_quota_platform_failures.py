"""Evaluations the platform failed (the reaper giving up on a vanished worker, a refusing or broken
evaluator) count against neither limit; everything the participant caused does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions import services
from tests.platform import factories

pytestmark = pytest.mark.django_db


def submit(owner: Any, problem: Problem, cpu: Hardware) -> Evaluation:
    return services.create_submission(owner, problem, factories.solution(), "python", [cpu]).evaluations.get()


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=1, SOLARENA_MAX_CONCURRENT_EVALUATIONS=1,
                   EVALUATION_MAX_ATTEMPTS=1)
def test_the_reapers_give_up_counts_against_no_limit(problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_user()
    evaluation = submit(owner, problem, cpu)
    with pytest.raises(services.QuotaExceeded):
        submit(owner, problem, cpu)
    assert evaluations.claim(evaluation.pk, "vanished-worker") is not None
    Evaluation.objects.filter(pk=evaluation.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert evaluations.reap_expired() == (0, 1)
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.FAILED and "given up" in evaluation.error
    assert services.counted_submissions(owner, problem) == 0 and services.in_flight(owner) == 0
    submit(owner, problem, cpu)  # neither limit refuses it


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=2)
def test_the_participants_own_outcomes_count(problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_user()
    cancelled = submit(owner, problem, cpu)
    services.cancel_submission(cancelled.submission)
    scored_badly = submit(owner, problem, cpu)
    assert evaluations.claim(scored_badly.pk, "w") is not None
    report = factories.fake_report(scored_badly, 0.0, verdict="RUNTIME_ERROR")
    assert evaluations.ingest(scored_badly.pk, "w", report)
    assert services.counted_submissions(owner, problem) == 2
    with pytest.raises(services.QuotaExceeded, match="2 submissions to scale_shift"):
        submit(owner, problem, cpu)


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=1)
def test_a_submission_counts_when_only_some_of_its_evaluations_failed_on_the_platform(
        problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_user()
    h200 = factories.make_hardware("h200")
    submission = services.create_submission(owner, problem, factories.solution(), "python", [cpu, h200])
    evaluations.fail(submission.evaluations.get(hardware=cpu).pk, "the evaluator refused to run it")
    assert services.counted_submissions(owner, problem) == 1
    evaluations.fail(submission.evaluations.get(hardware=h200).pk, "the evaluator failed: OSError")
    assert services.counted_submissions(owner, problem) == 0
