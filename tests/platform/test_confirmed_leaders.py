"""Confirmed leaders (docs/scoring.md): an evaluation that enters the first 3 places of its board is
run again (a fresh input seed) before the board shows it confirmed. A run that agrees within the
board's noise band confirms it; one that does not disputes it and puts it in the reviewers' queue;
one that fails leaves the entry provisional. A run counts for nothing itself: no entry, no
submission, no change to counts, compare or the submission's evaluation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import caches
from django.db import IntegrityError, transaction
from django.test import Client

from evaluator import confirmations, services, tasks, workers
from evaluator.counting import counted
from evaluator.harness import HARNESS_VERSION
from evaluator.models import Evaluation
from evaluator.probing import suspected_probes
from evaluator.rankings import board
from leaderboard.models import Hardware, LeaderboardEntry, Problem, ScoreRecord, Workload
from submissions import services as submissions
from submissions.compare import compare
from submissions.models import Submission
from tests.api.support import client_for
from tests.cli import conftest as cli_fixtures
from tests.platform import factories

pytestmark = pytest.mark.django_db
BOARD_API = "/api/v1/leaderboards/scale_shift/cpu/"
CHANGELIST = "/admin/evaluator/evaluation/"
server, cli, config_dir = cli_fixtures.server, cli_fixtures.cli, cli_fixtures.config_dir  # live server, CLI


@pytest.fixture(autouse=True)
def empty_caches() -> Iterator[None]:
    """No page or board rows kept from another test (the pages are kept by their address)."""
    for cache in caches.all():
        cache.clear()
    yield


def report(evaluation: Evaluation, score: float, verdict: str = "PASSED",
           hidden: tuple[str, ...] | None = None, **aggregates: Any) -> dict[str, Any]:
    """A scored report; `hidden`: the hidden workloads' verdicts, in run order."""
    made = factories.fake_report(evaluation, score, verdict=verdict)
    if hidden is not None:
        rows = [row for row in made["workloads"] if row["visibility"] == Workload.HIDDEN]
        for row, status in zip(rows, hidden, strict=True):
            row["status"] = status
        made["aggregates"]["passed"] = sum(row["status"] == "PASSED" for row in made["workloads"])
    made["aggregates"].update(aggregates)
    made["harness_version"] = HARNESS_VERSION
    return made


def ingest(evaluation: Evaluation, score: float, verdict: str = "PASSED", worker: str = "w",
           **aggregates: Any) -> Evaluation:
    assert services.claim(evaluation.pk, worker) is not None
    assert services.ingest(evaluation.pk, worker, report(evaluation, score, verdict, **aggregates))
    evaluation.refresh_from_db()
    return evaluation


def scored(name: str, problem: Problem, hardware: Hardware, score: float, **aggregates: Any) -> Evaluation:
    return factories.make_scored(factories.make_participant(name), problem, hardware, score, **aggregates)


def runs_of(evaluation: Evaluation) -> list[Evaluation]:
    return list(Evaluation.objects.filter(confirms=evaluation).order_by("pk"))


def labels() -> list[tuple[str, str]]:
    return [(e["user"], e["confirmation"]) for e in client_for(None).get(BOARD_API).json()["entries"]]


def test_entering_the_top_3_starts_one_run_sent_to_the_hardware_queue(
        problem: Problem, cpu: Hardware, django_capture_on_commit_callbacks: Any) -> None:
    with mock.patch.object(services, "send") as send, django_capture_on_commit_callbacks(execute=True):
        made = {name: scored(name, problem, cpu, score)
                for name, score in [("ada", 0.9), ("bob", 0.7), ("cyd", 0.5), ("dan", 0.3)]}
    assert {name: len(runs_of(e)) for name, e in made.items()} == {"ada": 1, "bob": 1, "cyd": 1, "dan": 0}
    [run] = runs_of(made["ada"])
    assert (run.submission_id, run.hardware_id, run.state) == (made["ada"].submission_id, cpu.pk,
                                                               Evaluation.QUEUED)
    assert run.seed != made["ada"].seed  # a fresh input seed
    sent = {call.args[0]: call.args[1] for call in send.call_args_list}
    assert {sent[r.pk] for e in made.values() for r in runs_of(e)} == {"hw.cpu"}

    # dan enters the top 3; the others' runs are still pending: none is started twice
    better = factories.make_evaluation(owner=made["dan"].submission.owner, problem=problem, hardware=cpu)
    ingest(better, 0.95)
    ingest(factories.make_evaluation(owner=made["ada"].submission.owner, problem=problem, hardware=cpu), 0.2)
    assert [len(runs_of(e)) for e in (made["ada"], made["bob"], made["cyd"], better)] == [1, 1, 1, 1]
    with pytest.raises(IntegrityError), transaction.atomic():  # the database keeps it to one at a time
        Evaluation.objects.create(submission=run.submission, hardware=cpu, seed=1, confirms=made["ada"])


def test_no_run_for_private_modes_reward_hacks_or_runs_themselves(problem: Problem, cpu: Hardware) -> None:
    benchmark = factories.make_evaluation(problem=problem, hardware=cpu)
    Submission.objects.filter(pk=benchmark.submission_id).update(mode="benchmark")
    ingest(benchmark, 0.99)
    hack = ingest(factories.make_evaluation(problem=problem, hardware=cpu), 0.98, verdict="REWARD_HACK")
    leader = scored("ada", problem, cpu, 0.5)
    assert runs_of(benchmark) == runs_of(hack) == [] and len(runs_of(leader)) == 1
    run = ingest(runs_of(leader)[0], 0.5)
    assert runs_of(run) == [] and Evaluation.objects.filter(confirms__isnull=False).count() == 1


@pytest.mark.parametrize(("hardware", "first", "again", "ci95", "agreed"), [
    ("cpu", 0.8, 0.8, None, True),  # no noise measured there and no intervals: equal scores only
    ("cpu", 0.8, 0.785, 0.01, True),  # within the two intervals together
    ("cpu", 0.8, 0.775, 0.01, False),
    ("h200", 0.8, 0.781, None, True),  # within the H200's ±3.0% run-to-run noise
    ("h200", 0.8, 0.77, None, False),
])
def test_a_run_agrees_within_the_boards_noise_band(problem: Problem, hardware: str, first: float,
                                                   again: float, ci95: float | None, agreed: bool) -> None:
    intervals = {} if ci95 is None else {"score_ci95": ci95}
    leader = scored("ada", problem, factories.make_hardware(hardware), first, **intervals)
    ingest(runs_of(leader)[0], again, **intervals)
    leader.refresh_from_db()
    assert leader.confirmation == (Evaluation.CONFIRMED if agreed else Evaluation.DISPUTED)


def test_agreement_confirms_and_the_boards_show_confirmed_and_provisional(problem: Problem,
                                                                         cpu: Hardware) -> None:
    made = {name: scored(name, problem, cpu, score) for name, score in [("ada", 0.9), ("bob", 0.7)]}
    assert labels() == [("ada", "provisional"), ("bob", "provisional")]  # the board's rows are kept now
    ingest(runs_of(made["ada"])[0], 0.9, worker="another")
    made["ada"].refresh_from_db()
    assert made["ada"].confirmation == Evaluation.CONFIRMED and not made["ada"].hack_reason
    assert labels() == [("ada", "confirmed"), ("bob", "provisional")]  # a new board version
    page = Client().get("/boards/problems/scale_shift/cpu/").content.decode()
    assert page.count("<td>confirmed</td>") == 1 and page.count("<td>provisional</td>") == 1
    assert 'title="confirmed: a second run of a top-3 entry' in page  # the column's header explains
    csv = Client().get("/boards/problems/scale_shift/cpu/?format=csv").content.decode().splitlines()
    assert [line.rsplit(",", 2)[1] for line in csv] == ["confirmation", "confirmed", "provisional"]
    problem_page = Client().get(f"/problems/{problem.slug}/?hardware=cpu").content.decode()
    assert "<td>confirmed</td>" in problem_page and "<td>provisional</td>" in problem_page
    text = Client().get(f"/submissions/{made['ada'].submission_id}/").content.decode()
    assert "confirmed on the board: a confirmation run agreed within the noise" in text


def test_disagreement_disputes_and_lands_in_review(problem: Problem, cpu: Hardware, admin_client: Client,
                                                   admin_user: AbstractBaseUser) -> None:
    made = {name: scored(name, problem, cpu, score)
            for name, score in [("ada", 0.9), ("bob", 0.7), ("cyd", 0.5), ("dan", 0.3)]}
    [run] = runs_of(made["ada"])
    ingest(run, 0.6)
    ada = Evaluation.objects.get(pk=made["ada"].pk)
    assert ada.confirmation == Evaluation.DISPUTED
    assert f"confirmation: disputed by confirmation run #{run.pk}: the run scored 0.600" in ada.hack_reason
    entry = LeaderboardEntry.objects.get(user=ada.submission.owner)
    assert (entry.evaluation_id, entry.score, entry.submissions) == (ada.pk, 0.9, 1)  # never replaced
    assert labels()[0] == ("ada", "disputed")

    listed = admin_client.get(CHANGELIST, {"confirmation__exact": "disputed"}).context["cl"].result_list
    assert list(listed) == [ada]  # the reviewers' queue
    admin_client.post(CHANGELIST, {"action": "disqualify", "_selected_action": [ada.pk], "apply": "1",
                                   "public_reason": "the run shows the score does not hold"})
    assert [e.user.username for e in board(problem.pk, cpu.pk)] == ["bob", "cyd", "dan"]
    assert len(runs_of(made["dan"])) == 1  # dan moved into the top 3: run again too

    [bobs] = runs_of(made["bob"])
    ingest(bobs, 0.7, passed=0)  # it failed workloads the evaluation passed
    bob = Evaluation.objects.get(pk=made["bob"].pk)
    assert bob.confirmation == Evaluation.DISPUTED and "the run passed 0 of" in bob.hack_reason
    admin_client.post(CHANGELIST, {"action": "confirm", "_selected_action": [bob.pk], "apply": "1",
                                   "public_reason": ""})
    bob.refresh_from_db()
    assert bob.confirmation == Evaluation.CONFIRMED and bob.hack_marked_by == admin_user
    assert "confirmed after review" in bob.hack_reason
    assert labels()[0] == ("bob", "confirmed")


def test_a_run_flagged_as_a_reward_hack_disputes(problem: Problem, cpu: Hardware) -> None:
    leader = scored("ada", problem, cpu, 0.9)
    ingest(runs_of(leader)[0], 0.9, verdict="REWARD_HACK")
    leader.refresh_from_db()
    assert leader.confirmation == Evaluation.DISPUTED and "flagged as a reward hack" in leader.hack_reason
    assert not leader.reward_hack and labels() == [("ada", "disputed")]  # a reviewer decides


def test_a_run_is_no_second_entry_and_changes_no_count_or_compare(problem: Problem, cpu: Hardware) -> None:
    ada, bob = scored("ada", problem, cpu, 0.9), scored("bob", problem, cpu, 0.7)
    ingest(runs_of(ada)[0], 0.85)  # disputed: the board still shows 0.9, ada's own
    owner = ada.submission.owner
    entry = LeaderboardEntry.objects.get(user=owner)
    assert LeaderboardEntry.objects.filter(user=owner).count() == 1
    assert (entry.evaluation_id, entry.submissions, entry.score) == (ada.pk, 1, 0.9)
    assert [(e.user.username, e.score) for e in board(problem.pk, cpu.pk)] == [("ada", 0.9), ("bob", 0.7)]
    assert not ScoreRecord.objects.filter(evaluation__confirms__isnull=False).exists()
    found = compare(ada.submission_id, bob.submission_id)
    assert (found.hardware, found.a.score, found.b.score) == ("cpu", 0.9, 0.7)
    assert counted().filter(submission=ada.submission).get() == ada

    body = Client().get("/hardware/cpu/").content.decode()
    counts = body[body.index('id="evaluation-counts"'):]
    assert "<dt>queued</dt><dd>0</dd>" in counts and "<dt>scored</dt><dd>2</dd>" in counts  # bob's run too
    detail = client_for(owner).get(f"/api/v1/submissions/{ada.submission_id}/").json()
    assert [(e["id"], e["score"], e["confirmation"]) for e in detail["evaluations"]] == [
        (ada.pk, 0.9, "disputed")]
    listed = client_for(bob.submission.owner).get("/api/v1/submissions/").json()["results"]
    assert [(e["id"], e["confirmation"]) for e in listed[0]["evaluations"]] == [(bob.pk, None)]  # pending

    # bob's run is the platform's: not in his evaluations in flight, not his to cancel
    assert submissions.in_flight(bob.submission.owner) == 0
    with pytest.raises(submissions.NotCancellable):
        submissions.cancel_submission(bob.submission)
    assert runs_of(bob)[0].state == Evaluation.QUEUED


def test_runs_are_no_probes(problem: Problem, cpu: Hardware) -> None:
    owner = factories.make_participant("prober")
    probes = [factories.make_probe(owner, problem, cpu, verdicts)
              for verdicts in [("PASSED", "INCORRECT_SHAPE"), ("RUNTIME_ERROR", "INCORRECT_SHAPE")]]
    [leading] = [e for e in counted().filter(submission_id__in=probes) if runs_of(e)]
    run = runs_of(leading)[0]
    assert services.claim(run.pk, "w") is not None  # alike visible results, a third hidden count
    assert services.ingest(run.pk, "w", report(run, 0.5, hidden=("PASSED", "PASSED")))
    assert suspected_probes() == set()  # two probes, not three


def test_a_failed_run_leaves_the_entry_provisional_and_shows(problem: Problem, cpu: Hardware) -> None:
    ada = scored("ada", problem, cpu, 0.9)
    for attempt in range(confirmations.MAX_RUNS):
        [run] = [r for r in runs_of(ada) if r.state == Evaluation.QUEUED]
        assert services.claim(run.pk, "w") is not None
        assert services.fail(run.pk, "the evaluator failed: RuntimeError: boom", worker="w")
        assert labels()[0] == ("ada", "provisional")
        scored(f"user-{attempt}", problem, cpu, 0.1)  # the board's next change asks again, 3 runs at most
    assert [r.state for r in runs_of(ada)] == [Evaluation.FAILED] * confirmations.MAX_RUNS
    detail = client_for(ada.submission.owner).get(f"/api/v1/submissions/{ada.submission_id}/").json()
    assert detail["evaluations"][0]["confirmation"] == confirmations.UNCONFIRMED
    text = Client().get(f"/submissions/{ada.submission_id}/").content.decode()
    assert text.count("a confirmation run: the cpu evaluation of a top-3 entry") == confirmations.MAX_RUNS
    assert "as it did not finish, the entry stays provisional" in text


def test_the_worker_that_measured_it_passes_the_run_on(problem: Problem, cpu: Hardware) -> None:
    ada = scored("ada", problem, cpu, 0.9)
    [run] = runs_of(ada)
    Evaluation.objects.filter(pk=ada.pk).update(worker="gpu0@node7/11/aaaa")  # who measured it
    workers.beat("gpu0@node7/11", ["cpu"])
    same, other = "gpu0@node7/12/bbbb", "gpu1@node7/13/cccc"
    with mock.patch.object(services, "send") as send:
        assert not confirmations.pass_on(run.pk, same)  # no other worker online: it runs it
        workers.beat("gpu1@node7/13", ["cpu"])
        assert not confirmations.pass_on(run.pk, other)
        busy = factories.make_evaluation(problem=problem, hardware=cpu)
        assert services.claim(busy.pk, "gpu1@node7/13/dddd") is not None
        assert not confirmations.pass_on(run.pk, same)  # the other one is busy: it would come back here
        assert services.fail(busy.pk, "stopped", worker="gpu1@node7/13/dddd")
        with mock.patch.object(tasks, "worker_name", return_value=same):
            tasks.evaluate(run.pk)  # the task: passed on, not claimed
        run.refresh_from_db()
        assert (run.state, run.declines) == (Evaluation.QUEUED, 1)
        send.assert_called_once_with(run.pk, "hw.cpu", mock.ANY)
        for _ in range(confirmations.MAX_DECLINES - 1):
            assert confirmations.pass_on(run.pk, same)
        assert not confirmations.pass_on(run.pk, same)  # passed on enough: whoever takes it runs it

    measured = report(run, 0.9)
    with mock.patch.object(tasks, "worker_name", return_value=other), \
            mock.patch.object(tasks, "measure", return_value=measured), \
            mock.patch.object(tasks, "sandbox_refusal", return_value=None):
        tasks.evaluate(run.pk)
    run.refresh_from_db()
    ada.refresh_from_db()
    assert (run.state, run.worker, ada.confirmation) == (Evaluation.SCORED, other, Evaluation.CONFIRMED)


def test_the_cli_leaderboard_shows_confirmed_and_provisional(server: Any, cli: Any) -> None:
    ada = factories.make_scored(server.user, server.problem, server.cpu, 0.9)
    factories.make_scored(factories.make_participant("bob"), server.problem, server.cpu, 0.7)
    ingest(runs_of(ada)[0], 0.9)
    result = cli("leaderboard", "scale_shift", "--hardware", "cpu", "--server", server.url)
    assert result.code == 0, result.err
    assert "confirmed by a second run: ada; provisional: bob" in result.out
    document = cli("leaderboard", "scale_shift", "--hardware", "cpu", "--server", server.url, "--json").json()
    assert [(e["user"], e["confirmation"]) for e in document["entries"]] == [
        ("ada", "confirmed"), ("bob", "provisional")]
