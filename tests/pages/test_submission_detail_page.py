"""GET /submissions/<id>/ as a public page and /submissions/<id>/live/, the part htmx polls: live
progress per visible workload, then the per-workload table, the visible vs hidden summary, the fraction-of-SOL
chart and the environment; the source and messages only where can_view_source allows."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from evaluator import services as evaluations
from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, Problem, Workload
from submissions.models import Submission
from tests.platform import factories

pytestmark = pytest.mark.django_db
SOURCE_LINE = "return x * 2.0 + bias[None, :]"


@pytest.fixture
def owner(db: Any) -> AbstractBaseUser:
    return factories.make_user("ada")


def page(submission_id: int, live: bool = False) -> str:
    return f"/submissions/{submission_id}/" + ("live/" if live else "")


def scored(evaluation: Evaluation) -> None:
    """Two visible workloads (one failed) and one hidden, with aggregates and an environment."""
    rows = list(evaluation.submission.problem.workloads.filter(smoke=True).order_by("position"))
    visible = [w for w in rows if w.visibility == Workload.VISIBLE][:2]
    hidden = [w for w in rows if w.visibility == Workload.HIDDEN][:1]
    WorkloadResult.objects.create(evaluation=evaluation, workload=visible[0], status="PASSED",
                                  message="fine", latency_ms=2.0, reference_latency_ms=4.0,
                                  baseline_latency_ms=3.0, sol_ms=0.5, score=0.4)
    WorkloadResult.objects.create(evaluation=evaluation, workload=visible[1], status="COMPILE_ERROR",
                                  message=f"line 3: {SOURCE_LINE}", sol_ms=0.25, score=0.0)
    WorkloadResult.objects.create(evaluation=evaluation, workload=hidden[0], status="PASSED",
                                  message="", latency_ms=9.875, reference_latency_ms=8.5,
                                  baseline_latency_ms=7.25, sol_ms=6.125, score=0.3)
    aggregates = {"score": 0.233, "visible_score": 0.2, "hidden_score": 0.3, "generalization_gap": -0.1,
                  "conditional_correctness": None, "geomean_speedup": 1.5, "passed": 2, "total": 3,
                  "visible_passed": 1, "visible_total": 2, "hidden_passed": 1, "hidden_total": 1}
    evaluation.state, evaluation.score, evaluation.aggregates = Evaluation.SCORED, 0.233, aggregates
    evaluation.environment = {"torch": "2.13.0", "host": "worker-7.internal", "gpu": None}
    evaluation.save(update_fields=["state", "score", "aggregates", "environment"])  # as ingest saves it


def test_anyone_reads_the_results_but_not_the_source_or_messages(client: Client, owner: AbstractBaseUser,
                                                                  problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    scored(evaluation)
    signed_in = Client()
    signed_in.force_login(factories.make_user("eve"))
    for reader in (Client(), signed_in):  # anonymous, and someone else
        response = reader.get(page(evaluation.submission_id))
        assert response.status_code == 200
        body = response.content.decode()
        assert "0.233" in body and "COMPILE_ERROR" in body and 'by <a href="/u/ada/">ada</a>' in body
        assert SOURCE_LINE not in body  # neither the source nor the message quoting it
        assert "shown to those who may read the source" in body
        assert "The source is private" in body and "Publish the source" not in body
    client.force_login(owner)
    body = client.get(page(evaluation.submission_id)).content.decode()
    assert f"line 3: {SOURCE_LINE}" in body and "import torch" in body


def test_a_published_source_is_public(client: Client, owner: AbstractBaseUser, problem: Problem,
                                      cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    scored(evaluation)
    Submission.objects.filter(pk=evaluation.submission_id).update(published=True)
    body = Client().get(page(evaluation.submission_id)).content.decode()
    assert "import torch" in body and f"line 3: {SOURCE_LINE}" in body


def test_hidden_rows_summary_chart_and_environment(client: Client, owner: AbstractBaseUser,
                                                   problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    scored(evaluation)
    client.force_login(owner)
    body = client.get(page(evaluation.submission_id)).content.decode()
    for secret in ("9.875", "8.5", "7.25", "6.125"):  # hidden timings and bound
        assert secret not in body, secret
    for hidden in problem.workloads.filter(visibility=Workload.HIDDEN):
        assert hidden.uuid not in body
        assert f"rows={hidden.axes['rows']}, cols={hidden.axes['cols']}" not in body
    start = body.index('class="facts summary"')
    summary = body[start:body.index("</dl>", start)]
    assert "<dt>visible score</dt><dd>0.200" in summary and "(1 of 2 passed)" in summary
    assert "<dt>hidden score</dt><dd>0.300" in summary and "<dt>generalization gap</dt><dd>-0.100" in summary
    assert "1.50×" in summary
    chart = body[body.index('<svg class="chart"'):body.index("</svg>")]
    bars = re.findall(r'<rect class="bar( failed)?"[^>]* width="([\d.]+)"', chart)
    assert bars == [("", "90.0")]  # 0.5 / 2.0 of 360; the failed one draws no bar, only its verdict
    assert re.search(r'<text x="\d+" y="[\d.]+" class="failed">COMPILE_ERROR</text>', chart)
    assert "1 hidden workload not drawn" in body
    environment = body[body.index('class="facts environment"'):]
    assert "<dt>torch</dt><dd>2.13.0</dd>" in environment
    assert "worker-7.internal" not in body  # the worker's host is the platform's business


def test_the_live_part_polls_until_every_evaluation_is_done(client: Client, owner: AbstractBaseUser,
                                                            problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    body = client.get(page(evaluation.submission_id)).content.decode()
    assert '<script src="/static/vendor/htmx.min.js" defer></script>' in body
    assert '<noscript><meta http-equiv="refresh" content="3"></noscript>' in body  # no script: reload
    assert f'hx-get="{page(evaluation.submission_id, live=True)}" hx-trigger="every 2s"' in body
    assert "waiting for a cpu worker" in body
    fragment = client.get(page(evaluation.submission_id, live=True)).content.decode()
    assert fragment.startswith("\n<div id=\"evaluations\"") and "<html" not in fragment
    assert 'hx-trigger="every 2s"' in fragment
    assert evaluations.claim(evaluation.pk, "worker-1") is not None
    assert evaluations.renew_lease(evaluation.pk, "worker-1", {
        "visible": 2, "statuses": ["PASSED", "INCORRECT_NUMERICAL", "running", None]})
    fragment = client.get(page(evaluation.submission_id, live=True)).content.decode()
    assert "2 of 2 visible workloads done" in fragment
    cells = re.findall(r'<span class="([\w ]+)" title="([^"]+)"></span>', fragment)
    assert cells == [("passed", "visible 1: PASSED"), ("failed", "visible 2: INCORRECT_NUMERICAL"),
                     ("running hidden", "2 hidden workloads: running (results as a whole, once scored)")]
    scored(evaluation)
    fragment = client.get(page(evaluation.submission_id, live=True)).content.decode()
    assert "hx-get" not in fragment and "Workloads on cpu" in fragment  # polling stops here
    body = client.get(page(evaluation.submission_id)).content.decode()
    assert "htmx.min.js" not in body and "refresh" not in body


def test_unknown_submission_is_404(client: Client) -> None:
    for url in (page(999_999), page(999_999, live=True)):
        response = client.get(url)
        assert response.status_code == 404 and "No submission #999999." in response.content.decode()


def test_the_state_says_what_happened(client: Client, owner: AbstractBaseUser, problem: Problem,
                                      cpu: Hardware) -> None:
    """Issue 19: a scored evaluation whose every workload failed read 'scored' in green. The words
    come from evaluator/scoring/outcome.py; the counts are the aggregates' (hidden ones show as
    numbers anyway), the compile errors are read from the visible verdicts only."""
    visible = problem.workloads.filter(visibility=Workload.VISIBLE, smoke=True).first()
    none, some, every = {"passed": 0, "total": 3}, {"passed": 2, "total": 3}, {"passed": 3, "total": 3}
    cases = [("incorrect on every workload", "state-failed", none, "INCORRECT_NUMERICAL"),
             ("did not compile", "state-failed", none, "COMPILE_ERROR"),
             ("scored, 2 of 3 workloads passed", "state-partial", some, "PASSED"),
             ("scored", "state-scored", every, "PASSED")]
    for label, css, aggregates, verdict in cases:
        evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
        WorkloadResult.objects.create(evaluation=evaluation, workload=visible, status=verdict, sol_ms=0.5,
                                      score=0.0)
        Evaluation.objects.filter(pk=evaluation.pk).update(state=Evaluation.SCORED, score=0.0,
                                                          aggregates=aggregates)
        body = client.get(page(evaluation.submission_id)).content.decode()
        assert f'<td class="{css}">{label}</td>' in body, label
    flagged = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    Evaluation.objects.filter(pk=flagged.pk).update(state=Evaluation.SCORED, reward_hack=True,
                                                    aggregates={"passed": 3, "total": 3})
    body = client.get(page(flagged.submission_id)).content.decode()
    assert '<td class="state-failed">flagged: reward hack</td>' in body
    # the note links the rules it broke
    assert f'flagged as reward hacking: see <a href="/problems/{problem.slug}/#rules">' in body
