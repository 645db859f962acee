"""Precomputed ranking entries: each participant's best valid evaluation per (problem, hardware)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import QuerySet

from evaluator.models import Evaluation

from .models import LeaderboardEntry


def update_entry(evaluation: Evaluation) -> LeaderboardEntry | None:
    """Fold a freshly scored evaluation into its owner's entry. Call inside the ingesting
    transaction, with the owner's rows serialized (see evaluator.services.ingest)."""
    submission = evaluation.submission
    key = {"problem_id": submission.problem_id, "hardware_id": evaluation.hardware_id,
             "user_id": submission.owner_id}
    count = _scored(**key).count()
    entry = LeaderboardEntry.objects.select_for_update().filter(**key).first()
    valid = (evaluation.state == Evaluation.SCORED and not evaluation.reward_hack
             and evaluation.score is not None)
    if entry is None:
        if not valid:
            return None
        return LeaderboardEntry.objects.create(**key, evaluation=evaluation, score=evaluation.score,
                                               submitted_at=submission.created, submissions=count)
    entry.submissions = count
    if valid and _better(evaluation.score, submission.created, entry):
        entry.evaluation, entry.score, entry.submitted_at = evaluation, evaluation.score, submission.created
    entry.save()
    return entry


def recompute_entry(problem_id: int, hardware_id: int, user_id: int) -> LeaderboardEntry | None:
    """Rebuild a user's entry on one board from all their evaluations, for when one of them stopped
    (or started) counting; the entry goes when none is valid. Call inside a transaction, with the
    owner's rows serialized (see evaluator.services)."""
    key = {"problem_id": problem_id, "hardware_id": hardware_id, "user_id": user_id}
    scored = _scored(**key)
    best = (scored.filter(reward_hack=False, score__isnull=False).select_related("submission")
            .order_by("-score", "submission__created", "pk").first())
    if best is None:
        LeaderboardEntry.objects.filter(**key).delete()
        return None
    entry, _ = LeaderboardEntry.objects.update_or_create(**key, defaults={
        "evaluation": best, "score": best.score, "submitted_at": best.submission.created,
        "submissions": scored.count()})
    return entry


def _scored(problem_id: int, hardware_id: int, user_id: int) -> QuerySet[Evaluation]:
    """A user's scored evaluations on one board, reward hacks included (they count as submissions)."""
    return Evaluation.objects.filter(state=Evaluation.SCORED, hardware_id=hardware_id,
                                     submission__problem_id=problem_id, submission__owner_id=user_id)


def _better(score: float, submitted_at: datetime, entry: LeaderboardEntry) -> bool:
    """Higher wins; an equal score wins only if it was submitted earlier."""
    return score > entry.score or (score == entry.score and submitted_at < entry.submitted_at)


def board(problem_id: int, hardware_id: int) -> list[LeaderboardEntry]:
    """One board, best first; ties go to the earlier submission."""
    return list(LeaderboardEntry.objects.filter(problem_id=problem_id, hardware_id=hardware_id)
                .select_related("user").order_by("-score", "submitted_at"))
