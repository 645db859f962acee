"""Issue 19: an evaluation says what happened wherever it is listed, not only on its submission's
page: the submissions list, the participant page and the agent page word and colour it as
evaluator/scoring/outcome.py does (a scored run whose every workload failed is no green "scored")."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, Problem, Workload
from tests.platform import factories

pytestmark = pytest.mark.django_db


def text(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return html.unescape(response.content.decode())


def test_the_lists_say_what_happened(client: Client, problem: Problem, cpu: Hardware) -> None:
    ada = factories.make_participant("ada")
    factories.make_scored(ada, problem, cpu, 0.0, verdict="COMPILE_ERROR")
    factories.make_scored(ada, problem, cpu, 0.0, verdict="INCORRECT_NUMERICAL")
    total = factories.fake_report(factories.make_evaluation(owner=ada, problem=problem, hardware=cpu))[
        "aggregates"]["total"]
    factories.make_scored(ada, problem, cpu, 0.5, passed=1)
    factories.make_scored(ada, problem, cpu, 0.5)
    expected = ['<span class="state-failed">did not compile</span>',
                '<span class="state-failed">incorrect on every workload</span>',
                f'<span class="state-partial">scored, 1 of {total} workloads passed</span>',
                '<span class="state-scored">scored</span>', '<span class="state-queued">queued</span>']
    public = text(client, "/u/ada/")
    client.force_login(ada)
    mine = text(client, "/submissions/")
    for body in (public, mine):
        for shown in expected:
            assert shown in body, shown
        assert '<span class="state-scored">scored</span> 0.000' not in body  # the old green for a failure


def test_the_agent_page_says_what_happened(client: Client, problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_participant("ada")
    agent = factories.make_agent_run(owner, "bot", {problem: 0.0}, cpu)
    evaluation = Evaluation.objects.get(submission__agent_submission=agent)
    Evaluation.objects.filter(pk=evaluation.pk).update(aggregates={"passed": 0, "total": 3})
    for workload in problem.workloads.filter(smoke=True):
        # a hidden workload's verdict is never read for the words: only the visible ones'
        verdict = "COMPILE_ERROR" if workload.visibility == Workload.VISIBLE else "RUNTIME_ERROR"
        WorkloadResult.objects.create(evaluation=evaluation, workload=workload, status=verdict, sol_ms=0.5,
                                      score=0.0)
    assert '<span class="state-failed">did not compile</span></a></td>' in text(client, "/agents/ada/bot/")
