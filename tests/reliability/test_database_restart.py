"""PostgreSQL restarted under a running worker: the worker waits for it, reconnects and finishes the
same attempt; an idle worker takes the next message after a restart; the web tier's first request
after a restart is answered (its kept connection is checked before use); the sweeper's loop skips
the rounds that meet the outage and goes on."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

from django.db import connection

from evaluator import services
from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.platform import factories
from tests.reliability.servers import free_port
from tests.reliability.stack import Stack, scored_lines, submit


def restart(stack: Stack) -> None:
    stack.postgres.stop()
    stack.postgres.start()
    connection.close()  # this test's own, which no request cycle checks


def test_a_worker_finishes_its_evaluation_across_a_database_restart(
        stack: Stack, problem: Problem, cpu: Hardware) -> None:
    worker = stack.worker("w")
    evaluation = submit(problem, cpu)
    stack.mid_evaluation(evaluation, needed=(worker,))
    stack.postgres.stop()
    # Down until the results are ready and wait: every write of the run meets the outage.
    stack.wait_for("the worker to wait with its results", lambda: "waiting for the database" in worker.text(),
                   needed=(worker,))
    stack.postgres.start()
    stack.settled([evaluation], needed=(worker,))
    assert evaluation.state == Evaluation.SCORED, f"{evaluation.error}\n{stack.tails()}"
    stack.scores_logged(worker, [evaluation])
    assert evaluation.attempts == 1 and scored_lines(worker, evaluation) == 1
    results = WorkloadResult.objects.filter(evaluation=evaluation)
    assert results.count() == problem.workloads.filter(smoke=True).count()
    assert LeaderboardEntry.objects.get(problem=problem, hardware=cpu).evaluation_id == evaluation.pk

    restart(stack)  # while the worker is idle
    before = worker.text()
    services.send(evaluation.pk, cpu.queue)  # a duplicate: turning it down takes the database
    stack.wait_for("the duplicate to be turned down",
                   lambda: f"evaluation #{evaluation.pk}: not claimed" in worker.text(), needed=(worker,))
    since = worker.text()[len(before):]
    assert "waiting for the database" not in since and "raised unexpected" not in since, since


def test_the_first_request_after_a_restart_is_answered(stack: Stack, problem: Problem) -> None:
    port = free_port()
    web = stack.web(port)

    def problems() -> list[str]:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/problems/", timeout=10) as response:
            return [p["name"] for p in json.load(response)["results"]]

    def answers() -> bool:
        try:
            return problems() == [problem.name]  # the request opens the kept connection
        except urllib.error.URLError:
            return False

    stack.wait_for("the web server", answers, needed=(web,))
    restart(stack)
    assert problems() == [problem.name]


def test_the_sweeper_goes_on_after_a_restart(stack: Stack, problem: Problem, cpu: Hardware) -> None:
    sweeper = stack.sweeper(0.2)
    stack.wait_for("a first sweep", lambda: "requeued 0, failed 0, resent 0" in sweeper.text(),
                   needed=(sweeper,))
    stack.postgres.stop()
    time.sleep(1)  # a few sweeps meet the outage
    stack.postgres.start()
    connection.close()
    unsent = factories.make_evaluation(problem=problem, hardware=cpu)
    stack.wait_for("the sweeper to send it", lambda: len(stack.redis.waiting("hw.cpu")) == 1,
                   needed=(sweeper,))
    assert Evaluation.objects.get(pk=unsent.pk).enqueued_at is not None
    assert "the database is unreachable" in sweeper.text(), "the sweeper never met the outage"
