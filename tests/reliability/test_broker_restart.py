"""Redis stopped and started again, empty, while submissions arrive: a submission made during the
outage is accepted all the same, the message lost with the broker's memory is sent again from the
database by the dispatcher, and every evaluation is scored exactly once."""

from __future__ import annotations

import re
import time

from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.reliability.stack import Stack, scored_lines, submit

RESEND_SECONDS = 3
ACCEPT_SECONDS = 5  # a submission during the outage is accepted this quickly, unsent


def test_no_submission_is_lost_when_the_broker_restarts(
        stack: Stack, problem: Problem, cpu: Hardware) -> None:
    worker = stack.worker("w")
    sweeper = stack.sweeper(0.5, DISPATCH_RESEND_SECONDS=RESEND_SECONDS)
    stack.wait_for("the worker to be ready", lambda: "ready." in worker.text(), needed=(worker,))
    running = submit(problem, cpu)
    waiting = submit(problem, cpu)  # its message waits on the broker behind `running`
    stack.wait_for("the first evaluation to start",
                   lambda: Evaluation.objects.get(pk=running.pk).state == Evaluation.RUNNING,
                   needed=(worker, sweeper))

    stack.redis.stop()
    started = time.monotonic()
    during = submit(problem, cpu)
    assert time.monotonic() - started < ACCEPT_SECONDS
    assert during.state == Evaluation.QUEUED
    time.sleep(1)
    stack.redis.start()

    evaluations = [running, waiting, during]
    stack.settled(evaluations, seconds=240, needed=(worker, sweeper))
    assert [e.state for e in evaluations] == [Evaluation.SCORED] * 3, stack.tails()
    assert [e.attempts for e in evaluations] == [1, 1, 1]
    stack.scores_logged(worker, evaluations)
    assert [scored_lines(worker, e) for e in evaluations] == [1, 1, 1]
    workloads = problem.workloads.filter(smoke=True).count()
    for evaluation in evaluations:
        results = WorkloadResult.objects.filter(evaluation=evaluation)
        assert results.count() == results.values("workload").distinct().count() == workloads
    entries = LeaderboardEntry.objects.filter(problem=problem, hardware=cpu)
    assert sorted(entries.values_list("evaluation_id", flat=True)) == sorted(e.pk for e in evaluations)
    assert re.search(r"resent [1-9]", sweeper.text()), sweeper.tail()
