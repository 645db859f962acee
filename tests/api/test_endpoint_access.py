"""Every endpoint of /api/v1/ for each kind of caller: anonymous, the owner of the object, another
signed-in user and an admin (staff). The table is the one in docs/api.md; a refusal stores and
changes nothing."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from rest_framework.response import Response
from rest_framework.test import APIClient

from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import api_user, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
ROLES = ("anonymous", "owner", "other", "admin")
V1 = "/api/v1/"


def bundle() -> SimpleUploadedFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"name": "a", "version": "2", "model": "m"}))
        archive.writestr("scale_shift.py", factories.CORRECT)
    return SimpleUploadedFile("agent.zip", buffer.getvalue())


def submit(api: APIClient, ids: dict[str, int]) -> Response:
    data = {"problem": "scale_shift", "hardware": ["cpu"], "language": "python",
            "sources": {"solution.py": factories.CORRECT}, "entry": "solution.py"}
    return api.post(f"{V1}submissions/", data, format="json")


Request = Callable[[APIClient, dict[str, int]], Response]
ANYONE = dict.fromkeys(ROLES, 200)
SIGNED_IN = {"anonymous": 401, "owner": 200, "other": 200, "admin": 200}
OWNER_OR_ADMIN = {"anonymous": 401, "owner": 200, "other": 404, "admin": 200}
OWNER_ONLY = {"anonymous": 401, "owner": 200, "other": 404, "admin": 403}

# (name, request, expected status per role)
ENDPOINTS: list[tuple[str, Request, dict[str, int]]] = [
    ("GET problems", lambda api, ids: api.get(f"{V1}problems/"), ANYONE),
    ("GET problem", lambda api, ids: api.get(f"{V1}problems/scale_shift/"), ANYONE),
    ("GET hardware", lambda api, ids: api.get(f"{V1}hardware/"), ANYONE),
    ("GET one hardware", lambda api, ids: api.get(f"{V1}hardware/cpu/"), ANYONE),
    ("GET problem board", lambda api, ids: api.get(f"{V1}leaderboards/scale_shift/cpu/"), ANYONE),
    ("GET category board", lambda api, ids: api.get(f"{V1}leaderboards/categories/{ids['category']}/cpu/"),
     ANYONE),
    ("GET agent board", lambda api, ids: api.get(f"{V1}leaderboards/agents/", {"hardware": "cpu"}), ANYONE),
    ("GET agent frontier", lambda api, ids: api.get(f"{V1}agents/frontier/", {"hardware": "cpu"}), ANYONE),
    ("GET schema", lambda api, ids: api.get(f"{V1}schema/"), ANYONE),
    ("GET docs", lambda api, ids: api.get(f"{V1}docs/"), ANYONE),
    ("POST submissions", submit, {"anonymous": 401, "owner": 201, "other": 201, "admin": 201}),
    ("GET submissions", lambda api, ids: api.get(f"{V1}submissions/"), SIGNED_IN),
    ("GET submission", lambda api, ids: api.get(f"{V1}submissions/{ids['submission']}/"), OWNER_OR_ADMIN),
    ("GET private source", lambda api, ids: api.get(f"{V1}submissions/{ids['submission']}/source/"),
     {"anonymous": 404, "owner": 200, "other": 404, "admin": 200}),
    ("GET published source", lambda api, ids: api.get(f"{V1}submissions/{ids['published']}/source/"), ANYONE),
    ("POST cancel", lambda api, ids: api.post(f"{V1}submissions/{ids['submission']}/cancel/"), OWNER_ONLY),
    ("POST publish", lambda api, ids: api.post(f"{V1}submissions/{ids['submission']}/publish/"), OWNER_ONLY),
    ("POST unpublish", lambda api, ids: api.post(f"{V1}submissions/{ids['published']}/unpublish/"),
     OWNER_ONLY),
    ("PUT submission", lambda api, ids: api.put(f"{V1}submissions/{ids['submission']}/", {}),
     {"anonymous": 401, "owner": 405, "other": 405, "admin": 405}),
    ("DELETE submission", lambda api, ids: api.delete(f"{V1}submissions/{ids['submission']}/"),
     {"anonymous": 401, "owner": 405, "other": 405, "admin": 405}),
    ("POST agent submissions", lambda api, ids: api.post(f"{V1}agent-submissions/", {
        "file": bundle(), "hardware": ["cpu"]}, format="multipart"),
     {"anonymous": 401, "owner": 201, "other": 201, "admin": 201}),
    ("GET agent submissions", lambda api, ids: api.get(f"{V1}agent-submissions/"), SIGNED_IN),
    ("GET agent submission", lambda api, ids: api.get(f"{V1}agent-submissions/{ids['agent']}/"),
     OWNER_OR_ADMIN),
    ("DELETE agent submission", lambda api, ids: api.delete(f"{V1}agent-submissions/{ids['agent']}/"),
     {"anonymous": 401, "owner": 405, "other": 405, "admin": 405}),
    ("GET agent results", lambda api, ids: api.get(f"{V1}agent-submissions/{ids['agent']}/results/"), ANYONE),
    ("GET agent compare", lambda api, ids: api.get(f"{V1}agent-submissions/compare/",
                                                   {"a": ids["agent"], "b": ids["agent"]}), ANYONE),
    ("POST problems", lambda api, ids: api.post(f"{V1}problems/", {}), dict.fromkeys(ROLES, 405)),
    ("DELETE hardware", lambda api, ids: api.delete(f"{V1}hardware/cpu/"), dict.fromkeys(ROLES, 405)),
    ("GET evaluation trace", lambda api, ids: api.get(f"{V1}evaluations/{ids['evaluation']}/trace/"),
     {"anonymous": 401, "owner": 409, "other": 404, "admin": 409}),  # queued: no results yet
    ("GET profile report", lambda api, ids: api.get(
        f"{V1}submissions/{ids['submission']}/profile/cpu/any.ncu-rep"),
     dict.fromkeys(ROLES, 404)),  # no profile run here (tests/api/test_profile_report_api.py)
]


def state() -> tuple[Any, ...]:
    """Everything a refused request must leave as it was."""
    return (list(Submission.objects.order_by("pk").values_list("pk", "published")),
            list(Evaluation.objects.order_by("pk").values_list("pk", "state")),
            list(AgentSubmission.objects.values_list("pk", flat=True)),
            list(Hardware.objects.values_list("slug", "active")), Problem.objects.count())


@pytest.mark.parametrize(("name", "send", "expected"), ENDPOINTS, ids=[e[0] for e in ENDPOINTS])
def test_each_endpoint_answers_each_caller(problem: Problem, cpu: Hardware, name: str, send: Request,
                                          expected: dict[str, int]) -> None:
    owner, admin = api_user(), api_user(staff=True)
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    submission = evaluation.submission
    published = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu).submission
    Submission.objects.filter(pk=published.pk).update(published=True)
    agent = AgentSubmission.objects.create(owner=owner, name="a", version="1", model="m")
    Submission.objects.filter(pk=submission.pk).update(agent_submission=agent)
    ids = {"submission": submission.pk, "published": published.pk, "agent": agent.pk,
           "category": problem.category.slug, "evaluation": evaluation.pk}
    users = {"anonymous": None, "owner": owner, "other": api_user(), "admin": admin}
    answered = {}
    for role, user in users.items():
        with transaction.atomic():  # each caller meets the same data: what one request did is undone
            before = state()
            response = send(client_for(user), ids)
            answered[role] = response.status_code
            if response.status_code >= 400:
                assert state() == before, role
                assert factories.CORRECT not in response.content.decode(), role
            transaction.set_rollback(True)
    assert answered == expected
