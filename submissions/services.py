"""Writes that create and cancel submissions (one transaction each), and the daily quota."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from evaluator import services as evaluations
from evaluator.jobs import SolutionFiles
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem

from .models import Submission

QUOTA_WINDOW = timedelta(hours=24)


class QuotaExceeded(Exception):
    """The participant has used up today's submissions for a problem; the message says when more come."""


class NotCancellable(Exception):
    """Nothing of the submission is still queued, so there is nothing to cancel."""


def create_submission(
    owner: AbstractBaseUser,
    problem: Problem,
    files: SolutionFiles,
    language: str,
    hardware: list[Hardware],
) -> Submission:
    """Store the solution and one queued evaluation per hardware; the messages go out on commit.
    Raises QuotaExceeded, storing nothing, past the owner's daily submissions for the problem."""
    if not hardware:
        raise ValueError("a submission needs at least one hardware to run on")
    with transaction.atomic():
        # One submission of an owner at a time, so two racing requests cannot both take the last slot.
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        _check_quota(owner, problem)
        submission = Submission.objects.create(
            owner=owner, problem=problem, language=language, sources=dict(files.files), entry=files.entry
        )
        for hw in hardware:
            evaluation = Evaluation.objects.create(
                submission=submission, hardware=hw, seed=secrets.randbits(48)
            )
            evaluations.enqueue_on_commit(evaluation)
    return submission


def counted_submissions(owner: AbstractBaseUser, problem: Problem, now: datetime | None = None) -> int:
    """The owner's submissions to the problem (any version) in the last 24 hours that count against
    the quota: all but those whose every evaluation the platform failed."""
    since = (now or timezone.now()) - QUOTA_WINDOW
    platform_failed = Q(evaluations__state=Evaluation.FAILED) & ~Q(evaluations__error="")
    return (Submission.objects.filter(owner=owner, problem__name=problem.name, created__gte=since)
            .annotate(counted=Count("evaluations", filter=~platform_failed))
            .filter(counted__gt=0).count())


def _check_quota(owner: AbstractBaseUser, problem: Problem) -> None:
    limit = settings.SUBMISSIONS_PER_PROBLEM_PER_DAY
    if limit <= 0:  # no quota
        return
    if counted_submissions(owner, problem) >= limit:
        raise QuotaExceeded(
            f"you have made {limit} submissions to {problem.name} in the last 24 hours, the most "
            "allowed; each one counts for 24 hours after it was made, so try again later")


def cancel_submission(submission: Submission) -> int:
    """Cancel the submission's evaluations that no worker has claimed yet; returns how many.
    Raises NotCancellable when none is left queued (running and finished ones stay as they are)."""
    cancelled = Evaluation.objects.filter(submission=submission, state=Evaluation.QUEUED).update(
        state=Evaluation.CANCELLED, finished_at=timezone.now(), lease_until=None)
    if cancelled == 0:
        raise NotCancellable(f"submission #{submission.pk} has no queued evaluation left to cancel: "
                             "a worker has already started or finished every one")
    return cancelled
