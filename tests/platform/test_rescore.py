"""Harness versions: every evaluation records the harness that measured it, the boards show it, and
`manage.py rescore --top N` evaluates again each board's leaders that an older harness measured.
A scored rescore replaces the old evaluation on the board whatever it scores: a leader that fails
the new harness loses its place."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.cache import caches
from django.core.management import CommandError, call_command
from django.test import Client

from evaluator import services
from evaluator.harness import HARNESS_VERSION
from evaluator.models import Evaluation
from evaluator.rankings import board
from evaluator.rescore import rescore_top
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
OLD = "2000.01.01"


def _old_leaders(problem: Problem, cpu: Hardware) -> dict[str, Evaluation]:
    made = {}
    for name, score in [("ada", 0.9), ("bob", 0.7), ("cyd", 0.5)]:
        made[name] = factories.make_scored(factories.make_participant(name), problem, cpu, score)
    Evaluation.objects.filter(pk__in=[made["ada"].pk, made["bob"].pk]).update(harness_version=OLD)
    return made


def _ingest(evaluation: Evaluation, score: float, verdict: str = "PASSED") -> Evaluation:
    assert services.claim(evaluation.pk, "w") is not None
    report = factories.fake_report(evaluation, score, verdict=verdict)
    report["harness_version"] = HARNESS_VERSION
    assert services.ingest(evaluation.pk, "w", report)
    evaluation.refresh_from_db()
    return evaluation


def test_ingest_records_the_harness_and_the_board_shows_it(problem: Problem, cpu: Hardware) -> None:
    made = _old_leaders(problem, cpu)
    fresh = factories.make_evaluation(owner=made["cyd"].submission.owner, problem=problem, hardware=cpu)
    assert _ingest(fresh, 0.2).harness_version == HARNESS_VERSION
    body = client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/").json()
    assert [(e["user"], e["harness_version"]) for e in body["entries"]] == [
        ("ada", OLD), ("bob", OLD), ("cyd", "unrecorded")]  # cyd's best is still the 0.5 one
    page = Client().get("/boards/problems/scale_shift/cpu/").content.decode()
    assert page.count(f">{OLD}<") == 2


def test_rescore_queues_the_stale_leaders_once(problem: Problem, cpu: Hardware) -> None:
    made = _old_leaders(problem, cpu)
    Evaluation.objects.filter(pk=made["cyd"].pk).update(harness_version=HARNESS_VERSION)
    out = StringIO()
    call_command("rescore", "--top", "3", "--dry-run", stdout=out)
    assert "ada (evaluation" in out.getvalue() and "bob (evaluation" in out.getvalue()
    assert "cyd" not in out.getvalue() and "0 rescore(s) queued" in out.getvalue()
    assert not Evaluation.objects.filter(rescore_of__isnull=False).exists()

    call_command("rescore", "--top", "1", stdout=out)  # the leader only
    [queued] = Evaluation.objects.filter(rescore_of__isnull=False)
    assert (queued.rescore_of_id, queued.submission_id, queued.state) == (
        made["ada"].pk, made["ada"].submission_id, Evaluation.QUEUED)
    assert [r.new for r in rescore_top(1)] == [None]  # already pending: nothing more
    with pytest.raises(CommandError, match="at least 1"):
        call_command("rescore", "--top", "0")


def test_a_leader_that_fails_the_new_harness_leaves_the_board(problem: Problem, cpu: Hardware) -> None:
    made = _old_leaders(problem, cpu)
    [item] = rescore_top(1)
    assert item.new is not None
    _ingest(item.new, 0.95, verdict="REWARD_HACK")
    made["ada"].refresh_from_db()
    assert made["ada"].superseded
    assert [e.user.username for e in board(problem.pk, cpu.pk)] == ["bob", "cyd"]
    entry = LeaderboardEntry.objects.get(user=made["ada"].submission.owner)
    assert (entry.score, entry.submissions) == (None, 1)  # the rescore counts, the replaced one not
    why = f"reward hack: flagged by the harness (rescored under harness {HARNESS_VERSION})"
    body = client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/").json()
    assert "ada" not in {e["user"] for e in body["entries"]}
    [row] = [e for e in body["unranked"] if e["user"] == "ada"]
    assert why in str(row)
    for kept in caches.all():  # an earlier test's copy of the page (platform tests keep no page cache apart)
        kept.clear()
    assert why in Client().get("/boards/problems/scale_shift/cpu/").content.decode()


def test_a_rescored_leader_is_placed_by_the_new_harness(problem: Problem, cpu: Hardware) -> None:
    _old_leaders(problem, cpu)
    items: list[Any] = rescore_top(2)
    _ingest(items[0].new, 0.88)
    _ingest(items[1].new, 0.4)  # bob is slower under the new harness: below cyd now
    ranked = board(problem.pk, cpu.pk)
    assert [(e.user.username, e.score, e.evaluation.harness_version) for e in ranked] == [
        ("ada", 0.88, HARNESS_VERSION), ("cyd", 0.5, ""), ("bob", 0.4, HARNESS_VERSION)]
    assert rescore_top(2)[0].entry.user.username == "cyd"  # cyd's is stale now among the top 2


def test_pages_and_compare_read_the_rescore_that_counts(problem: Problem, cpu: Hardware) -> None:
    from submissions.compare import compare

    made = _old_leaders(problem, cpu)
    [item] = rescore_top(1)
    assert compare(made["ada"].submission_id, made["bob"].submission_id).a.score == 0.9  # still pending
    _ingest(item.new, 0.85)
    found = compare(made["ada"].submission_id, made["bob"].submission_id)
    assert (found.a.score, found.b.score) == (0.85, 0.7)
    text = Client().get(f"/submissions/{made['ada'].submission_id}/").content.decode()
    assert "replaced on the boards by a rescore" in text
    assert ("a rescore of the evaluation measured by an older harness "
            f"(this one: harness {HARNESS_VERSION})") in text
