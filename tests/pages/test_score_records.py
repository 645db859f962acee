"""A problem page's best score over time reads its board's kept records (leaderboard.models.
ScoreRecord, kept by evaluator.rankings), not every evaluation of the board: the same history as
the window over the evaluations gives, after new scores, a reward hack found later and cleared, a
renamed record holder, and records made again from scratch."""

from __future__ import annotations

from typing import Any

import pytest

from evaluator import rankings, services
from leaderboard.models import Hardware, Problem, ScoreRecord
from pages import charts, page_queries
from tests.platform import factories

pytestmark = pytest.mark.django_db


def history(problem: Problem, hardware: Hardware) -> list[tuple[float, str]]:
    return [(record.score, record.user) for record in page_queries.score_history(problem, hardware)]


def from_evaluations(problem: Problem, hardware: Hardware) -> list[tuple[float, str]]:
    """The history as the page read it before: a window over every valid evaluation of the board."""
    from evaluator.models import Evaluation

    evaluations = Evaluation.objects.select_related("submission__owner")
    names = {e.pk: e.submission.owner.username for e in evaluations}
    leading = [(at, score, names[pk]) for pk, at, score in rankings.leading(problem.pk, hardware.pk)]
    return [(record.score, record.user) for record in charts.records(leading)]


@pytest.fixture
def records(problem: Problem, cpu: Hardware) -> list[Any]:
    ada, bob = factories.make_participant("ada"), factories.make_participant("bob")
    made = [factories.make_scored(ada, problem, cpu, 0.3), factories.make_scored(bob, problem, cpu, 0.2),
            factories.make_scored(bob, problem, cpu, 0.5), factories.make_scored(ada, problem, cpu, 0.5)]
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "bob")] == from_evaluations(problem, cpu)
    return made


def test_an_empty_board_has_no_history(problem: Problem, cpu: Hardware) -> None:
    assert history(problem, cpu) == [] and not ScoreRecord.objects.exists()


def test_only_the_few_leading_evaluations_are_kept(problem: Problem, cpu: Hardware,
                                                   records: list[Any]) -> None:
    kept = list(ScoreRecord.objects.order_by("finished_at").values_list("evaluation", flat=True))
    assert kept == [records[0].pk, records[2].pk, records[3].pk]  # a tie is kept, the page shows it once


def test_a_new_record_shows(problem: Problem, cpu: Hardware, records: list[Any]) -> None:
    factories.make_scored(records[1].submission.owner, problem, cpu, 0.4)  # not a record
    factories.make_scored(records[0].submission.owner, problem, cpu, 0.7)
    shown = [(0.3, "ada"), (0.5, "bob"), (0.7, "ada")]
    assert history(problem, cpu) == shown == from_evaluations(problem, cpu)


def test_a_record_found_to_be_a_reward_hack_goes_and_comes_back(problem: Problem, cpu: Hardware,
                                                                  records: list[Any]) -> None:
    admin = factories.make_participant("admin")
    services.mark_reward_hack(records[2], admin, "caught")
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "ada")] == from_evaluations(problem, cpu)
    services.clear_reward_hack(records[2], admin, "false alarm")
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "bob")] == from_evaluations(problem, cpu)


def test_a_renamed_record_holder_shows_at_once(problem: Problem, cpu: Hardware, records: list[Any]) -> None:
    bob = records[2].submission.owner
    bob.username = "robert"
    bob.save()
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "robert")]


def test_an_extra_kept_row_changes_nothing_shown(problem: Problem, cpu: Hardware, records: list[Any]) -> None:
    """Two ingests at once may both keep their evaluation; the page shows only strict improvements."""
    ScoreRecord.objects.create(problem=problem, hardware=cpu, evaluation=records[1],
                               finished_at=records[1].finished_at, score=records[1].score)
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "bob")]


def test_records_made_again_from_scratch_are_the_same(problem: Problem, cpu: Hardware,
                                                       records: list[Any]) -> None:
    kept = set(ScoreRecord.objects.values_list("evaluation", "score"))
    ScoreRecord.objects.all().delete()
    assert rankings.rebuild_all_records() == 1
    assert set(ScoreRecord.objects.values_list("evaluation", "score")) == kept


def test_private_runs_are_never_records(problem: Problem, cpu: Hardware, records: list[Any]) -> None:
    """A benchmark run scored higher than every ranked one is on no board, so in no history."""
    from submissions.models import Submission

    evaluation = factories.make_evaluation(owner=records[0].submission.owner, problem=problem, hardware=cpu)
    Submission.objects.filter(pk=evaluation.submission_id).update(mode="benchmark")
    assert services.claim(evaluation.pk, "factory-worker") is not None
    assert services.ingest(evaluation.pk, "factory-worker", factories.fake_report(evaluation, 0.99))
    evaluation.refresh_from_db()
    assert (evaluation.state, evaluation.score, evaluation.reward_hack) == ("scored", 0.99, False)
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "bob")] == from_evaluations(problem, cpu)
    rankings.rebuild_records(problem.pk, cpu.pk)
    assert history(problem, cpu) == [(0.3, "ada"), (0.5, "bob")]
