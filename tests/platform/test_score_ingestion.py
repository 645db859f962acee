"""Ingestion stores a scored report once, only for the claim's holder, and keeps each user's best
entry per board (higher score; ties to the earlier submission)."""

from __future__ import annotations

from typing import Any

import pytest

from evaluator import services
from evaluator.models import Evaluation, WorkloadResult
from evaluator.rankings import board
from leaderboard.models import LeaderboardEntry, Workload
from tests.platform import factories

pytestmark = pytest.mark.django_db


def scored(score: float, **kwargs: Any) -> Evaluation:
    evaluation = factories.make_evaluation(**kwargs)
    services.claim(evaluation.pk, "worker-a")
    assert services.ingest(evaluation.pk, "worker-a", factories.fake_report(evaluation, score))
    evaluation.refresh_from_db()
    return evaluation


def test_ingest_writes_results_score_and_entry() -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "worker-a")
    report = factories.fake_report(evaluation, 0.7)
    assert services.ingest(evaluation.pk, "worker-a", report) is True
    evaluation.refresh_from_db()
    assert (evaluation.state, evaluation.score) == (Evaluation.SCORED, 0.7)
    assert evaluation.aggregates == report["aggregates"] and evaluation.environment == {"torch": "test"}
    assert evaluation.finished_at is not None and evaluation.lease_until is None
    smoke = Workload.objects.filter(problem=evaluation.submission.problem, smoke=True)
    assert evaluation.results.count() == smoke.count() == len(report["workloads"])
    assert {r.workload.uuid for r in evaluation.results.all()} == {w.uuid for w in smoke}
    entry = LeaderboardEntry.objects.get()
    assert (entry.evaluation, entry.score, entry.submissions) == (evaluation, 0.7, 1)
    assert entry.user == evaluation.submission.owner


def test_a_second_ingest_or_another_worker_changes_nothing() -> None:
    evaluation = scored(0.7)
    again = factories.fake_report(evaluation, 0.9)
    assert services.ingest(evaluation.pk, "worker-a", again) is False
    assert services.ingest(evaluation.pk, "worker-b", again) is False
    evaluation.refresh_from_db()
    assert evaluation.score == 0.7
    assert WorkloadResult.objects.count() == len(again["workloads"])
    assert LeaderboardEntry.objects.get().score == 0.7


def test_a_non_owner_cannot_ingest_a_running_evaluation() -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "worker-a")
    assert services.ingest(evaluation.pk, "intruder", factories.fake_report(evaluation)) is False
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.RUNNING and not evaluation.results.exists()
    assert not LeaderboardEntry.objects.exists()


def test_a_report_naming_an_unknown_workload_writes_nothing() -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "worker-a")
    report = factories.fake_report(evaluation)
    report["workloads"][0]["uuid"] = "no-such-workload"
    with pytest.raises(ValueError, match="no-such-workload"):
        services.ingest(evaluation.pk, "worker-a", report)
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.RUNNING and not evaluation.results.exists()


def test_entry_keeps_the_best_and_counts_submissions() -> None:
    owner, problem = factories.make_user(), factories.make_problem()
    first = scored(0.6, owner=owner, problem=problem)
    scored(0.4, owner=owner, problem=problem)
    entry = LeaderboardEntry.objects.get()
    assert (entry.evaluation, entry.score, entry.submissions) == (first, 0.6, 2)
    best = scored(0.8, owner=owner, problem=problem)
    entry.refresh_from_db()
    assert (entry.evaluation, entry.score, entry.submissions) == (best, 0.8, 3)


def test_ties_go_to_the_earlier_submission() -> None:
    owner, problem = factories.make_user(), factories.make_problem()
    earlier = factories.make_evaluation(owner=owner, problem=problem)
    later = factories.make_evaluation(owner=owner, problem=problem)
    for evaluation in (later, earlier):  # the later submission happens to be scored first
        services.claim(evaluation.pk, "w")
        services.ingest(evaluation.pk, "w", factories.fake_report(evaluation, 0.5))
    assert LeaderboardEntry.objects.get().evaluation == earlier
    again = scored(0.5, owner=owner, problem=problem)  # a later tie does not take over
    entry = LeaderboardEntry.objects.get()
    assert entry.evaluation == earlier and entry.submissions == 3 and again.score == 0.5


def test_boards_rank_best_first_ties_earlier_first() -> None:
    problem = factories.make_problem()
    a = scored(0.5, problem=problem)
    b = scored(0.9, problem=problem)
    c = scored(0.5, problem=problem)
    ranked = [e.evaluation for e in board(problem.pk, a.hardware_id)]
    assert ranked == [b, a, c]


def test_a_reward_hack_is_stored_but_not_ranked() -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "w")
    services.ingest(evaluation.pk, "w", factories.fake_report(evaluation, 0.0, verdict="REWARD_HACK"))
    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.SCORED and evaluation.reward_hack
    entry = LeaderboardEntry.objects.get()  # listed, last and without a score
    assert (entry.evaluation, entry.score, entry.submissions) == (None, None, 1)
    assert board(evaluation.submission.problem_id, evaluation.hardware_id) == []


def test_hidden_rows_keep_status_and_score_but_not_details() -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "w")
    report = factories.fake_report(evaluation, 0.0, verdict="INCORRECT_NUMERICAL",
                                   message="mismatch at shape (17, 251)")
    services.ingest(evaluation.pk, "w", report)
    hidden = evaluation.results.filter(workload__visibility=Workload.HIDDEN)
    visible = evaluation.results.filter(workload__visibility=Workload.VISIBLE)
    assert hidden.exists() and visible.exists()
    for result in hidden:
        assert (result.status, result.score) == ("INCORRECT_NUMERICAL", 0.0)
        assert result.message == services.hidden_message("INCORRECT_NUMERICAL")
        assert "17" not in result.message and "correctness" not in result.raw and "axes" not in result.raw
    assert all(r.message == "mismatch at shape (17, 251)" for r in visible)
