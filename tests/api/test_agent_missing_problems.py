"""An agent submission names the suite's problems its bundle left out (each counts 0 in the suite
score), and counts as scored only the problems with a valid score: an evaluation whose every
workload failed (a COMPILE_ERROR everywhere) is finished, but not scored."""

from __future__ import annotations

import pytest

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission
from tests.api.support import client_for
from tests.api.test_agent_dry_run import one_solution
from tests.api.test_agent_submissions_api import AGENTS, another_problem, send_bundle, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_left_out_problems_are_named_and_failures_are_not_scored(problem: Problem, cpu: Hardware,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluations, "send", lambda *args, **kwargs: None)
    another_problem("left_out")
    files = one_solution()
    owner = factories.make_user()
    assert send_bundle(client_for(owner), zipped(files)).status_code == 201
    agent = AgentSubmission.objects.get()
    evaluation = Evaluation.objects.get(submission__agent_submission=agent)
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    report = factories.fake_report(evaluation, score=0.0, verdict="COMPILE_ERROR", message="does not build")
    assert evaluations.ingest(evaluation.pk, "worker-a", report)
    shown = client_for(owner).get(f"{AGENTS}{agent.pk}/").json()
    assert shown["missing_problems"] == ["left_out"]
    assert [(s["hardware"], s["status"], s["scored"], s["problems"]) for s in shown["suites"]] == [
        ("cpu", "done", 0, 2)]
    listed = client_for(owner).get(AGENTS).json()["results"][0]["suites"][0]
    assert (listed["scored"], listed["problems"]) == (0, 2)
