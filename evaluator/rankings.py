"""Precomputed ranking entries: each participant's best valid evaluation per (problem, hardware), or
an entry without a score for a participant whose scored evaluations there are all invalid.

A valid evaluation is scored, not a reward hack, and scores above 0 (at least one workload passed
at a believable time). Evaluations that failed on the platform's side or were cancelled do not
count at all: they are not the participant's doing.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import F, Q, QuerySet

from leaderboard.models import LeaderboardEntry

from . import modes
from .models import Evaluation

VALID = Q(reward_hack=False, score__gt=0)
# The stable total order of a board: score (none last), earlier submission, user id.
RANK_ORDER = (F("score").desc(nulls_last=True), F("submitted_at").asc(), F("user_id").asc())


def is_valid(evaluation: Evaluation) -> bool:
    return (evaluation.state == Evaluation.SCORED and not evaluation.reward_hack
            and evaluation.score is not None and evaluation.score > 0)


def update_entry(evaluation: Evaluation) -> LeaderboardEntry:
    """Fold a freshly scored ranked evaluation into its owner's entry. Call inside the ingesting
    transaction, with the owner's rows serialized (see evaluator.services.ingest)."""
    submission = evaluation.submission
    if not modes.is_ranked(submission.mode):
        raise ValueError(f"evaluation #{evaluation.pk} is a {submission.mode} run: it is never ranked")
    key = {"problem_id": submission.problem_id, "hardware_id": evaluation.hardware_id,
           "user_id": submission.owner_id}
    count = _scored(**key).count()
    entry = LeaderboardEntry.objects.select_for_update().filter(**key).first()
    valid = is_valid(evaluation)
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
    (or started) counting; the entry goes when none is scored. Call inside a transaction, with the
    owner's rows serialized (see evaluator.services)."""
    key = {"problem_id": problem_id, "hardware_id": hardware_id, "user_id": user_id}
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
