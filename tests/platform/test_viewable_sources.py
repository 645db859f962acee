"""submissions.visibility.viewable_sources, the rule of can_view_source as a filter (for counting
many submissions at once, as the agent page does for its logs), agrees with can_view_source for
everyone and every state of a submission, directly and through a relation."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db.models import Count

from leaderboard.models import Problem
from submissions.models import AgentSubmission, Submission
from submissions.visibility import can_view_source, viewable_sources
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("published", "revealed"), list(itertools.product([False, True], repeat=2)))
def test_the_filter_is_the_rule(published: bool, revealed: bool) -> None:
    submission = factories.make_evaluation().submission
    Submission.objects.filter(pk=submission.pk).update(published=published)
    Problem.objects.filter(pk=submission.problem_id).update(solutions_revealed=revealed)
    submission.refresh_from_db()
    submission.problem.refresh_from_db()
    agent = AgentSubmission.objects.create(owner=submission.owner, name="bot", version="1", model="m")
    Submission.objects.filter(pk=submission.pk).update(agent_submission=agent)
    staff = factories.make_user()
    staff.is_staff = True
    people: dict[str, Any] = {"anonymous": AnonymousUser(), "none": None, "owner": submission.owner,
                              "other": factories.make_user(), "staff": staff}
    for role, user in people.items():
        expected = can_view_source(user, submission)
        direct = Submission.objects.filter(viewable_sources(user), pk=submission.pk).exists()
        counted = AgentSubmission.objects.filter(pk=agent.pk).aggregate(
            n=Count("submissions", filter=viewable_sources(user, "submissions__")))["n"]
        assert (direct, counted) == (expected, int(expected)), role
