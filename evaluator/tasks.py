"""Celery tasks: `evaluate` runs one evaluation on this worker's hardware; `sweep` keeps the queue
honest (reaper and dispatcher)."""

from __future__ import annotations

import logging
import os
import secrets
import socket
import tempfile
from pathlib import Path
from typing import Any

from celery import Task

from evaluator.jobs import SolutionFiles, write_job
from evaluator.report import build_report
from evaluator.supervise import SuperviseOptions, run_harness
from leaderboard.hardware import get_hardware
from leaderboard.problems import harness_problem, workloads_for
from solarena.celery import app

from . import services
from .models import Evaluation

log = logging.getLogger(__name__)


def worker_name(task: Task) -> str:
    """Unique per attempt, so a worker that lost its claim can never write into the next attempt."""
    host = task.request.hostname or socket.gethostname()
    return f"{host}/{os.getpid()}/{secrets.token_hex(4)}"


@app.task(bind=True, acks_late=True, name="evaluator.tasks.evaluate")
def evaluate(self: Task, evaluation_id: int) -> None:
    worker = worker_name(self)
    evaluation = services.claim(evaluation_id, worker)
    if evaluation is None:
        log.info("evaluation #%s: not claimed (taken, finished or gone)", evaluation_id)
        return
    log.info("evaluation #%s: claimed by %s", evaluation_id, worker)
    try:
        report = measure(evaluation, worker)
        if not services.ingest(evaluation_id, worker, report):
            log.warning("evaluation #%s: the claim was lost before the result came in", evaluation_id)
            return
    except Exception as exc:
        # Our own failure, not the solution's (those are verdicts in the report).
        log.exception("evaluation #%s: platform error", evaluation_id)
        services.fail(evaluation_id, f"the evaluator failed: {type(exc).__name__}: {exc}", worker=worker)
        return
    log.info("evaluation #%s: scored", evaluation_id)


def measure(evaluation: Evaluation, worker: str) -> dict[str, Any]:
    """Run the harness on the evaluation's job and return the scored report (nothing stored)."""
    hardware, submission = evaluation.hardware, evaluation.submission
    cpu = hardware.slug == "cpu"
    problem = harness_problem(submission.problem)
    workloads = workloads_for(submission.problem, smoke=cpu)
    solution = SolutionFiles(dict(submission.sources), submission.entry)

    def on_progress(event: dict[str, Any]) -> None:
        if event.get("event") == "workload" and not services.renew_lease(evaluation.pk, worker):
            log.warning("evaluation #%s: lease lost while running", evaluation.pk)

    with tempfile.TemporaryDirectory(prefix=f"solarena-eval-{evaluation.pk}-") as tmp:
        job_dir = Path(tmp) / "job"
        write_job(job_dir, problem, solution, workloads, seed=evaluation.seed,
                  device="cpu" if cpu else "cuda")
        # The outcome's log is the solution's stderr and may quote hidden shapes: it is not logged.
        outcome = run_harness(job_dir, [w.uuid for w in workloads],
                              SuperviseOptions(cpu_interpreter=cpu), progress=on_progress)
    return build_report(problem.definition, workloads, outcome, get_hardware(hardware.slug),
                        hardware.calibrated or None)


@app.task(name="evaluator.tasks.sweep")
def sweep() -> dict[str, int]:
    requeued, failed = services.reap_expired()
    return {"requeued": requeued, "failed": failed, "resent": services.dispatch_stale()}
