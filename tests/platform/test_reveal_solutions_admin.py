"""The Problem admin's "reveal solutions" and "hide solutions" actions, and the published column
of the Submission admin. Problems stay read-only there otherwise."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from leaderboard.models import Problem
from submissions.models import Submission
from tests.platform import factories

pytestmark = pytest.mark.django_db
CHANGELIST = reverse("admin:leaderboard_problem_changelist")


def act(client: Client, action: str, *problems: Problem) -> object:
    return client.post(CHANGELIST, {"action": action, "_selected_action": [p.pk for p in problems]},
                       follow=True)


def test_a_superuser_reveals_and_hides_a_problems_solutions(admin_client: Client) -> None:
    problem = factories.make_problem()
    submission = factories.make_evaluation(problem=problem).submission
    anonymous = Client()
    assert anonymous.get(f"/api/v1/submissions/{submission.pk}/source/").status_code == 404
    page = admin_client.get(CHANGELIST).content.decode()
    assert "reveal_solutions" in page and "hide_solutions" in page
    response = act(admin_client, "reveal_solutions", problem)
    assert "Solutions of 1 problem version(s) revealed." in response.content.decode()
    problem.refresh_from_db()
    assert problem.solutions_revealed
    assert anonymous.get(f"/api/v1/submissions/{submission.pk}/source/").status_code == 200
    row = reverse("admin:leaderboard_problem_change", args=[problem.pk])
    assert row in admin_client.get(f"{CHANGELIST}?solutions_revealed__exact=1").content.decode()
    assert row not in admin_client.get(f"{CHANGELIST}?solutions_revealed__exact=0").content.decode()
    act(admin_client, "hide_solutions", problem)
    problem.refresh_from_db()
    assert not problem.solutions_revealed
    assert anonymous.get(f"/api/v1/submissions/{submission.pk}/source/").status_code == 404


def test_staff_without_the_change_permission_cannot_reveal(client: Client) -> None:
    problem = factories.make_problem()
    staff = factories.make_user()
    staff.is_staff = True
    staff.save()
    staff.user_permissions.add(Permission.objects.get(codename="view_problem"))
    client.force_login(staff)
    page = client.get(CHANGELIST)
    assert page.status_code == 200 and "reveal_solutions" not in page.content.decode()
    act(client, "reveal_solutions", problem)
    problem.refresh_from_db()
    assert not problem.solutions_revealed


def test_the_submission_admin_shows_and_filters_published(admin_client: Client) -> None:
    shown = factories.make_evaluation().submission
    Submission.objects.filter(pk=shown.pk).update(published=True)
    changelist = reverse("admin:submissions_submission_changelist")
    page = admin_client.get(changelist).content.decode()
    assert "column-published" in page
    row = reverse("admin:submissions_submission_change", args=[shown.pk])
    assert row in admin_client.get(f"{changelist}?published__exact=1").content.decode()
    assert row not in admin_client.get(f"{changelist}?published__exact=0").content.decode()
