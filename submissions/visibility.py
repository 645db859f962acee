"""Who may read a submission, and its sources: the rules used by the API, the pages and templates.

A ranked submission's page and results are public; a test or benchmark run is its owner's and the
admins' alone, and so is a solution of an agent upload its owner keeps private, until they publish
the upload (submissions/agent_publication.py). Sources: the owner always; staff always; anyone else
(signed in or not) only once the owner has published a public submission or an admin has revealed
the solutions of its problem (that version's).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q

from evaluator.rankings import is_on_boards, on_boards

from .models import Submission


def can_view_source(user: AbstractBaseUser | AnonymousUser | None, submission: Submission) -> bool:
    if _owner_or_staff(user, submission):
        return True
    return is_public(submission) and (submission.published or submission.problem.solutions_revealed)


def is_public(submission: Submission) -> bool:
    """A ranked submission's page and results are anyone's to read; a test or benchmark run, and a
    private agent upload's solution, is its owner's (and the admins') alone, whatever else is said
    of it (evaluator/modes.py). A query for a solution of an agent upload not fetched with it."""
    return is_on_boards(submission)


def can_view(user: AbstractBaseUser | AnonymousUser | None, submission: Submission) -> bool:
    """Whether `user` may read the submission's page and results at all."""
    return is_public(submission) or _owner_or_staff(user, submission)


def _owner_or_staff(user: AbstractBaseUser | AnonymousUser | None, submission: Submission) -> bool:
    return user is not None and user.is_authenticated and (submission.owner_id == user.pk or user.is_staff)


def viewable_sources(user: AbstractBaseUser | AnonymousUser | None, prefix: str = "") -> Q:
    """The same rule as a filter on submissions (`prefix`: the path to them, e.g. "submissions__"),
    for counting many at once."""
    rule = ((Q(**{f"{prefix}published": True}) | Q(**{f"{prefix}problem__solutions_revealed": True}))
            & on_boards(prefix))
    if user is not None and user.is_authenticated:
        if user.is_staff:
            return Q(**{f"{prefix}pk__isnull": False})
        rule |= Q(**{f"{prefix}owner": user.pk})
    return rule


__all__ = ["can_view", "can_view_source", "is_public", "viewable_sources"]
