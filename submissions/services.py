"""Writes that create and cancel submissions (one transaction each), agent submissions (a bundle
expanded into one submission per problem, in one transaction), and the daily quota."""

from __future__ import annotations

import json
import re
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

from .bundles import Bundle
from .models import LANGUAGES, AgentSubmission, Submission

QUOTA_WINDOW = timedelta(hours=24)


class QuotaExceeded(Exception):
    """The participant has used up today's submissions for a problem; the message says when more come."""


class UnknownProblems(Exception):
    """A bundle names problems that do not exist; `names` lists them."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__(f"unknown problem(s) {', '.join(map(repr, names))} in the bundle; nothing of it "
                         "was stored (a bundle's solutions must all be for existing problems)")


class NotCancellable(Exception):
    """Nothing of the submission is still queued, so there is nothing to cancel."""


def create_submission(
    owner: AbstractBaseUser,
    problem: Problem,
    files: SolutionFiles,
    language: str,
    hardware: list[Hardware],
    agent_submission: AgentSubmission | None = None,
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
            owner=owner, problem=problem, language=language, sources=dict(files.files), entry=files.entry,
            agent_submission=agent_submission,
        )
        for hw in hardware:
            evaluation = Evaluation.objects.create(
                submission=submission, hardware=hw, seed=secrets.randbits(48)
            )
            evaluations.enqueue_on_commit(evaluation)
    return submission


def create_agent_submission(owner: AbstractBaseUser, bundle: Bundle,
                            hardware: list[Hardware]) -> AgentSubmission:
    """Store the bundle's manifest and logs, and one submission per problem (its current version) on
    every hardware, all in one transaction. Raises UnknownProblems when a problem does not exist and
    QuotaExceeded when one problem is over the daily quota; either way nothing is stored."""
    if not hardware:
        raise ValueError("an agent submission needs at least one hardware to run on")
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        names = list(bundle.solutions)
        problems = {p.name: p for p in Problem.objects.filter(name__in=names, is_current=True)}
        unknown = [name for name in names if name not in problems]
        if unknown:
            raise UnknownProblems(unknown)
        manifest = bundle.manifest
        agent = AgentSubmission.objects.create(
            owner=owner, name=manifest.name, version=manifest.version, model=manifest.model,
            description=manifest.description, budget_usd=manifest.budget_usd, cost_usd=manifest.cost_usd,
            tokens=manifest.tokens, wall_seconds=manifest.wall_seconds, logs=dict(bundle.logs))
        for name, files in bundle.solutions.items():
            create_submission(owner, problems[name], files, infer_language(files), hardware,
                              agent_submission=agent)
    return agent


_KNOWN_LANGUAGES = {code for code, _ in LANGUAGES}
_IMPORTS_TRITON = re.compile(r"^\s*(import\s+triton\b|from\s+triton\b)", re.MULTILINE)


def infer_language(files: SolutionFiles) -> str:
    """A bundle solution's language: a solution.json's spec.language (cpp counted as cuda), else
    "triton" when a Python source imports triton, else "python"."""
    if files.entry.endswith(".json"):
        try:
            spec = json.loads(files.files[files.entry]).get("spec", {})
        except (ValueError, AttributeError):
            spec = {}
        language = spec.get("language") if isinstance(spec, dict) else None
        if isinstance(language, str):
            language = {"cpp": "cuda", "c++": "cuda"}.get(language.lower(), language.lower())
            if language in _KNOWN_LANGUAGES:
                return language
    if any(path.endswith(".py") and _IMPORTS_TRITON.search(text) for path, text in files.files.items()):
        return "triton"
    return "python"


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
