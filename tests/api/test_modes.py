"""Submission modes (evaluator/modes.py) through the API: test and benchmark runs are stored with
their mode, run the visible workloads only (test: untimed, no score), are never ranked, are private
to their owner (page, API, compare), count against a quota of their own, and go ahead of ranked
runs in the queue."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from evaluator import modes
from evaluator import services as evaluations
from evaluator.models import Evaluation
from evaluator.rankings import update_entry
from evaluator.tasks import mode_options
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from leaderboard.problems import workloads_for
from submissions.models import Submission
from tests.api.support import SUBMISSIONS, api_user, client_for, upload
from tests.api.test_agent_dry_run import one_solution
from tests.api.test_agent_submissions_api import AGENTS, BOARD, send_bundle, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(evaluations, "send", lambda *args, **kwargs: None)


def _run(owner: Any, mode: str) -> Evaluation:
    response = upload(client_for(owner), mode=mode)
    assert response.status_code == 201, response.json()
    assert response.json()["mode"] == mode
    return Evaluation.objects.get(submission_id=response.json()["id"])


def _finish(evaluation: Evaluation, score: float = 0.6) -> Evaluation:
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    report = factories.fake_report(evaluation, score=score)
    if evaluation.submission.mode != modes.RANKED:  # what the worker runs: the visible workloads only
        report["workloads"] = [r for r in report["workloads"] if r["visibility"] == "visible"]
    assert evaluations.ingest(evaluation.pk, "worker-a", report)
    return Evaluation.objects.get(pk=evaluation.pk)


def test_private_runs_are_never_ranked_and_a_test_run_has_no_score(problem: Problem, cpu: Hardware) -> None:
    owner = api_user()
    test = _finish(_run(owner, "test"))
    benchmark = _finish(_run(owner, "benchmark"))
    assert test.state == benchmark.state == Evaluation.SCORED
    assert test.score is None and benchmark.score == pytest.approx(0.6)
    assert not LeaderboardEntry.objects.exists()
    ranked = _finish(_run(owner, "ranked"), score=0.3)
    entry = LeaderboardEntry.objects.get()
    assert entry.evaluation_id == ranked.pk and entry.submissions == 1  # the better benchmark is not in it
    reviewer = factories.make_user()
    evaluations.mark_reward_hack(benchmark, reviewer, "a look")
    evaluations.clear_reward_hack(benchmark, reviewer, "false alarm")  # each rebuilds the owner's entry
    entry.refresh_from_db()
    assert entry.evaluation_id == ranked.pk and entry.submissions == 1
    with pytest.raises(ValueError, match="is a benchmark run: it is never ranked"):
        update_entry(benchmark)


def test_the_worker_runs_what_the_mode_says(problem: Problem) -> None:
    visible = workloads_for(problem, smoke=True, hidden=False)
    assert visible and {w.visibility for w in visible} == {"visible"}
    assert len(workloads_for(problem, smoke=True)) > len(visible)  # ranked runs draw hidden ones too
    assert mode_options("test") == {"time_solution": False, "time_reference": False, "time_baseline": False}
    assert mode_options("ranked") == mode_options("benchmark") == {}


def test_private_runs_are_their_owners_alone(problem: Problem, cpu: Hardware, client: Client) -> None:
    owner, other = api_user(), api_user()
    private = _finish(_run(owner, "benchmark"))
    public = _finish(_run(owner, "ranked"))
    assert client.get(f"/submissions/{private.submission_id}/").status_code == 404  # anonymous
    client.force_login(other)
    assert client.get(f"/submissions/{private.submission_id}/").status_code == 404
    assert client.get(f"/submissions/{public.submission_id}/").status_code == 200
    client.force_login(owner)
    assert client.get(f"/submissions/{private.submission_id}/").status_code == 200
    client.logout()
    listed = client.get(f"/u/{owner.get_username()}/").content.decode()
    assert f"/submissions/{public.submission_id}/" in listed
    assert f"/submissions/{private.submission_id}/" not in listed
    pair = {"a": public.submission_id, "b": private.submission_id}
    assert client_for(other).get("/api/v1/compare/", pair).status_code == 404
    assert client_for(owner).get("/api/v1/compare/", pair).status_code == 200
    Submission.objects.filter(pk=private.submission_id).update(published=True)
    assert client_for(other).get(f"{SUBMISSIONS}{private.submission_id}/source/").status_code == 404


def test_private_runs_have_a_quota_of_their_own(problem: Problem, cpu: Hardware, settings: Any) -> None:
    settings.SUBMISSIONS_PER_PROBLEM_PER_DAY = 1
    settings.SOLARENA_PRIVATE_RUNS_PER_PROBLEM_PER_DAY = 2
    owner = api_user()
    _run(owner, "ranked")
    assert upload(client_for(owner)).status_code == 429  # the ranked quota is spent
    _run(owner, "test")
    _run(owner, "benchmark")
    refused = upload(client_for(owner), mode="test")
    assert refused.status_code == 429
    assert "2 test and benchmark runs of scale_shift in the last 24 hours" in refused.json()["detail"]
    assert upload(client_for(owner), mode="fast").json()["mode"] == ['"fast" is not a valid choice.']


def test_private_runs_go_ahead_of_ranked_ones(settings: Any) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    assert modes.priority("test") == modes.priority("benchmark") == modes.FIRST < modes.priority("ranked")
    settings.CELERY_BROKER_URL = "filesystem://"
    assert modes.priority("test") is None  # a broker without priorities


def test_the_form_sends_private_runs_too(problem: Problem, cpu: Hardware, client: Client) -> None:
    client.force_login(factories.make_user())
    page = client.get("/submit/").content.decode()
    assert 'name="mode" value="test"' in page and 'value="ranked"' in page
    form = {"problem": problem.slug, "hardware": ["cpu"], "mode": "benchmark",
            "file": SimpleUploadedFile("k.py", factories.CORRECT.encode())}
    assert client.post("/submit/", form).status_code == 302
    assert Submission.objects.get().mode == "benchmark"
    agent = {**form, "file": SimpleUploadedFile("k.py", factories.CORRECT.encode()), "agent_name": "a",
             "agent_version": "1", "agent_model": "m"}
    refused = client.post("/submit/", agent)
    assert refused.status_code == 400 and b"a solution sent with an agent is a ranked run" in refused.content


def test_an_agent_bundle_in_a_private_mode_is_private_all_through(problem: Problem, cpu: Hardware,
                                                                   client: Client) -> None:
    owner = api_user()
    bundle = SimpleUploadedFile("agent.zip", zipped(one_solution()))
    sent = client_for(owner).post(AGENTS, {"file": bundle, "hardware": ["cpu"], "mode": "benchmark"},
                                  format="multipart")
    assert sent.status_code == 201 and sent.json()["mode"] == "benchmark"
    private = Evaluation.objects.get(submission__agent_submission_id=sent.json()["id"])
    assert private.submission.mode == "benchmark"
    _finish(private)
    assert client_for(None).get(BOARD, {"hardware": "cpu"}).json()["entries"] == []
    assert send_bundle(client_for(owner), zipped(one_solution())).status_code == 201  # a ranked one
    ranked = Evaluation.objects.get(submission__agent_submission__mode="ranked")
    _finish(ranked)
    entries = client_for(None).get(BOARD, {"hardware": "cpu"}).json()["entries"]
    assert [e["agent_submission"] for e in entries] == [ranked.submission.agent_submission_id]
    page = client.get(f"/agents/{owner.get_username()}/kernel-agent/").content.decode()
    assert f"/submissions/{ranked.submission_id}/" in page
    assert f"/submissions/{private.submission_id}/" not in page
