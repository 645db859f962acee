"""Precomputed ranking entries: each participant's best valid evaluation per (problem, hardware), or
an entry without a score for a participant whose scored evaluations there are all invalid; and each
board's score records (leaderboard.models.ScoreRecord), its best score over time.

A valid evaluation is scored, the one that counts for its submission on its hardware
(evaluator.counting: not replaced by a rescore under a newer harness, not a confirmation run), not a
reward hack, and scores above 0 (at least one workload passed at a believable time).
Evaluations that failed on the platform's side or were cancelled do not count at all: they are not
the participant's doing.

Correct first: an evaluation that failed any workload of the problem (visible or hidden) is beaten
by every valid one that passed them all, whatever the scores; among the correct ones, and among
the incorrect ones, the higher score wins (docs/scoring.md, "Boards").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Case, F, IntegerField, Max, Q, QuerySet, Value, When, Window
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from leaderboard.models import LeaderboardEntry, ScoreRecord

from . import modes
from .counting import COUNTING, counts
from .models import Evaluation
from .scoring.order import CORRECT, INCORRECT, NO_SCORE, rank_key

VALID = COUNTING & Q(reward_hack=False, score__gt=0)
# An entry's standing on its board (evaluator.scoring.order.standing, in SQL).
STANDING = Case(When(score__isnull=True, then=Value(NO_SCORE)), When(failed=0, then=Value(CORRECT)),
                default=Value(INCORRECT), output_field=IntegerField())
# The stable total order of a board: standing, score, earlier submission, user id.
RANK_ORDER = (STANDING.asc(), F("score").desc(nulls_last=True), F("submitted_at").asc(), F("user_id").asc())


def on_boards(prefix: str = "") -> Q:
    """The submissions whose evaluations may enter a board (`prefix`: the path to them, e.g.
    "submission__"): ranked runs, but for the solutions of an agent upload its owner keeps private
    until they publish it (submissions/agent_publication.py recomputes the entries then)."""
    return Q(**{f"{prefix}mode": modes.RANKED}) & (Q(**{f"{prefix}agent_submission__isnull": True})
                                                   | Q(**{f"{prefix}agent_submission__private": False}))


def is_on_boards(submission: Any) -> bool:
    """on_boards() of one submission (a query only for a solution of an agent upload not fetched
    with it; never the upload itself, whose logs can be large)."""
    if not modes.is_ranked(submission.mode):
        return False
    if submission.agent_submission_id is None:
        return True
    if type(submission).agent_submission.is_cached(submission):
        return not submission.agent_submission.private
    return type(submission).objects.filter(on_boards(), pk=submission.pk).exists()


def failed_workloads(evaluation: Evaluation) -> tuple[int, int]:
    """(failed, total): the evaluation's workloads that did not pass, visible and hidden, of all."""
    return _counts(evaluation.aggregates)


def _counts(aggregates: Any) -> tuple[int, int]:
    aggregates = aggregates if isinstance(aggregates, dict) else {}
    total, passed = aggregates.get("total"), aggregates.get("passed")
    if not isinstance(total, int) or not isinstance(passed, int):
        return 0, 0  # an evaluation scored before the counts were kept
    return max(total - passed, 0), total


def is_valid(evaluation: Evaluation) -> bool:
    return (evaluation.state == Evaluation.SCORED and counts(evaluation) and not evaluation.reward_hack
            and evaluation.score is not None and evaluation.score > 0)


def update_entry(evaluation: Evaluation) -> LeaderboardEntry | None:
    """Fold a freshly scored ranked evaluation into its owner's entry, and into its board's score
    records when it is valid and no earlier record scored higher; None (nothing folded in) for a
    solution of a private agent upload. Call inside the ingesting transaction, with the owner's rows
    serialized (see evaluator.services.ingest): publishing takes the same lock, so an evaluation is
    either folded in here or by the recompute that publishing runs."""
    submission = evaluation.submission
    if not modes.is_ranked(submission.mode):
        raise ValueError(f"evaluation #{evaluation.pk} is a {submission.mode} run: it is never ranked")
    if not is_on_boards(submission):
        return None
    key = {"problem_id": submission.problem_id, "hardware_id": evaluation.hardware_id,
           "user_id": submission.owner_id}
    count = _scored(**key).count()
    entry = LeaderboardEntry.objects.select_for_update().filter(**key).first()
    valid = is_valid(evaluation)
    failed, total = failed_workloads(evaluation)
    if valid and evaluation.finished_at is not None:
        add_record(evaluation, submission.problem_id)
    if entry is None:
        best = {"evaluation": evaluation, "score": evaluation.score, "failed": failed, "workloads": total}
        return LeaderboardEntry.objects.create(
            **key, **(best if valid else {"evaluation": None, "score": None}),
            submitted_at=submission.created, submissions=count)
    entry.submissions = count
    if valid and _better((failed, evaluation.score, submission.created), entry):
        entry.evaluation, entry.score, entry.submitted_at = evaluation, evaluation.score, submission.created
        entry.failed, entry.workloads = failed, total
    elif entry.score is None:
        entry.submitted_at = min(entry.submitted_at, submission.created)
    entry.save()
    return entry


def recompute_entry(problem_id: int, hardware_id: int, user_id: int) -> LeaderboardEntry | None:
    """Rebuild a user's entry on one board from all their evaluations, for when one of them stopped
    (or started) counting; the entry goes when none is scored. The board's score records are made
    again too (rebuild_records). Call inside a transaction, with the owner's rows serialized (see
    evaluator.services)."""
    key = {"problem_id": problem_id, "hardware_id": hardware_id, "user_id": user_id}
    rebuild_records(problem_id, hardware_id)
    scored = _scored(**key).select_related("submission")
    candidates = (scored.filter(VALID).annotate(total=Cast(KT("aggregates__total"), IntegerField()),
                                                passed=Cast(KT("aggregates__passed"), IntegerField()))
                  .values_list("pk", "score", "submission__created", "total", "passed"))
    best = min(candidates, key=lambda row: _best_key(*row), default=None)
    if best is not None:
        pk, score, created, total, passed = best
        failed, total = _counts({"total": total, "passed": passed})
        defaults = {"evaluation_id": pk, "score": score, "submitted_at": created, "failed": failed,
                    "workloads": total}
    else:
        first = scored.order_by("submission__created", "pk").first()
        if first is None:
            LeaderboardEntry.objects.filter(**key).delete()
            return None
        defaults = {"evaluation": None, "score": None, "submitted_at": first.submission.created,
                    "failed": 0, "workloads": 0}
    entry, _ = LeaderboardEntry.objects.update_or_create(**key, defaults={**defaults,
                                                                         "submissions": scored.count()})
    return entry


def _best_key(pk: int, score: float, created: datetime, total: int | None,
              passed: int | None) -> tuple[Any, ...]:
    """The order of a participant's valid evaluations, best first: correct ones, higher score,
    earlier submission, lower id."""
    failed, _ = _counts({"total": total, "passed": passed})
    return rank_key(failed, score, created, pk)


def add_record(evaluation: Evaluation, problem_id: int) -> None:
    """Keep a valid evaluation as a record of its board (leaderboard.models.ScoreRecord) when no
    kept record that finished before it scored higher."""
    board = {"problem_id": problem_id, "hardware_id": evaluation.hardware_id}
    finished = evaluation.finished_at
    earlier = ScoreRecord.objects.filter(Q(finished_at__lt=finished)
                                         | Q(finished_at=finished, evaluation_id__lt=evaluation.pk), **board)
    best = earlier.aggregate(best=Max("score"))["best"]
    if best is None or evaluation.score >= best:
        ScoreRecord.objects.update_or_create(evaluation=evaluation, defaults={
            **board, "finished_at": finished, "score": evaluation.score})


def rebuild_records(problem_id: int, hardware_id: int) -> None:
    """A board's records made again from its evaluations, for when one stopped (or started)
    counting: a window over every valid evaluation of the board (the rows it keeps stay few)."""
    board = {"problem_id": problem_id, "hardware_id": hardware_id}
    ScoreRecord.objects.filter(**board).delete()
    ScoreRecord.objects.bulk_create(ScoreRecord(**board, evaluation_id=pk, finished_at=finished, score=score)
                                    for pk, finished, score in leading(problem_id, hardware_id))


def rebuild_all_records() -> int:
    """Every board's records made again (after rows were written around the ORM: benchmarks'
    seeding); how many boards have any."""
    valid = Evaluation.objects.filter(VALID, on_boards("submission__"), state=Evaluation.SCORED,
                                      finished_at__isnull=False)
    boards = list(valid.order_by().values_list("submission__problem_id", "hardware_id").distinct())
    for problem_id, hardware_id in boards:
        rebuild_records(problem_id, hardware_id)
    return len(boards)


def leading(problem_id: int, hardware_id: int) -> list[tuple[int, datetime, float]]:
    """The board's valid evaluations that equal or beat every earlier one (by finish, then id), in
    that order: (id, finished_at, score)."""
    valid = Evaluation.objects.filter(VALID, on_boards("submission__"), submission__problem_id=problem_id,
                                      hardware_id=hardware_id, state=Evaluation.SCORED,
                                      finished_at__isnull=False)
    best = Window(Max("score"), order_by=[F("finished_at").asc(), F("pk").asc()])
    return list(valid.annotate(best=best).filter(score__gte=F("best")).order_by("finished_at", "pk")
                .values_list("pk", "finished_at", "score"))


def _scored(problem_id: int, hardware_id: int, user_id: int) -> QuerySet[Evaluation]:
    """A user's scored ranked evaluations on one board, reward hacks included (they count as
    submissions), only those that count (not those a rescore replaced, not confirmation runs); test
    and benchmark runs are never on a board (evaluator/modes.py), nor private agent uploads'
    solutions (on_boards)."""
    return Evaluation.objects.filter(COUNTING, on_boards("submission__"), state=Evaluation.SCORED,
                                     hardware_id=hardware_id, submission__problem_id=problem_id,
                                     submission__owner_id=user_id)


def _better(candidate: tuple[int, float, datetime], entry: LeaderboardEntry) -> bool:
    """Whether a valid evaluation (failed workloads, score, submitted at) beats the entry's best:
    any beats none; a correct one beats an incorrect one; then the higher score; an equal score
    only if submitted earlier."""
    failed, score, submitted_at = candidate
    return rank_key(failed, score, submitted_at) < rank_key(entry.failed, entry.score, entry.submitted_at)


def board(problem_id: int, hardware_id: int) -> list[LeaderboardEntry]:
    """The ranked entries of one board (those with a valid score), in the stable order: correct on
    every workload first, then the best score, ties to the earlier submission, then to the lower
    user id. leaderboard.boards has the whole
    board, unscored participants included."""
    return list(LeaderboardEntry.objects.filter(problem_id=problem_id, hardware_id=hardware_id,
                                                score__isnull=False)
                .select_related("user").order_by(*RANK_ORDER))
