"""A problem board says why each participant without a valid score has none (a reward hack flagged
by the harness, one disqualified by review, no workload passed, a score of 0) and that a disputed
entry is under review: on the problem page, the full board and its CSV, in public words only."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from django.utils import timezone

from evaluator import services
from evaluator.harness import status
from evaluator.models import Evaluation
from leaderboard.models import Hardware, LeaderboardEntry, Problem, Workload
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = pytest.mark.django_db
HIDDEN_EVIDENCE = "replaced time.perf_counter while timing x of shape (37, 1031)"
REVIEW_NOTE = "it reads the answers of workload 7f3a"
REVIEWER = "moderator-x9"


def ingest(owner: AbstractBaseUser, problem: Problem, cpu: Hardware, score: float,
           change: Callable[[dict[str, Any]], None] = lambda _: None, mode: str = "ranked") -> Evaluation:
    """A submission scored through the real path, its report changed first by `change`."""
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    evaluation.submission.mode = mode
    evaluation.submission.save(update_fields=["mode"])
    report = factories.fake_report(evaluation, score)
    change(report)
    assert services.claim(evaluation.pk, "worker") is not None
    assert services.ingest(evaluation.pk, "worker", report)
    evaluation.refresh_from_db()
    return evaluation


def hidden_hack(report: dict[str, Any]) -> None:
    row = next(r for r in report["workloads"] if r["visibility"] == Workload.HIDDEN)
    row.update(status=status.REWARD_HACK, message=HIDDEN_EVIDENCE, score=0.0)


def every(verdict: str) -> Callable[[dict[str, Any]], None]:
    def change(report: dict[str, Any]) -> None:
        for row in report["workloads"]:
            row.update(status=verdict, score=0.0, message=f"{verdict} at shape (37, 1031)")
        report["aggregates"].update(score=0.0, passed=0)
    return change


def below_sol(report: dict[str, Any]) -> None:
    report["aggregates"].update(score=0.0, below_sol_count=len(report["workloads"]))


@pytest.fixture
def board(problem: Problem, cpu: Hardware) -> dict[str, Any]:
    users = {name: factories.make_participant(name) for name in
             ("ada", "bob", "cal", "dan", "eve", "fay")}
    ingest(users["ada"], problem, cpu, 0.5)
    hack = ingest(users["bob"], problem, cpu, 0.9, hidden_hack)
    ingest(users["cal"], problem, cpu, 0.9, hidden_hack)  # an older one: the latest explains the row
    failed = ingest(users["cal"], problem, cpu, 0.0, every(status.COMPILE_ERROR))
    ingest(users["cal"], problem, cpu, 0.0, hidden_hack, mode="benchmark")  # private: never on the board
    reviewed = ingest(users["dan"], problem, cpu, 0.8)
    services.mark_reward_hack(reviewed, factories.make_participant(REVIEWER), REVIEW_NOTE)
    disputed = ingest(users["eve"], problem, cpu, 0.7)
    Evaluation.objects.filter(pk=disputed.pk).update(confirmation=Evaluation.DISPUTED)
    LeaderboardEntry.objects.filter(evaluation=disputed).update(updated=timezone.now())
    zero = ingest(users["fay"], problem, cpu, 0.0, below_sol)
    return {"hack": hack, "failed": failed, "reviewed": reviewed, "disputed": disputed, "zero": zero}


EXPECTED = {"ada": "", "eve": "disputed: under review", "bob": "reward hack: flagged by the harness",
            "cal": "no workload passed: compile error", "dan": "disqualified by review",
            "fay": "scored 0: faster than the SOL bound allows"}


def secrets(problem: Problem) -> list[str]:
    """What no public reason may show: the evidence, the review, the hidden workloads' names."""
    hidden = Workload.objects.filter(problem=problem, visibility=Workload.HIDDEN).values_list("uuid",
                                                                                               flat=True)
    return [HIDDEN_EVIDENCE, REVIEW_NOTE, "(37, 1031)", REVIEWER, *hidden]


def test_the_csv_has_each_rows_reason(client: Client, problem: Problem, board: dict[str, Any]) -> None:
    response = client.get(f"/boards/problems/{problem.slug}/cpu/?format=csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert {row["user"]: row["status"] for row in rows} == EXPECTED
    assert [row["user"] for row in rows][:2] == ["eve", "ada"]  # the ranked ones first, as before
    assert all(row["rank"] == "" for row in rows if row["user"] not in ("ada", "eve"))


def test_the_full_board_links_each_reason(client: Client, problem: Problem, board: dict[str, Any]) -> None:
    page = client.get(f"/boards/problems/{problem.slug}/cpu/").content.decode()
    rules = f'<a href="/problems/{problem.slug}/#rules">'
    assert f"<td>{rules}reward hack: flagged by the harness</a></td>" in page
    assert f"<td>{rules}disqualified by review</a></td>" in page
    failed = board["failed"].submission_id
    assert f'<td><a href="/submissions/{failed}/">no workload passed: compile error</a></td>' in page
    # "no valid score" links to the submission the reason is about
    hack = board["hack"].submission_id
    assert f'<td class="num unscored"><a href="/submissions/{hack}/">no valid score</a></td>' in page
    assert f'<a href="/submissions/{board["disputed"].submission_id}/">disputed: under review</a>' in page
    assert "status" in page


def test_the_problem_page_says_why(client: Client, problem: Problem, board: dict[str, Any]) -> None:
    page = client.get(f"/problems/{problem.slug}/?hardware=cpu").content.decode()
    for text in EXPECTED.values():
        assert text in page
    hack = board["hack"].submission_id
    assert ('reward hack: flagged by the harness (<a href="/problems/scale_shift/#rules">rules</a>, '
            f'<a href="/submissions/{hack}/">#{hack}</a>)') in page
    failed = board["failed"].submission_id
    assert f'no workload passed: compile error (<a href="/submissions/{failed}/">#{failed}</a>)' in page


def test_no_reason_shows_private_things(client: Client, problem: Problem, board: dict[str, Any]) -> None:
    private = Evaluation.objects.filter(submission__mode="benchmark").get().submission_id
    for url in (f"/boards/problems/{problem.slug}/cpu/", f"/boards/problems/{problem.slug}/cpu/?format=csv",
                f"/problems/{problem.slug}/?hardware=cpu"):
        page = client.get(url).content.decode()
        for secret in secrets(problem):
            assert secret not in page, (url, secret)
        assert f"/submissions/{private}/" not in page


def test_a_new_verdict_changes_the_kept_reason(client: Client, problem: Problem, cpu: Hardware,
                                               board: dict[str, Any], page_clock: PageClock) -> None:
    url = f"/boards/problems/{problem.slug}/cpu/?format=csv"
    client.get(url)  # the board's rows are kept now, under its version
    services.clear_reward_hack(board["reviewed"], factories.make_participant("second"), "a false alarm")
    ingest(board["failed"].submission.owner, problem, cpu, 0.0, every(status.RUNTIME_ERROR))
    page_clock.later()
    rows = {row["user"]: row for row in csv.DictReader(io.StringIO(client.get(url).content.decode()))}
    assert rows["dan"]["status"] == "" and rows["dan"]["rank"] != ""
    assert rows["cal"]["status"] == "no workload passed: runtime error"
