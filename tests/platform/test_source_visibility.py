"""submissions.visibility.can_view_source, the one rule of who reads a source, and the
templates/submissions/_source.html include that applies it (escaped, inside <pre><code>)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string

from leaderboard.models import Problem
from submissions.models import Submission
from submissions.visibility import can_view_source
from tests.platform import factories

pytestmark = pytest.mark.django_db
SOURCE = "def run(x):  # <script>alert(1)</script>\n    return x\n"


@pytest.fixture
def submission(db: Any) -> Submission:
    return factories.make_evaluation(source=SOURCE).submission


def people(submission: Submission) -> dict[str, Any]:
    staff = factories.make_user()
    staff.is_staff = True
    return {"anonymous": AnonymousUser(), "none": None, "owner": submission.owner,
            "other": factories.make_user(), "staff": staff}


@pytest.mark.parametrize(("published", "revealed"), list(itertools.product([False, True], repeat=2)))
def test_the_rule(submission: Submission, published: bool, revealed: bool) -> None:
    submission.published = published
    submission.problem.solutions_revealed = revealed
    public = published or revealed
    seen = {role: can_view_source(user, submission) for role, user in people(submission).items()}
    assert seen == {"anonymous": public, "none": public, "owner": True, "other": public, "staff": True}


def test_an_inactive_owner_still_reads_their_own(submission: Submission) -> None:
    owner = submission.owner
    owner.is_active = False
    assert can_view_source(owner, submission)


def render(submission: Submission, user: Any) -> str:
    return render_to_string("submissions/_source.html", {"submission": submission, "user": user})


def test_the_include_shows_the_source_escaped_only_when_allowed(submission: Submission) -> None:
    other = factories.make_user()
    hidden = render(submission, other)
    assert "alert" not in hidden and "The source is private" in hidden
    mine = render(submission, submission.owner)
    assert "<script>" not in mine
    assert "<pre><code>def run(x):  # &lt;script&gt;alert(1)&lt;/script&gt;" in mine
    assert "private: only its owner and the admins may read it" in mine
    Submission.objects.filter(pk=submission.pk).update(published=True)
    submission.refresh_from_db()
    assert "&lt;script&gt;" in render(submission, AnonymousUser())
    assert "published: anyone may read it" in render(submission, other)


def test_the_include_says_when_the_problem_revealed_it(submission: Submission) -> None:
    Problem.objects.filter(pk=submission.problem_id).update(solutions_revealed=True)
    submission = Submission.objects.select_related("problem").get(pk=submission.pk)
    assert "the solutions of this problem are revealed" in render(submission, AnonymousUser())
