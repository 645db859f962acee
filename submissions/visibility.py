"""Who may read a submission's sources: the one rule, used by the API, the pages and templates.

The owner always; staff always; anyone else (signed in or not) only once the owner has published
the submission or an admin has revealed the solutions of its problem (that version's).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q

from .models import Submission


def can_view_source(user: AbstractBaseUser | AnonymousUser | None, submission: Submission) -> bool:
    if user is not None and user.is_authenticated:
        if submission.owner_id == user.pk or user.is_staff:
            return True
    return submission.published or submission.problem.solutions_revealed


def viewable_sources(user: AbstractBaseUser | AnonymousUser | None, prefix: str = "") -> Q:
    """The same rule as a filter on submissions (`prefix`: the path to them, e.g. "submissions__"),
    for counting many at once."""
    rule = Q(**{f"{prefix}published": True}) | Q(**{f"{prefix}problem__solutions_revealed": True})
    if user is not None and user.is_authenticated:
        if user.is_staff:
            return Q(**{f"{prefix}pk__isnull": False})
        rule |= Q(**{f"{prefix}owner": user.pk})
    return rule


__all__ = ["can_view_source", "viewable_sources"]
