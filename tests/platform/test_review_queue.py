"""The review queue (docs/security.md, "Review queue"): the five sources each put an evaluation in the
admin's "needs review" filter with why; confirm takes it out, disqualify (a public reason) takes it
off the board with that reason shown, re-run queues the same submission on the same hardware again,
which replaces it once scored. Each decision is logged and shown on the submission's page and in the
API, without the reviewer's name; only reviewers act."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Permission
from django.core.cache import caches
from django.test import Client

from evaluator import review, services
from evaluator.harness import status
from evaluator.models import Evaluation, ReviewDecision
from evaluator.rankings import board
from evaluator.scoring.score import WorkloadOutcome, problem_aggregates
from leaderboard.models import Hardware, Problem, Workload
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/evaluator/evaluation/"
REASON = "it returns cached outputs instead of computing them"
REVIEWER = "reviewer-q7"


@pytest.fixture(autouse=True)
def empty_caches() -> Iterator[None]:
    for cache in caches.all():
        cache.clear()
    yield


@pytest.fixture
def reviewer(db: Any) -> AbstractBaseUser:
    return get_user_model().objects.create_superuser(REVIEWER, f"{REVIEWER}@example.com", "x")


def scored(problem: Problem, cpu: Hardware, score: float = 0.5, hidden: str = status.PASSED,
           hack: bool = False, below_sol: bool = False, owner: AbstractBaseUser | None = None) -> Evaluation:
    """An evaluation ingested from a report with aggregates as the harness makes them: `hidden` every
    hidden workload's verdict, `hack` one hidden REWARD_HACK, `below_sol` one visible workload faster
    than its bound."""
    evaluation = factories.make_evaluation(owner=owner or factories.make_participant(), problem=problem,
                                           hardware=cpu)
    report = factories.fake_report(evaluation, score)
    rows = report["workloads"]
    hidden_rows = [row for row in rows if row["visibility"] == Workload.HIDDEN]
    for row in hidden_rows:
        if hidden != status.PASSED:
            row.update(status=hidden, score=0.0)
    if hack:
        hidden_rows[0].update(status=status.REWARD_HACK, score=0.0)
    if below_sol:
        first_visible = next(row for row in rows if row["visibility"] == Workload.VISIBLE)
        first_visible.update(below_sol=True, latency_ms=0.01)
    report["aggregates"] = problem_aggregates([
        WorkloadOutcome(uuid=r["uuid"], visibility=r["visibility"], status=r["status"],
                        kernel_ms=r["latency_ms"], reference_ms=r["reference_latency_ms"],
                        baseline_ms=r["baseline_latency_ms"], sol_ms=r["sol_ms"], score=r["score"])
        for r in rows]).to_dict()
    report["aggregates"]["score"] = score
    assert services.claim(evaluation.pk, "w") is not None and services.ingest(evaluation.pk, "w", report)
    evaluation.refresh_from_db()
    return evaluation


def queued(source: str | None = None) -> list[int]:
    return sorted(review.queue(source=source).values_list("pk", flat=True))


def act(client: Client, action: str, *evaluations: Evaluation, reason: str = REASON) -> Any:
    """The action as a reviewer takes it: through its page, with the public reason."""
    data: dict[str, Any] = {"action": action, "_selected_action": [e.pk for e in evaluations],
                            "apply": "1", "public_reason": reason}
    return client.post(CHANGELIST, data, follow=True)


def test_each_source_lands_in_the_queue_with_why(problem: Problem, cpu: Hardware,
                                                 admin_client: Client) -> None:
    clean = scored(problem, cpu, 0.9)
    hack = scored(problem, cpu, 0.8, hack=True)
    below = scored(problem, cpu, 0.7, below_sol=True)
    gap = scored(problem, cpu, 0.6, hidden=status.INCORRECT_NUMERICAL)
    owner = factories.make_participant()
    probes = [Evaluation.objects.get(submission_id=factories.make_probe(owner, problem, cpu, verdicts),
                                     confirms__isnull=True)
              for verdicts in [("PASSED", "PASSED"), ("PASSED", "INCORRECT_NUMERICAL"),
                               ("INCORRECT_NUMERICAL", "INCORRECT_NUMERICAL")]]
    leader = Evaluation.objects.get(pk=clean.pk)
    [run] = Evaluation.objects.filter(confirms=leader)
    assert services.claim(run.pk, "w2") is not None
    assert services.ingest(run.pk, "w2", factories.fake_report(run, 0.2))  # far apart: disputed
    leader.refresh_from_db()
    assert leader.confirmation == Evaluation.DISPUTED

    assert queued(review.REWARD_HACK) == [hack.pk]
    assert queued(review.DISPUTED) == [leader.pk]
    assert queued(review.BELOW_SOL) == [below.pk]
    # the probe whose hidden workloads all failed is a gap too (correctness only: 100% vs 0%)
    assert queued(review.HIDDEN_GAP) == sorted([gap.pk, probes[2].pk])
    assert queued(review.PROBING) == sorted(p.pk for p in probes)
    assert run.pk not in queued() and queued() == sorted([leader.pk, hack.pk, below.pk, gap.pk,
                                                          *(p.pk for p in probes)])

    response = admin_client.get(CHANGELIST, {"review": "queue"})
    assert sorted(e.pk for e in response.context["cl"].result_list) == queued()
    page = response.content.decode()
    assert "needs review because" in page.lower() and "REWARD_HACK flagged by the harness" in page
    assert "below the SOL bound on 1 workload(s)" in page and "disputed by a confirmation run" in page
    assert "probing: 3+ alike visible results" in page and "hidden 0/" in page


def test_half_a_gap_or_a_slower_hidden_shape_is_no_gap(problem: Problem, cpu: Hardware) -> None:
    slower = scored(problem, cpu, 0.5)  # every workload passed: a speed difference never counts
    Evaluation.objects.filter(pk=slower.pk).update(aggregates={**slower.aggregates, "hidden_score": 0.01})
    assert queued(review.HIDDEN_GAP) == []
    gap = review.annotated(Evaluation.objects.filter(pk=slower.pk)).get().correctness_gap
    assert gap == 0.0 and review.HIDDEN_GAP_OVER == 0.5


def test_confirm_takes_it_out_and_a_confirmed_hack_counts_again(problem: Problem, cpu: Hardware,
                                                               admin_client: Client) -> None:
    below = scored(problem, cpu, 0.7, below_sol=True)
    hack = scored(problem, cpu, 0.8, hack=True)
    assert [e.evaluation_id for e in board(problem.pk, cpu.pk)] == [below.pk]

    page = admin_client.post(CHANGELIST, {"action": "confirm", "_selected_action": [below.pk, hack.pk]})
    assert "public_reason" in page.content.decode() and "may be left empty" in page.content.decode()
    response = act(admin_client, "confirm", below, hack, reason="")
    assert "2 evaluation(s) confirmed" in response.content.decode()
    assert queued() == []
    # counted again, after the entries correct on every workload (a REWARD_HACK workload did not pass)
    assert [e.evaluation_id for e in board(problem.pk, cpu.pk)] == [below.pk, hack.pk]
    decision = ReviewDecision.objects.get(evaluation=hack)
    assert (decision.action, decision.reasons, decision.by.username) == ("confirm", ["reward_hack"], "admin")
    assert decision.public_reason == ""


def test_a_confirm_or_rerun_may_say_why_in_public(problem: Problem, cpu: Hardware,
                                                  admin_client: Client) -> None:
    below = scored(problem, cpu, 0.7, below_sol=True)
    gap = scored(problem, cpu, 0.6, hidden=status.INCORRECT_NUMERICAL)
    act(admin_client, "confirm", below, reason="the SOL bound was wrong for this shape; fixed")
    act(admin_client, "rerun", gap, reason="the worker was overheating")
    for evaluation, said in ((below, "confirm"), (gap, "rerun")):
        decision = ReviewDecision.objects.get(evaluation=evaluation)
        assert decision.action == said and decision.public_reason
        page = Client().get(f"/submissions/{evaluation.submission_id}/").content.decode()
        assert decision.public_reason in page


def test_disqualify_takes_it_off_the_board_with_the_public_reason(problem: Problem, cpu: Hardware,
                                                                   reviewer: AbstractBaseUser) -> None:
    first = scored(problem, cpu, 0.9, below_sol=True)
    second = scored(problem, cpu, 0.6)
    staff = Client()
    staff.force_login(reviewer)
    form = act(staff, "disqualify", first, reason="")  # the intermediate page asks for the reason
    assert "public_reason" in form.content.decode() and not Evaluation.objects.get(pk=first.pk).reward_hack

    act(staff, "disqualify", first)
    first.refresh_from_db()
    assert first.reward_hack and first.hack_marked_by == reviewer and queued() == []
    assert [e.evaluation_id for e in board(problem.pk, cpu.pk)] == [second.pk]
    board_api = client_for(None).get(f"/api/v1/leaderboards/{problem.slug}/cpu/").json()
    [unranked] = board_api["unranked"]
    assert unranked["status"] == {"code": "disqualified", "text": f"disqualified by review: {REASON}",
                                  "submission": first.submission_id}
    with pytest.raises(review.ReviewError):
        review.disqualify(second, reviewer, "  ")


def test_rerun_queues_the_same_submission_and_replaces_it_once_scored(problem: Problem, cpu: Hardware,
                                                                       admin_client: Client) -> None:
    gap = scored(problem, cpu, 0.6, hidden=status.INCORRECT_NUMERICAL)
    act(admin_client, "confirm", gap, reason="the hidden shapes failed on a faulty worker")
    act(admin_client, "rerun", gap, reason="run again on a cooler worker")
    [again] = Evaluation.objects.filter(rescore_of=gap)
    assert (again.state, again.submission_id, again.hardware_id) == (
        Evaluation.QUEUED, gap.submission_id, cpu.pk)
    assert ReviewDecision.objects.get(evaluation=gap, action="rerun").rerun == again
    assert queued() == []  # out while it runs again
    response = act(admin_client, "rerun", gap)
    assert "has a re-run queued or running already" in response.content.decode()
    assert Evaluation.objects.filter(rescore_of=gap).count() == 1

    assert services.claim(again.pk, "w") is not None
    assert services.ingest(again.pk, "w", factories.fake_report(again, 0.4))
    gap.refresh_from_db()
    assert gap.superseded and [e.evaluation_id for e in board(problem.pk, cpu.pk)] == [again.pk]
    page = Client().get(f"/submissions/{gap.submission_id}/").content.decode()
    assert "a re-run asked for by review" in page and "re-run (the new run is in this table)" in page
    # the API lists the evaluation that counts now, with the decision on the one it replaced
    body = client_for(gap.submission.owner).get(f"/api/v1/submissions/{gap.submission_id}/").json()
    [shown] = body["evaluations"]
    assert shown["id"] == again.pk
    assert [(r["evaluation"], r["action"], r["public_reason"], r["rerun"]) for r in shown["reviews"]] == [
        (gap.pk, "confirm", "the hidden shapes failed on a faulty worker", None),
        (gap.pk, "rerun", "run again on a cooler worker", again.pk)]


def test_the_log_shows_on_the_submission_page_and_in_the_api(problem: Problem, cpu: Hardware,
                                                              reviewer: AbstractBaseUser) -> None:
    evaluation = scored(problem, cpu, 0.7, below_sol=True)
    before = Client().get(f"/submissions/{evaluation.submission_id}/").content.decode()
    assert "review on" not in before
    review.disqualify(evaluation, reviewer, REASON)

    page = Client().get(f"/submissions/{evaluation.submission_id}/").content.decode()
    assert f"disqualified: {REASON}" in page and REVIEWER not in page
    body = client_for(evaluation.submission.owner).get(f"/api/v1/submissions/{evaluation.submission_id}/")
    [shown] = body.json()["evaluations"]
    [logged] = shown["reviews"]
    assert {k: logged[k] for k in ("evaluation", "action", "public_reason", "rerun")} == {
        "evaluation": evaluation.pk, "action": "disqualify", "public_reason": REASON, "rerun": None}
    assert logged["decided_at"] and REVIEWER not in body.content.decode()
    listed = client_for(evaluation.submission.owner).get("/api/v1/submissions/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert rows[0]["evaluations"][0]["reviews"][0]["action"] == "disqualify"


def test_only_reviewers_act(problem: Problem, cpu: Hardware, client: Client) -> None:
    hack = scored(problem, cpu, 0.8, hack=True)
    client.force_login(factories.make_user())  # a participant
    assert client.get(CHANGELIST, {"review": "queue"}).status_code == 302
    for action in ("confirm", "disqualify", "rerun"):
        act(client, action, hack)

    viewer = factories.make_user()
    viewer.is_staff = True
    viewer.save()
    viewer.user_permissions.add(Permission.objects.get(codename="view_evaluation"))
    client.force_login(viewer)
    page = client.get(CHANGELIST, {"review": "queue"})
    assert page.status_code == 200 and [e.pk for e in page.context["cl"].result_list] == [hack.pk]
    assert "Review: disqualify" not in page.content.decode()
    for action in ("confirm", "disqualify", "rerun"):
        act(client, action, hack)
    hack.refresh_from_db()
    assert hack.hack_marked_by is None and not ReviewDecision.objects.exists()
    assert not Evaluation.objects.filter(rescore_of=hack).exists() and queued() == [hack.pk]
