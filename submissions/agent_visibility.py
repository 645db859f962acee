"""Who sees an agent upload and its results. A ranked upload is listed: on the agent board, its
agent's page and the participant's page, its results anyone's to read. A test or benchmark upload is
its owner's and the admins' alone, and never listed (evaluator/modes.py)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q

from evaluator import modes

from .models import AgentSubmission

Viewer = AbstractBaseUser | AnonymousUser | None


def listed(prefix: str = "") -> Q:
    """The uploads every visitor sees (`prefix`: the path to them from the model queried)."""
    return Q(**{f"{prefix}mode": modes.RANKED})


def visible_to(user: Viewer) -> Q:
    """The uploads `user` may read: the listed ones, their own, and every one for an admin."""
    if user is None or not user.is_authenticated:
        return listed()
    if user.is_staff:
        return Q(pk__isnull=False)
    return listed() | Q(owner=user.pk)


def can_view(user: Viewer, agent: AgentSubmission) -> bool:
    if modes.is_ranked(agent.mode):
        return True
    return user is not None and user.is_authenticated and (agent.owner_id == user.pk or user.is_staff)
