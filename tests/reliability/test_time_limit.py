"""An evaluation over its time limit (SOLARENA_EVAL_SECONDS): the harness is stopped, every workload
gets a TIMEOUT naming the limit, the evaluation is scored, and the same worker process goes on to
the next evaluation."""

from __future__ import annotations

from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from tests.platform import factories
from tests.reliability.stack import Stack, submit

# A good evaluation of the fixture problem must fit: 10 s on two idle cores, 30 s on busy ones.
EVAL_SECONDS = 40
HANGS = """
import time


def run(x, bias):
    while True:
        time.sleep(1)
"""


def test_an_evaluation_over_its_time_limit_times_out_and_the_worker_goes_on(
        stack: Stack, problem: Problem, cpu: Hardware) -> None:
    worker = stack.worker("w", SOLARENA_EVAL_SECONDS=EVAL_SECONDS)
    hung, good = submit(problem, cpu, HANGS), submit(problem, cpu, factories.CORRECT)
    stack.settled([hung, good], seconds=EVAL_SECONDS + 180, needed=(worker,))

    assert (hung.state, hung.error) == (Evaluation.SCORED, ""), stack.tails()
    results = hung.results.select_related("workload")
    assert results.count() == problem.workloads.filter(smoke=True).count()
    assert set(results.values_list("status", flat=True)) == {"TIMEOUT"}
    visible = [r.message for r in results if r.workload.visibility == "visible"]
    assert visible[0] == "the evaluation's time limit was reached", visible
    assert all(f"total time limit of {EVAL_SECONDS} s was reached" in m for m in visible[1:]), visible
    elapsed = (hung.finished_at - hung.started_at).total_seconds()
    assert EVAL_SECONDS <= elapsed < EVAL_SECONDS + 15, elapsed

    assert good.state == Evaluation.SCORED, f"{good.error}\n{stack.tails()}"
    verdicts = set(good.results.values_list("status", "message"))
    assert {status for status, _ in verdicts} == {"PASSED"}, f"too slow a machine for the limit? {verdicts}"
    assert good.started_at >= hung.finished_at
    assert f"/{worker.pid}/" in hung.worker and f"/{worker.pid}/" in good.worker and worker.alive()
