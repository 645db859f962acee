"""POST /api/v1/agent-submissions/?validate=1 checks a bundle as an upload would (problems,
languages, hardware) and compiles its Python, storing and evaluating nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for
from tests.api.test_agent_submissions_api import AGENTS, good_files, send_bundle, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db


def check(files: dict[str, str], validate: str = "1") -> dict[str, Any]:
    response = client_for(factories.make_user()).post(
        f"{AGENTS}?validate={validate}", {"file": SimpleUploadedFile("agent.zip", zipped(files)),
                                          "hardware": ["cpu"]}, format="multipart")
    return {"status": response.status_code, **response.json()}


def one_solution() -> dict[str, str]:
    """good_files() less the solutions for problems that do not exist here."""
    return {k: v for k, v in good_files().items() if not k.startswith(("scale_shift_v2", "scale_shift_json"))}


def test_a_good_bundle_is_described_and_nothing_is_stored(problem: Problem, cpu: Hardware) -> None:
    report = check(one_solution())
    assert report["status"] == 200 and report["valid"] is True and report["errors"] == []
    assert [(s["name"], s["problem"], s["language"]) for s in report["solutions"]] == [
        ("scale_shift", "scale_shift", "python")]
    assert report["name"] == "kernel-agent" and report["version"] == "1.2.0"
    assert not AgentSubmission.objects.exists() and not Submission.objects.exists()


def test_python_that_does_not_compile_is_named_with_its_line(problem: Problem, cpu: Hardware) -> None:
    files = one_solution()
    files["scale_shift.py"] = "def run(x, bias):\n    return x *\n"
    report = check(files)
    assert report["status"] == 200 and report["valid"] is False
    assert report["errors"] == ["scale_shift: scale_shift.py:2: invalid syntax"]
    assert not AgentSubmission.objects.exists()


def test_what_an_upload_refuses_the_check_refuses(problem: Problem, cpu: Hardware) -> None:
    unknown = check(good_files())  # scale_shift_v2 and scale_shift_json are no problems here
    assert unknown["status"] == 400
    assert "unknown problem(s) 'scale_shift_json', 'scale_shift_v2'" in unknown["file"][0]
    bad_flag = check(good_files(), validate="maybe")
    assert bad_flag["status"] == 400 and bad_flag["validate"] == ["1 or 0 (true or false), not 'maybe'"]
    assert send_bundle(client_for(factories.make_user()), zipped(good_files())).status_code == 400
    assert not AgentSubmission.objects.exists()
