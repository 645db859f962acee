"""Who sees an agent upload and its results. A ranked upload is listed: on the agent board, its
agent's page and the participant's page, its results anyone's to read. A test or benchmark upload is
its owner's and the admins' alone, and never listed (evaluator/modes.py); so is a ranked upload its
owner keeps private, until they publish it (submissions/agent_publication.py).

An upload's logs (and its trajectories, submissions/trajectories.py) can quote its sources, so they
follow the sources: its owner's and the admins' always, anyone's once the upload is listed and
every solution of it has a public source (published, or its problem's solutions revealed)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q

from evaluator import modes

from .models import AgentSubmission
from .visibility import viewable_sources

Viewer = AbstractBaseUser | AnonymousUser | None


def listed(prefix: str = "") -> Q:
    """The uploads every visitor sees (`prefix`: the path to them from the model queried)."""
    return Q(**{f"{prefix}mode": modes.RANKED, f"{prefix}private": False})


def is_listed(agent: AgentSubmission) -> bool:
    return modes.is_ranked(agent.mode) and not agent.private


def visible_to(user: Viewer) -> Q:
    """The uploads `user` may read: the listed ones, their own, and every one for an admin."""
    if user is None or not user.is_authenticated:
        return listed()
    if user.is_staff:
        return Q(pk__isnull=False)
    return listed() | Q(owner=user.pk)


def on_agent_pages(user: Viewer) -> Q:
    """The uploads an agent's pages show `user`: the ranked ones they may read (their own private
    ones, marked so, with a button to publish them; test and benchmark runs on no agent page)."""
    return Q(mode=modes.RANKED) & visible_to(user)


def can_view(user: Viewer, agent: AgentSubmission) -> bool:
    return is_listed(agent) or _owner_or_staff(user, agent)


def can_read_logs(user: Viewer, agent: AgentSubmission) -> bool:
    """Whether `user` may read the upload's logs and trajectories (the module's rule): one query
    unless the owner or an admin asks."""
    if _owner_or_staff(user, agent):
        return True
    if not is_listed(agent):
        return False
    hidden = agent.submissions.exclude(viewable_sources(user))
    return agent.submissions.exists() and not hidden.exists()


def _owner_or_staff(user: Viewer, agent: AgentSubmission) -> bool:
    return user is not None and user.is_authenticated and (agent.owner_id == user.pk or user.is_staff)
