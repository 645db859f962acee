"""The adaptive attack of issue 17 played against the API and the pages: submissions whose hidden
workloads fail in a chosen way each (wrong value, wrong shape, wrong dtype, an exception, correct),
as a solution keyed on a digit of its input's shape would. Whatever the owner, an admin or an
anonymous visitor fetches (API JSON, the submission page, the part it polls while running) is the
same for all of them except the hidden aggregates: passed count, total and mean score."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import caches
from django.test import Client

from evaluator.hidden_results import stored_progress
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.models import Submission
from tests.api.support import api_user, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
WHEN = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
WRONG = ("INCORRECT_NUMERICAL", "INCORRECT_SHAPE", "INCORRECT_DTYPE", "RUNTIME_ERROR")
# One passed and one failed hidden workload each, the failure of a chosen kind on a chosen workload:
# the six probes of the attack, all with the same aggregates.
PROBES = [("PASSED", wrong) for wrong in WRONG[:3]] + [(wrong, "PASSED") for wrong in WRONG[1:]]


@pytest.fixture(autouse=True)
def empty_caches() -> Iterator[None]:
    for cache in caches.all():
        cache.clear()
    yield
    for cache in caches.all():
        cache.clear()


@pytest.fixture
def owner(db: Any) -> AbstractBaseUser:
    return factories.make_user("prober")


def api_views(submission_id: int, readers: dict[str, Any]) -> dict[str, Any]:
    """The API's submission detail as each reader gets it, ids left out."""
    def without_ids(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: without_ids(v) for k, v in value.items() if k != "id"}
        if isinstance(value, list):
            return [without_ids(v) for v in value]
        return value

    shown = {}
    for name, client in readers.items():
        response = client.get(f"/api/v1/submissions/{submission_id}/")
        shown[name] = (response.status_code, without_ids(response.json()))
    return shown


def page_views(submission_id: int, readers: dict[str, Client]) -> dict[str, str]:
    """The submission page and the part it polls as each reader gets them, its id and CSRF token out."""
    shown = {}
    for name, client in readers.items():
        for path in (f"/submissions/{submission_id}/", f"/submissions/{submission_id}/live/"):
            response = client.get(path)
            assert response.status_code == 200
            body = response.content.decode().replace(f"/submissions/{submission_id}/", "/submissions/N/")
            body = body.replace(f"Submission #{submission_id}", "Submission #N")
            body = body.replace(f'name="a" value="{submission_id}"', 'name="a" value="N"')  # compare with
            shown[f"{name} {path.endswith('live/')}"] = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"',
                                                               "CSRF", body)
    return shown


def readers(owner: AbstractBaseUser) -> tuple[dict[str, Any], dict[str, Client]]:
    admin = api_user(staff=True)
    pages = {"anonymous": Client(), "owner": Client(), "admin": Client()}
    pages["owner"].force_login(owner)
    pages["admin"].force_login(admin)
    return {"owner": client_for(owner), "admin": client_for(admin), "anonymous": client_for(None)}, pages


def test_probes_with_equal_aggregates_read_the_same_everywhere(owner: AbstractBaseUser, problem: Problem,
                                                               cpu: Hardware) -> None:
    api, pages = readers(owner)
    submissions = [factories.make_probe(owner, problem, cpu, verdicts, WHEN) for verdicts in PROBES]
    first_api, first_pages = api_views(submissions[0], api), page_views(submissions[0], pages)
    assert first_api["owner"][0] == first_api["admin"][0] == 200
    assert first_api["owner"][1]["evaluations"][0]["hidden"] == {"passed": 1, "total": 2, "score": 0.25}
    for submission_id in submissions[1:]:
        assert api_views(submission_id, api) == first_api
        assert page_views(submission_id, pages) == first_pages
    for text in [json.dumps(first_api), *first_pages.values()]:
        assert not any(verdict in text for verdict in WRONG), "a hidden verdict is shown"
        assert "got shape" not in text


def test_probes_with_other_aggregates_differ_only_in_them(owner: AbstractBaseUser, problem: Problem,
                                                           cpu: Hardware) -> None:
    api, pages = readers(owner)
    probes = [("PASSED", "PASSED"), ("RUNTIME_ERROR", "INCORRECT_SHAPE"), ("PASSED", "INCORRECT_DTYPE")]
    submissions = [factories.make_probe(owner, problem, cpu, verdicts, WHEN) for verdicts in probes]
    views = [api_views(submission_id, api) for submission_id in submissions]
    hidden = [view["owner"][1]["evaluations"][0]["hidden"] for view in views]
    assert [(h["passed"], h["score"]) for h in hidden] == [(2, 0.5), (0, 0.0), (1, 0.25)]

    def masked(view: dict[str, Any]) -> str:
        """The aggregates out: the evaluation's scores, its aggregates, the hidden summary, and the
        outcome they word ("scored, k of n workloads passed": the hidden passed count, public)."""
        for _, document in view.values():
            for evaluation in document.get("evaluations", []):
                evaluation.update(score=None, aggregates=None, hidden=None, outcome=None)
        return json.dumps(view, sort_keys=True)

    assert masked(views[0]) == masked(views[1]) == masked(views[2])
    numbers = re.compile(r"-?\d+(\.\d+)?")  # the pages show the aggregates as numbers only
    outcome = re.compile(r'<td class="state-[a-z-]+">[^<]*</td>')  # the outcome cell, as above

    def shown(page: str) -> str:
        return numbers.sub("#", outcome.sub("<td>OUTCOME</td>", page))

    bodies = [{k: shown(v) for k, v in page_views(s, pages).items()} for s in submissions]
    assert bodies[0] == bodies[1] == bodies[2]


def test_the_polled_progress_shows_no_hidden_verdict(owner: AbstractBaseUser, problem: Problem,
                                                     cpu: Hardware) -> None:
    _, pages = readers(owner)
    shown = []
    for verdicts in PROBES:
        evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
        Submission.objects.filter(pk=evaluation.submission_id).update(created=WHEN)
        statuses = ["PASSED", "PASSED", *verdicts]
        # As the worker stores it now, and as it stored every verdict before (an older row).
        for progress in (stored_progress(2, 2, statuses), {"visible": 2, "statuses": statuses}):
            Evaluation.objects.filter(pk=evaluation.pk).update(state=Evaluation.RUNNING, progress=progress)
            for cache in caches.all():
                cache.clear()
            shown.append(page_views(evaluation.submission_id, pages))
    assert all(view == shown[0] for view in shown)
    assert "2 hidden workloads: running" in shown[0]["owner True"]
