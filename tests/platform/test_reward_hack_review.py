"""Reward hacks: the harness's REWARD_HACK verdict is kept as evidence for admins (never for the
submitter) and keeps the evaluation off the board; an admin disqualifies (marks) or confirms (clears)
evaluations after a review, and the owner's entry is recomputed from their remaining valid evaluations."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser, Permission
from django.test import Client
from django.urls import reverse

from evaluator import services
from evaluator.harness import status
from evaluator.models import Evaluation
from evaluator.rankings import board
from leaderboard.models import LeaderboardEntry, Problem, Workload
from tests.platform import factories

pytestmark = pytest.mark.django_db
CHANGELIST = reverse("admin:evaluator_evaluation_changelist")
# What the harness would say about a hidden workload: it names the shape, so only admins may read it.
HIDDEN_EVIDENCE = "time.perf_counter was replaced while timing x of shape (37, 1000)"


def scored(score: float, owner: AbstractBaseUser, problem: Problem, hack_message: str | None = None
           ) -> Evaluation:
    """An evaluation ingested from a report; with hack_message, one hidden workload is a REWARD_HACK."""
    evaluation = factories.make_evaluation(owner=owner, problem=problem)
    report = factories.fake_report(evaluation, score)
    if hack_message is not None:
        row = next(r for r in report["workloads"] if r["visibility"] == Workload.HIDDEN)
        row.update(status=status.REWARD_HACK, message=hack_message, score=0.0)
    services.claim(evaluation.pk, "worker-a")
    assert services.ingest(evaluation.pk, "worker-a", report)
    evaluation.refresh_from_db()
    return evaluation


PUBLIC_REASON = "after review in the admin"


def act(client: Client, action: str, *evaluations: Evaluation) -> Any:
    """A review action of the admin, through its page: a disqualification with its public reason
    typed in, the others with none."""
    data = {"action": action, "_selected_action": [e.pk for e in evaluations], "apply": "1",
            "public_reason": PUBLIC_REASON if action == "disqualify" else ""}
    return client.post(CHANGELIST, data, follow=True)


def entry_of(owner: AbstractBaseUser) -> LeaderboardEntry | None:
    return LeaderboardEntry.objects.filter(user=owner).first()


def test_ingest_keeps_the_harness_evidence_and_leaves_the_hack_off_the_board(client: Client) -> None:
    owner, problem = factories.make_user(), factories.make_problem()
    hack = scored(0.9, owner, problem, hack_message=HIDDEN_EVIDENCE)
    assert (hack.state, hack.score, hack.reward_hack) == (Evaluation.SCORED, 0.9, True)
    flagged = hack.results.get(status=status.REWARD_HACK)
    assert f"{flagged.workload.uuid} (hidden): {HIDDEN_EVIDENCE}" in hack.hack_reason
    assert "harness: REWARD_HACK on 1 workload(s)" in hack.hack_reason
    assert hack.hack_marked_by is None and hack.hack_marked_at is None
    assert flagged.message == services.hidden_message(status.REWARD_HACK)
    assert entry_of(owner).score is None  # listed without a score
    assert board(problem.pk, hack.hardware_id) == []

    client.force_login(owner)
    assert "perf_counter" not in client.get(reverse("home")).content.decode()


def test_marking_the_best_falls_back_to_the_next_best_and_clearing_restores_it(
        admin_client: Client, admin_user: AbstractBaseUser) -> None:
    owner, rival, problem = factories.make_user(), factories.make_user(), factories.make_problem()
    best, second = scored(0.9, owner, problem), scored(0.6, owner, problem)
    rivals = scored(0.7, rival, problem)

    response = act(admin_client, "disqualify", best)
    assert "1 evaluation(s) disqualified" in response.content.decode()
    best.refresh_from_db()
    assert best.reward_hack and best.hack_marked_by == admin_user and best.hack_marked_at is not None
    assert (f"{admin_user.username}: marked as a reward hack: disqualified: {PUBLIC_REASON}"
            in best.hack_reason)
    entry = entry_of(owner)
    assert (entry.evaluation, entry.score, entry.submissions) == (second, 0.6, 2)
    assert [e.evaluation for e in board(problem.pk, best.hardware_id)] == [rivals, second]

    act(admin_client, "disqualify", second)
    assert (entry_of(owner).evaluation, entry_of(owner).score, entry_of(owner).submissions) == (None, None, 2)
    assert [e.evaluation for e in board(problem.pk, best.hardware_id)] == [rivals]

    act(admin_client, "confirm", best, second)
    entry = entry_of(owner)
    assert (entry.evaluation, entry.score, entry.submissions) == (best, 0.9, 2)
    best.refresh_from_db()
    assert not best.reward_hack
    marked, cleared = best.hack_reason.index("marked as"), best.hack_reason.index("cleared the")
    assert marked < cleared, "the review history keeps every step, oldest first"
    assert entry_of(rival).evaluation == rivals


def test_a_cleared_harness_flag_counts_again_and_ties_go_to_the_earlier_submission(
        admin_user: AbstractBaseUser) -> None:
    owner, problem = factories.make_user(), factories.make_problem()
    flagged = scored(0.8, owner, problem, hack_message="suspected caching")
    later = scored(0.8, owner, problem)
    assert entry_of(owner).evaluation == later

    services.clear_reward_hack(flagged, admin_user, "the cache was the problem's own")
    entry = entry_of(owner)
    assert (entry.evaluation, entry.submitted_at) == (flagged, flagged.submission.created)
    flagged.refresh_from_db()
    assert "suspected caching" in flagged.hack_reason  # the evidence stays after a clear

    services.mark_reward_hack(flagged, admin_user, "confirmed after all")
    assert entry_of(owner).evaluation == later


def test_a_mark_made_before_a_retry_survives_the_ingest(admin_user: AbstractBaseUser) -> None:
    evaluation = factories.make_evaluation()
    services.mark_reward_hack(evaluation, admin_user, "the same code was caught on another board")
    services.claim(evaluation.pk, "worker-a")
    assert services.ingest(evaluation.pk, "worker-a", factories.fake_report(evaluation, 0.9))
    evaluation.refresh_from_db()
    assert evaluation.reward_hack and "caught on another board" in evaluation.hack_reason
    assert entry_of(evaluation.submission.owner).score is None


def test_the_admin_filters_reward_hacks_and_shows_the_reason_read_only(admin_client: Client) -> None:
    owner, problem = factories.make_user(), factories.make_problem()
    hack, clean = scored(0.9, owner, problem, hack_message=HIDDEN_EVIDENCE), scored(0.5, owner, problem)

    response = admin_client.get(CHANGELIST, {"reward_hack__exact": "1"})
    assert list(response.context["cl"].result_list) == [hack]
    response = admin_client.get(CHANGELIST, {"reward_hack__exact": "0"})
    assert list(response.context["cl"].result_list) == [clean]
    assert "Review: disqualify" in response.content.decode()

    page = admin_client.get(reverse("admin:evaluator_evaluation_change", args=[hack.pk])).content.decode()
    assert HIDDEN_EVIDENCE in page
    assert 'name="hack_reason"' not in page


def test_only_reviewers_reach_the_review(client: Client) -> None:
    evaluation = scored(0.9, factories.make_user(), factories.make_problem())

    client.force_login(factories.make_user())  # a participant, not staff
    assert client.get(CHANGELIST).status_code == 302
    act(client, "disqualify", evaluation)
    evaluation.refresh_from_db()
    assert not evaluation.reward_hack

    viewer = factories.make_user()
    viewer.is_staff = True
    viewer.save()
    viewer.user_permissions.add(Permission.objects.get(codename="view_evaluation"))
    client.force_login(viewer)
    page = client.get(CHANGELIST)
    assert page.status_code == 200 and "Review: disqualify" not in page.content.decode()
    act(client, "disqualify", evaluation)
    evaluation.refresh_from_db()
    assert not evaluation.reward_hack and entry_of(evaluation.submission.owner) is not None
