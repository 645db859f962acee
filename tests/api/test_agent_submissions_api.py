"""POST/GET /api/v1/agent-submissions/ and the agent board: a bundle expands into one submission per
problem and hardware in one transaction, bad bundles and unknown problems store nothing, only the
owner sees an agent submission, and the status and suite scores follow the evaluations."""

from __future__ import annotations

import io
import json
import tarfile
import zipfile
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.response import Response
from rest_framework.test import APIClient

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.bundles import DEFAULT_LIMITS
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for
from tests.conftest import SCALE_SHIFT_TRITON
from tests.platform import factories

pytestmark = pytest.mark.django_db
AGENTS = "/api/v1/agent-submissions/"
BOARD = "/api/v1/leaderboards/agents/"
MANIFEST: dict[str, Any] = {"name": "kernel-agent", "version": "1.2.0", "model": "some-llm-2026-01",
                            "description": "Writes Triton kernels.", "budget_usd": 50, "cost_usd": 12.5,
                            "tokens": 1_200_000, "wall_seconds": 3600, "logs": ["logs/agent.log"]}
LOG = "step 1: wrote a kernel\n"


def solution_json(language: str = "pytorch") -> str:
    return json.dumps({"spec": {"languages": [language], "entry_point": "kernel.py::run"},
                       "sources": [{"path": "kernel.py", "content": factories.CORRECT}]})


def good_files(**manifest: Any) -> dict[str, str]:
    return {"manifest.json": json.dumps({**MANIFEST, **manifest}),
            "scale_shift.py": factories.CORRECT,
            "scale_shift_v2/solution.py": SCALE_SHIFT_TRITON,
            "scale_shift_json/solution.json": solution_json(),
            "logs/agent.log": LOG}


def zipped(files: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, content in files.items():
            archive.writestr(path, content)
    return buffer.getvalue()


def send_bundle(client: APIClient, data: bytes, hardware: list[str] | None = None,
                name: str = "agent.zip") -> Response:
    return client.post(AGENTS, {"file": SimpleUploadedFile(name, data),
                                "hardware": hardware if hardware is not None else ["cpu"]},
                       format="multipart")


def another_problem(name: str) -> Problem:
    """A copy of the fixture problem under another name (enough for storing submissions)."""
    base = Problem.objects.get(name="scale_shift", is_current=True)
    return Problem.objects.create(name=name, category=base.category, task_type=base.task_type,
                                  definition=base.definition, definition_hash=base.definition_hash)


@pytest.fixture
def problems(problem: Problem) -> list[Problem]:
    return [problem, another_problem("scale_shift_v2"), another_problem("scale_shift_json")]


def nothing_stored() -> bool:
    return not (AgentSubmission.objects.exists() or Submission.objects.exists()
                or Evaluation.objects.exists())


def test_a_bundle_expands_into_one_submission_per_problem_and_hardware(
        problems: list[Problem], cpu: Hardware, django_capture_on_commit_callbacks: Any) -> None:
    user = factories.make_user()
    factories.make_hardware("h200")
    with mock.patch.object(evaluations, "send") as send:
        with django_capture_on_commit_callbacks(execute=True):
            response = send_bundle(client_for(user), zipped(good_files()), hardware=["cpu", "h200"])
    assert response.status_code == 201, response.json()
    body = response.json()
    agent = AgentSubmission.objects.get()
    assert body["id"] == agent.pk and agent.owner == user
    assert (agent.name, agent.version, agent.model, agent.description) == (
        "kernel-agent", "1.2.0", "some-llm-2026-01", "Writes Triton kernels.")
    assert (agent.budget_usd, agent.cost_usd, agent.tokens, agent.wall_seconds) == (50, 12.5, 1_200_000, 3600)
    assert agent.logs == {"logs/agent.log": LOG} and body["logs"] == agent.logs
    submissions = {s.problem.name: s for s in Submission.objects.select_related("problem")}
    assert set(submissions) == {"scale_shift", "scale_shift_v2", "scale_shift_json"}
    assert all(s.owner == user and s.agent_submission == agent and s.problem.is_current
               for s in submissions.values())
    assert {name: s.language for name, s in submissions.items()} == {
        "scale_shift": "python", "scale_shift_v2": "triton", "scale_shift_json": "python"}
    assert submissions["scale_shift"].sources == {"scale_shift.py": factories.CORRECT}
    assert submissions["scale_shift_v2"].entry == "solution.py"
    assert submissions["scale_shift_json"].entry == "solution.json"
    assert Evaluation.objects.filter(state=Evaluation.QUEUED).count() == 6
    assert sorted(call.args[1] for call in send.call_args_list) == ["hw.cpu"] * 3 + ["hw.h200"] * 3
    assert body["status"] == "queued"
    assert [(s["hardware"], s["status"], s["score"], s["problems"]) for s in body["suites"]] == [
        ("cpu", "queued", 0.0, 3), ("h200", "queued", 0.0, 3)]
    listed = client_for(user).get(AGENTS).json()
    assert [a["id"] for a in listed["results"]] == [agent.pk] and "logs" not in listed["results"][0]


def test_a_tar_gz_with_a_wrapping_directory_is_accepted(problems: list[Problem], cpu: Hardware) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, content in good_files().items():
            data = content.encode()
            info = tarfile.TarInfo(f"kernel-agent-1.2.0/{path}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    response = send_bundle(client_for(factories.make_user()), buffer.getvalue(), name="agent.tar.gz")
    assert response.status_code == 201, response.json()
    assert Submission.objects.count() == 3


def test_an_unknown_problem_refuses_the_whole_bundle(problems: list[Problem], cpu: Hardware) -> None:
    files = {**good_files(), "no_such_problem.py": factories.CORRECT,
             "nor_this/solution.py": factories.CORRECT}
    response = send_bundle(client_for(factories.make_user()), zipped(files))
    assert response.status_code == 400, response.content
    message = response.json()["file"][0]
    assert "'no_such_problem'" in message and "'nor_this'" in message and "scale_shift'" not in message
    assert nothing_stored()


def test_an_old_version_is_not_a_current_problem(problems: list[Problem], cpu: Hardware) -> None:
    Problem.objects.filter(name="scale_shift_json").update(is_current=False)
    response = send_bundle(client_for(factories.make_user()), zipped(good_files()))
    assert response.status_code == 400 and "scale_shift_json" in response.json()["file"][0]
    assert nothing_stored()


def traversal() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, content in good_files().items():
            archive.writestr(path, content)
        archive.writestr(zipfile.ZipInfo("../evil.py"), factories.CORRECT)
    return buffer.getvalue()


BAD_BUNDLES = [
    ("path traversal", traversal, "path traversal"),
    ("not an archive", lambda: factories.CORRECT.encode(), "not a zip or tar.gz"),
    ("broken zip", lambda: zipped(good_files())[:60], "not a readable zip"),
    ("empty upload", lambda: b"", "empty"),
    ("manifest not JSON", lambda: zipped({**good_files(), "manifest.json": "{name: 1"}), "not valid JSON"),
    ("manifest missing a key", lambda: zipped({**good_files(), "manifest.json": json.dumps({"name": "a"})}),
     "missing required key"),
    ("manifest unknown key", lambda: zipped({**good_files(), "manifest.json": json.dumps(
        {**MANIFEST, "nmae": "x"})}), "unknown key"),
    ("no manifest", lambda: zipped({k: v for k, v in good_files().items() if k != "manifest.json"}),
     "no manifest.json"),
    ("duplicate problem", lambda: zipped({**good_files(), "scale_shift/solution.py": factories.CORRECT}),
     "duplicate problem 'scale_shift'"),
    ("nested archive", lambda: zipped({**good_files(), "scale_shift_v2/solution.py": zipped({"a.py": "x"})}),
     "archive inside the bundle"),
]


@pytest.mark.parametrize(("case", "archive", "words"), BAD_BUNDLES, ids=[case[0] for case in BAD_BUNDLES])
def test_a_bad_bundle_is_refused_with_its_message_and_nothing_is_stored(
        problems: list[Problem], cpu: Hardware, case: str, archive: Any, words: str) -> None:
    response = send_bundle(client_for(factories.make_user()), archive())
    assert response.status_code == 400, response.content
    assert words in response.json()["file"][0], response.json()
    assert nothing_stored()


def test_an_archive_over_the_limit_gets_413(problems: list[Problem], cpu: Hardware) -> None:
    with mock.patch("api.serializers.DEFAULT_LIMITS", DEFAULT_LIMITS.__class__(max_archive_bytes=100)):
        response = send_bundle(client_for(factories.make_user()), zipped(good_files()))
    assert response.status_code == 413, response.content
    assert "over the limit" in response.json()["file"][0]
    assert nothing_stored()


def test_unknown_hardware_and_missing_fields_are_refused(problems: list[Problem], cpu: Hardware) -> None:
    api = client_for(factories.make_user())
    response = send_bundle(api, zipped(good_files()), hardware=["cpu", "tpu9"])
    assert response.status_code == 400 and "tpu9" in str(response.json()["hardware"])
    assert api.post(AGENTS, {"hardware": ["cpu"]}, format="multipart").status_code == 400
    assert nothing_stored()


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=1)
def test_a_quota_failure_on_one_problem_refuses_the_whole_bundle(
        problems: list[Problem], cpu: Hardware) -> None:
    user = factories.make_user()
    factories.make_evaluation(owner=user, problem=Problem.objects.get(name="scale_shift_v2"), hardware=cpu)
    response = send_bundle(client_for(user), zipped(good_files()))
    assert response.status_code == 429 and "scale_shift_v2" in response.json()["detail"]
    assert not AgentSubmission.objects.exists() and Submission.objects.count() == 1


def test_anonymous_401_and_others_404(problems: list[Problem], cpu: Hardware) -> None:
    owner, other = factories.make_user(), factories.make_user()
    assert send_bundle(client_for(None), zipped(good_files())).status_code == 401
    agent_id = send_bundle(client_for(owner), zipped(good_files())).json()["id"]
    assert client_for(None).get(f"{AGENTS}{agent_id}/").status_code == 401
    response = client_for(other).get(f"{AGENTS}{agent_id}/")
    assert response.status_code == 404 and LOG not in response.content.decode()
    assert client_for(other).get(AGENTS).json()["count"] == 0
    admin = factories.make_user()
    admin.is_staff = True
    admin.save()
    opened = client_for(admin).get(f"{AGENTS}{agent_id}/")
    assert opened.status_code == 200 and opened.json()["logs"] == {"logs/agent.log": LOG}


def set_evaluations(agent_id: int, hardware: str, **by_problem: dict[str, Any]) -> None:
    for problem, fields in by_problem.items():
        Evaluation.objects.filter(submission__agent_submission_id=agent_id, hardware__slug=hardware,
                                  submission__problem__name=problem).update(**fields)


def scored(score: float, **fields: Any) -> dict[str, Any]:
    return {"state": Evaluation.SCORED, "score": score, **fields}


def test_status_and_suite_scores_follow_the_evaluations(problems: list[Problem], cpu: Hardware) -> None:
    user = factories.make_user()
    factories.make_hardware("h200")
    api = client_for(user)
    agent_id = send_bundle(api, zipped(good_files()), hardware=["cpu", "h200"]).json()["id"]

    def report() -> tuple[str, dict[str, tuple[str, float, int]]]:
        body = api.get(f"{AGENTS}{agent_id}/").json()
        return body["status"], {s["hardware"]: (s["status"], round(s["score"], 6), s["scored"])
                                for s in body["suites"]}

    set_evaluations(agent_id, "cpu", scale_shift={"state": Evaluation.RUNNING})
    assert report() == ("running", {"cpu": ("running", 0.0, 0), "h200": ("queued", 0.0, 0)})
    set_evaluations(agent_id, "cpu", scale_shift=scored(0.9), scale_shift_v2=scored(0.6),
                    scale_shift_json={"state": Evaluation.FAILED})
    assert report() == ("running", {"cpu": ("done", 0.5, 2), "h200": ("queued", 0.0, 0)})
    set_evaluations(agent_id, "h200", scale_shift=scored(0.3), scale_shift_v2=scored(0.8, reward_hack=True),
                    scale_shift_json={"state": Evaluation.CANCELLED})
    assert report() == ("done", {"cpu": ("done", 0.5, 2), "h200": ("done", 0.1, 1)})
    # A missing evaluation counts 0 as well.
    Evaluation.objects.filter(submission__agent_submission_id=agent_id, hardware__slug="cpu",
                              submission__problem__name="scale_shift").delete()
    assert report() == ("done", {"cpu": ("done", 0.2, 1), "h200": ("done", 0.1, 1)})


def test_a_problem_missing_from_the_bundle_counts_0(problems: list[Problem], cpu: Hardware) -> None:
    another_problem("scale_shift_extra")  # in the suite, not in the bundle
    api = client_for(factories.make_user())
    agent_id = send_bundle(api, zipped(good_files())).json()["id"]
    set_evaluations(agent_id, "cpu", scale_shift=scored(0.9), scale_shift_v2=scored(0.6),
                    scale_shift_json=scored(0.3))
    (suite,) = api.get(f"{AGENTS}{agent_id}/").json()["suites"]
    assert (suite["problems"], suite["scored"], round(suite["score"], 6)) == (4, 3, 0.45)
    (entry,) = client_for(None).get(BOARD, {"hardware": "cpu"}).json()["entries"]
    assert round(entry["score"], 6) == 0.45


def upload_scored(user: AbstractBaseUser, scores: list[float], **manifest: Any) -> int:
    agent_id = send_bundle(client_for(user), zipped(good_files(**manifest))).json()["id"]
    names = ["scale_shift", "scale_shift_v2", "scale_shift_json"]
    set_evaluations(agent_id, "cpu",
                    **{name: scored(score) for name, score in zip(names, scores, strict=True)})
    return agent_id


def test_the_agent_board_ranks_each_finished_upload(problems: list[Problem], cpu: Hardware) -> None:
    alice, bob = factories.make_user("alice"), factories.make_user("bob")
    alice_first = upload_scored(alice, [0.3, 0.3, 0.3], version="1.0")   # 0.3
    best_alice = upload_scored(alice, [0.9, 0.6, 0.3], version="2.0")    # 0.6
    other = upload_scored(alice, [0.6, 0.0, 0.0], name="other-agent")    # 0.2, another agent
    bob_first = upload_scored(bob, [0.6, 0.6, 0.3])                      # 0.5
    bob_later = upload_scored(bob, [0.5, 0.5, 0.5], version="1.3.0")     # 0.5, a tie: the earlier first
    unfinished = send_bundle(client_for(bob), zipped(good_files(name="fast-agent"))).json()["id"]
    set_evaluations(unfinished, "cpu", scale_shift=scored(1.0), scale_shift_v2=scored(1.0))

    response = client_for(None).get(BOARD, {"hardware": "cpu"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["hardware"], body["task_type"], body["problems"]) == ("cpu", None, 3)
    rows = [(e["rank"], e["agent"], e["user"], e["version"], e["agent_submission"], round(e["score"], 6),
             e["solved"]) for e in body["entries"]]
    assert rows == [(1, "kernel-agent", "alice", "2.0", best_alice, 0.6, 3),
                    (2, "kernel-agent", "bob", "1.2.0", bob_first, 0.5, 3),
                    (3, "kernel-agent", "bob", "1.3.0", bob_later, 0.5, 3),
                    (4, "kernel-agent", "alice", "1.0", alice_first, 0.3, 3),
                    (5, "other-agent", "alice", "1.2.0", other, 0.2, 1)]
    factories.make_hardware("h200")
    assert client_for(None).get(BOARD, {"hardware": "h200"}).json()["entries"] == []
    assert client_for(None).get(BOARD, {"hardware": "tpu9"}).status_code == 404
    assert client_for(None).get(BOARD).status_code == 400
