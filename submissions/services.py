"""Writes that create submissions (one transaction each)."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from evaluator import services as evaluations
from evaluator.jobs import SolutionFiles
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem

from .models import Submission


def create_submission(
    owner: AbstractBaseUser,
    problem: Problem,
    files: SolutionFiles,
    language: str,
    hardware: list[Hardware],
) -> Submission:
    """Store the solution and one queued evaluation per hardware; the messages go out on commit."""
    if not hardware:
        raise ValueError("a submission needs at least one hardware to run on")
    with transaction.atomic():
        submission = Submission.objects.create(
            owner=owner, problem=problem, language=language, sources=dict(files.files), entry=files.entry
        )
        for hw in hardware:
            evaluation = Evaluation.objects.create(
                submission=submission, hardware=hw, seed=secrets.randbits(48)
            )
            evaluations.enqueue_on_commit(evaluation)
    return submission
