"""A worker SIGKILLed in the middle of an evaluation: once its lease has run out the reaper queues
the evaluation again, the other worker finishes it, and it is scored exactly once."""

from __future__ import annotations

from django.utils import timezone

from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.reliability.stack import Stack, scored_lines, submit

# Short, as the test sweeps by hand once the dead worker's lease is over (a live one renews it).
LEASE_SECONDS = 2


def test_a_killed_workers_evaluation_is_finished_once_by_another(
        stack: Stack, problem: Problem, cpu: Hardware) -> None:
    workers = {name: stack.worker(name, EVALUATION_LEASE_SECONDS=LEASE_SECONDS) for name in ("a", "b")}
    evaluation = submit(problem, cpu)
    stack.mid_evaluation(evaluation, needed=tuple(workers.values()))
    holder = workers[evaluation.worker.split("@")[0]]
    other = next(w for w in workers.values() if w is not holder)
    holder.kill()

    stack.wait_for("the dead worker's lease to run out",
                   lambda: Evaluation.objects.get(pk=evaluation.pk).lease_until < timezone.now())
    evaluation.refresh_from_db()
    assert (evaluation.state, evaluation.attempts) == (Evaluation.RUNNING, 1)
    assert "requeued 1, failed 0, resent 0" in stack.sweep_once(EVALUATION_LEASE_SECONDS=LEASE_SECONDS)
    stack.settled([evaluation], needed=(other,))

    assert evaluation.state == Evaluation.SCORED, f"{evaluation.error}\n{stack.tails()}"
    assert evaluation.attempts == 2
    assert evaluation.worker.startswith(f"{other.name}@") and f"/{other.pid}/" in evaluation.worker
    workloads = problem.workloads.filter(smoke=True).count()
    results = WorkloadResult.objects.filter(evaluation=evaluation)
    assert results.count() == results.values("workload").distinct().count() == workloads
    assert set(results.values_list("status", flat=True)) == {"PASSED"}
    entry = LeaderboardEntry.objects.get(problem=problem, hardware=cpu)
    assert (entry.evaluation_id, entry.submissions) == (evaluation.pk, 1)
    stack.scores_logged(other, [evaluation])
    assert scored_lines(holder, evaluation) == 0 and scored_lines(other, evaluation) == 1
