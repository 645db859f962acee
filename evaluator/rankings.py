"""Precomputed ranking entries: each participant's best valid evaluation per (problem, hardware), or
an entry without a score for a participant whose scored evaluations there are all invalid; and each
board's score records (leaderboard.models.ScoreRecord), its best score over time.

A valid evaluation is scored, not a reward hack, and scores above 0 (at least one workload passed
at a believable time). Evaluations that failed on the platform's side or were cancelled do not
count at all: they are not the participant's doing.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import F, Max, Q, QuerySet, Window

from leaderboard.models import LeaderboardEntry, ScoreRecord

from . import modes
from .models import Evaluation

VALID = Q(reward_hack=False, score__gt=0)
# The stable total order of a board: score (none last), earlier submission, user id.
RANK_ORDER = (F("score").desc(nulls_last=True), F("submitted_at").asc(), F("user_id").asc())


def is_valid(evaluation: Evaluation) -> bool:
    return (evaluation.state == Evaluation.SCORED and not evaluation.reward_hack
            and evaluation.score is not None and evaluation.score > 0)


def update_entry(evaluation: Evaluation) -> LeaderboardEntry:
    """Fold a freshly scored ranked evaluation into its owner's entry, and into its board's score
    records when it is valid and no earlier record scored higher. Call inside the ingesting
    transaction, with the owner's rows serialized (see evaluator.services.ingest)."""
    submission = evaluation.submission
    if not modes.is_ranked(submission.mode):
        raise ValueError(f"evaluation #{evaluation.pk} is a {submission.mode} run: it is never ranked")
    key = {"problem_id": submission.problem_id, "hardware_id": evaluation.hardware_id,
           "user_id": submission.owner_id}
    count = _scored(**key).count()
    entry = LeaderboardEntry.objects.select_for_update().filter(**key).first()
    valid = is_valid(evaluation)
    if valid and evaluation.finished_at is not None:
        add_record(evaluation, submission.problem_id)
    if entry is None:
        return LeaderboardEntry.objects.create(
            **key, evaluation=evaluation if valid else None, score=evaluation.score if valid else None,
            submitted_at=submission.created, submissions=count)
    entry.submissions = count
    if valid and _better(evaluation.score, submission.created, entry):
        entry.evaluation, entry.score, entry.submitted_at = evaluation, evaluation.score, submission.created
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
    scored = _scored(**key).select_related("submission").order_by("-score", "submission__created", "pk")
    best = scored.filter(VALID).first()
    if best is not None:
        defaults = {"evaluation": best, "score": best.score, "submitted_at": best.submission.created}
    else:
        first = scored.order_by("submission__created", "pk").first()
        if first is None:
            LeaderboardEntry.objects.filter(**key).delete()
            return None
        defaults = {"evaluation": None, "score": None, "submitted_at": first.submission.created}
    entry, _ = LeaderboardEntry.objects.update_or_create(**key, defaults={**defaults,
                                                                         "submissions": scored.count()})
    return entry


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
    valid = Evaluation.objects.filter(VALID, state=Evaluation.SCORED, finished_at__isnull=False,
                                      submission__mode=modes.RANKED)
    boards = list(valid.order_by().values_list("submission__problem_id", "hardware_id").distinct())
    for problem_id, hardware_id in boards:
        rebuild_records(problem_id, hardware_id)
    return len(boards)


def leading(problem_id: int, hardware_id: int) -> list[tuple[int, datetime, float]]:
    """The board's valid evaluations that equal or beat every earlier one (by finish, then id), in
    that order: (id, finished_at, score)."""
    valid = Evaluation.objects.filter(VALID, submission__problem_id=problem_id, hardware_id=hardware_id,
                                      state=Evaluation.SCORED, finished_at__isnull=False,
                                      submission__mode=modes.RANKED)
    best = Window(Max("score"), order_by=[F("finished_at").asc(), F("pk").asc()])
    return list(valid.annotate(best=best).filter(score__gte=F("best")).order_by("finished_at", "pk")
                .values_list("pk", "finished_at", "score"))


def _scored(problem_id: int, hardware_id: int, user_id: int) -> QuerySet[Evaluation]:
    """A user's scored ranked evaluations on one board, reward hacks included (they count as
    submissions); test and benchmark runs are never on a board (evaluator/modes.py)."""
    return Evaluation.objects.filter(state=Evaluation.SCORED, hardware_id=hardware_id,
                                     submission__problem_id=problem_id, submission__owner_id=user_id,
                                     submission__mode=modes.RANKED)


def _better(score: float, submitted_at: datetime, entry: LeaderboardEntry) -> bool:
    """Any valid score beats none; higher wins; an equal score wins only if submitted earlier."""
    if entry.score is None:
        return True
    return score > entry.score or (score == entry.score and submitted_at < entry.submitted_at)


def board(problem_id: int, hardware_id: int) -> list[LeaderboardEntry]:
    """The ranked entries of one board (those with a valid score), in the stable order: best first,
    ties to the earlier submission, then to the lower user id. leaderboard.boards has the whole
    board, unscored participants included."""
    return list(LeaderboardEntry.objects.filter(problem_id=problem_id, hardware_id=hardware_id,
                                                score__isnull=False)
                .select_related("user").order_by(*RANK_ORDER))
