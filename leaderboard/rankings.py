"""Precomputed ranking entries: each participant's best valid evaluation per (problem, hardware)."""

from __future__ import annotations

from datetime import datetime

from evaluator.models import Evaluation

from .models import LeaderboardEntry


def update_entry(evaluation: Evaluation) -> LeaderboardEntry | None:
    """Fold a freshly scored evaluation into its owner's entry. Call inside the ingesting
    transaction, with the owner's rows serialized (see evaluator.services.ingest)."""
    submission = evaluation.submission
    key = {"problem_id": submission.problem_id, "hardware_id": evaluation.hardware_id,
             "user_id": submission.owner_id}
    count = Evaluation.objects.filter(
        state=Evaluation.SCORED, hardware_id=evaluation.hardware_id,
        submission__problem_id=submission.problem_id, submission__owner_id=submission.owner_id,
    ).count()
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


def _better(score: float, submitted_at: datetime, entry: LeaderboardEntry) -> bool:
    """Higher wins; an equal score wins only if it was submitted earlier."""
    return score > entry.score or (score == entry.score and submitted_at < entry.submitted_at)


def board(problem_id: int, hardware_id: int) -> list[LeaderboardEntry]:
    """One board, best first; ties go to the earlier submission."""
    return list(LeaderboardEntry.objects.filter(problem_id=problem_id, hardware_id=hardware_id)
                .select_related("user").order_by("-score", "submitted_at"))
