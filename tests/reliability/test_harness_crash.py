"""A solution that kills the harness's whole process group in the middle of an evaluation: the
workload it was on fails with a message naming the signal, the supervisor starts the harness again
for the rest, the evaluation is scored, and the same worker process goes on to the next one."""

from __future__ import annotations

from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from tests.platform import factories
from tests.reliability.stack import Stack, submit

# On its first call only (the job directory outlives the process): the rest must still run.
KILLS_THE_HARNESS = """
import os
import signal


def run(x, bias):
    try:
        os.mkdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "crashed"))
    except FileExistsError:
        return x * 2.0 + bias[None, :]
    os.killpg(0, signal.SIGKILL)
"""


def test_a_harness_crash_is_a_verdict_and_the_worker_goes_on(
        stack: Stack, problem: Problem, cpu: Hardware) -> None:
    worker = stack.worker("w")
    crashed, good = submit(problem, cpu, KILLS_THE_HARNESS), submit(problem, cpu, factories.CORRECT)
    stack.settled([crashed, good], seconds=240, needed=(worker,))

    assert (crashed.state, crashed.error) == (Evaluation.SCORED, ""), stack.tails()
    verdicts = {r.workload.uuid: (r.status, r.message) for r in crashed.results.select_related("workload")}
    failed = {uuid: v for uuid, v in verdicts.items() if v[0] != "PASSED"}
    assert len(failed) == 1 and len(verdicts) == problem.workloads.filter(smoke=True).count(), verdicts
    (verdict, message), = failed.values()
    assert verdict == "RUNTIME_ERROR" and "killed by signal 9" in message, verdicts

    assert good.state == Evaluation.SCORED, f"{good.error}\n{stack.tails()}"
    assert set(good.results.values_list("status", flat=True)) == {"PASSED"}
    assert good.started_at >= crashed.finished_at
    assert f"/{worker.pid}/" in crashed.worker and f"/{worker.pid}/" in good.worker and worker.alive()
