"""The manifest's usage through the API: an upload stores the tokens read and written on the agent
submission and each problem's cost, tokens and wall time on its submission, and shows them in the
upload's results; a bad figure refuses the upload, and the dry run, with the reader's message,
storing nothing (docs/agent-bundles.md, "Manifest")."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for
from tests.api.test_agent_submissions_api import (
    AGENTS,
    another_problem,
    good_files,
    nothing_stored,
    send_bundle,
    zipped,
)
from tests.platform import factories

pytestmark = pytest.mark.django_db
USAGE = {"scale_shift": {"cost_usd": 1.5, "tokens_input": 1000, "tokens_output": 300, "wall_seconds": 95},
         "scale_shift_v2": {"cost_usd": 2}}


@pytest.fixture
def problems(problem: Problem) -> None:
    another_problem("scale_shift_v2")
    another_problem("scale_shift_json")


def upload(**manifest: Any) -> tuple[int, dict[str, Any]]:
    response = send_bundle(client_for(factories.make_user()), zipped(good_files(**manifest)))
    return response.status_code, response.json()


def dry_run(**manifest: Any) -> tuple[int, dict[str, Any]]:
    response = client_for(factories.make_user()).post(
        f"{AGENTS}?validate=1", {"file": SimpleUploadedFile("agent.zip", zipped(good_files(**manifest))),
                                 "hardware": ["cpu"]}, format="multipart")
    return response.status_code, response.json()


def test_the_usage_is_stored_and_shown_problem_by_problem(problems: None, cpu: Hardware) -> None:
    status, body = upload(tokens_input=900_000, tokens_output=250_000, problems=USAGE)
    assert status == 201, body
    agent = AgentSubmission.objects.get()
    assert (agent.tokens, agent.tokens_input, agent.tokens_output) == (1_200_000, 900_000, 250_000)
    usage = {s.problem.name: s.agent_usage for s in Submission.objects.select_related("problem")}
    assert usage == {"scale_shift": USAGE["scale_shift"], "scale_shift_v2": {"cost_usd": 2},
                     "scale_shift_json": {}}

    results = client_for(None).get(f"{AGENTS}{agent.pk}/results/").json()
    assert (results["tokens_input"], results["tokens_output"]) == (900_000, 250_000)
    rows = {p["problem"]: p for p in results["hardware"][0]["problems"]}
    keys = ("cost_usd", "tokens_input", "tokens_output", "wall_seconds")
    assert [rows["scale_shift"][key] for key in keys] == [1.5, 1000, 300, 95]
    assert [rows["scale_shift_v2"][key] for key in keys] == [2, None, None, None]
    assert rows["scale_shift_json"]["cost_usd"] is None

    detail = client_for(agent.owner).get(f"{AGENTS}{agent.pk}/").json()
    solutions = {s["problem"]: s["agent_usage"] for s in detail["submissions"]}
    assert solutions["scale_shift"] == USAGE["scale_shift"]
    assert solutions["scale_shift_v2"] == {"cost_usd": 2, "tokens_input": None, "tokens_output": None,
                                           "wall_seconds": None}


@pytest.mark.parametrize(("manifest", "message"), [
    ({"tokens": 1000, "tokens_input": 900, "tokens_output": 200},
     "manifest.json: 'tokens' (1000) is less than 'tokens_input' + 'tokens_output' (1100)"),
    ({"tokens_output": -5}, "manifest.json: 'tokens_output' must be >= 0, not -5"),
    ({"problems": {"scale_shift": {"dollars": 1}}},
     "manifest.json: problems['scale_shift']: unknown key(s) 'dollars'"),
    ({"problems": {"softmax": {"cost_usd": 1}}},
     "manifest.json: 'problems' names 'softmax', which the bundle has no solution for (its solutions: "
     "'scale_shift', 'scale_shift_json', 'scale_shift_v2')"),
    ({"cost_usd": 3, "problems": USAGE},
     "manifest.json: the problems' 'cost_usd' add up to 3.5, more than the run's 'cost_usd' (3)"),
    ({"problems": {"scale_shift": {"tokens_input": 0.5}}},
     "manifest.json: problems['scale_shift']: 'tokens_input' must be a whole number"),
])
def test_a_bad_figure_refuses_the_upload_and_the_dry_run(problems: None, cpu: Hardware,
                                                         manifest: dict[str, Any], message: str) -> None:
    for send in (upload, dry_run):
        status, body = send(**manifest)
        assert status == 400, body
        assert message in body["file"][0], send.__name__
    assert nothing_stored()


def test_the_dry_run_accepts_good_usage(problems: None, cpu: Hardware) -> None:
    status, body = dry_run(tokens_input=900_000, problems=USAGE)
    assert status == 200 and body["valid"] is True, body
    assert nothing_stored()
