"""The Celery task: `evaluate` runs one evaluation on this worker's hardware, in the sandbox the
settings name (a worker without one refuses to start unless trusted). The reaper and the dispatcher
run in the sweeper (`manage.py sweep_evaluations --loop`), not as a task."""

from __future__ import annotations

import logging
import os
import secrets
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from celery import Task
from celery.signals import worker_init, worker_ready, worker_shutdown
from celery.worker import state as worker_state
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection

import sandbox
from evaluator.harness import ncu, profiling
from evaluator.harness.problem import Workload
from evaluator.jobs import UNTIMED, SolutionFiles, write_job
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import build_report
from evaluator.scoring.shared import CALIBRATION_OPTIONS, SHARED_OPTIONS, SharedTimes, with_shared_times
from evaluator.supervise import HarnessOutcome, SuperviseOptions, run_harness
from leaderboard.problems import harness_problem, stored_flops_by_uuid, workloads_for
from solarena.celery import app

from . import baselines, confirmations, modes, ncu_runs, profile_reports, services, workers
from .hidden_results import stored_progress
from .models import BaselineCalibration, Evaluation

log = logging.getLogger(__name__)
T = TypeVar("T")
UNREACHABLE = (OperationalError, InterfaceError)  # the database restarting, or the network to it
UNSANDBOXED = ("SOLARENA_SANDBOX is none, so submitted code would run unconfined as this worker's "
               "user. Set SOLARENA_SANDBOX=bubblewrap (with bubblewrap installed), or, only on a "
               "machine that runs nothing but code you trust, set SOLARENA_TRUSTED_WORKER=1.")


def sandbox_refusal() -> str | None:
    """Why this worker may not run submitted code, or None when its sandbox settings allow it."""
    try:
        backend = sandbox.get_backend(settings.SOLARENA_SANDBOX)
    except Exception as exc:  # an unknown name, or a sandbox this machine lacks
        return f"SOLARENA_SANDBOX={settings.SOLARENA_SANDBOX} cannot be used: {exc}"
    if backend.name == "none" and not settings.SOLARENA_TRUSTED_WORKER:
        return UNSANDBOXED
    return None


@worker_ready.connect
def start_heartbeats(sender: Any = None, **_: Any) -> None:
    """Say which hardware this worker serves (evaluator/workers.py), now and every beat after."""
    consume_from = getattr(getattr(app.amqp, "queues", None), "consume_from", None) or {}
    slugs = [name.removeprefix(QUEUE_PREFIX) for name in consume_from if name.startswith(QUEUE_PREFIX)]
    if not slugs:
        return
    name = f"{getattr(sender, 'hostname', None) or socket.gethostname()}/{os.getpid()}"
    _heartbeat["name"] = name
    threading.Thread(target=_beat_forever, args=(name, slugs), name="solarena-heartbeat", daemon=True).start()


@worker_shutdown.connect
def stop_heartbeats(**_: Any) -> None:
    name = _heartbeat.pop("name", None)
    if name:
        try:
            workers.stop(name)
        except UNREACHABLE:
            log.warning("could not remove the heartbeat of %s: the database is unreachable", name)


_heartbeat: dict[str, str] = {}
QUEUE_PREFIX = "hw."


def _beat_forever(name: str, slugs: list[str]) -> None:
    while name == _heartbeat.get("name"):
        try:
            workers.beat(name, slugs)
        except UNREACHABLE:  # the next beat tries again; the worker itself carries on
            log.warning("heartbeat of %s not written: the database is unreachable", name)
        finally:
            connection.close()  # this thread's own connection
        time.sleep(settings.SOLARENA_WORKER_HEARTBEAT_SECONDS)


@worker_init.connect
def refuse_to_start_unsandboxed(**_: Any) -> None:
    refusal = sandbox_refusal()
    if refusal:
        # Celery logs and swallows an Exception raised by a signal handler; SystemExit stops the worker.
        raise SystemExit(f"solarena: this worker will not start: {refusal}")


def worker_name(task: Task) -> str:
    """Unique per attempt, so a worker that lost its claim can never write into the next attempt."""
    host = task.request.hostname or socket.gethostname()
    return f"{host}/{os.getpid()}/{secrets.token_hex(4)}"


@app.task(bind=True, acks_late=True, name="evaluator.tasks.evaluate")
def evaluate(self: Task, evaluation_id: int) -> None:
    worker = worker_name(self)
    if patiently(evaluation_id, lambda: confirmations.pass_on(evaluation_id, worker)):
        log.info("evaluation #%s: passed on: this worker measured the evaluation it confirms", evaluation_id)
        return
    evaluation = patiently(evaluation_id, lambda: services.claim(evaluation_id, worker))
    if evaluation is None:
        log.info("evaluation #%s: not claimed (taken, finished or gone)", evaluation_id)
        return
    log.info("evaluation #%s: claimed by %s", evaluation_id, worker)
    # Checked at worker start as well; this also covers a task run outside such a worker.
    refusal = sandbox_refusal()
    if refusal:
        log.error("evaluation #%s: refused: %s", evaluation_id, refusal)
        reason = f"the evaluator refused to run it: {refusal}"
        patiently(evaluation_id, lambda: services.fail(evaluation_id, reason, worker=worker))
        return
    try:
        ncu_reports: dict[str, bytes] = {}
        report = measure(evaluation, worker, ncu_reports)
        if not patiently(evaluation_id, lambda: services.ingest(evaluation_id, worker, report, ncu_reports)):
            log.warning("evaluation #%s: the claim was lost before the result came in", evaluation_id)
            return
    except Exception as exc:
        # Our own failure, not the solution's (those are verdicts in the report).
        log.exception("evaluation #%s: platform error", evaluation_id)
        reason = f"the evaluator failed: {type(exc).__name__}: {exc}"
        patiently(evaluation_id, lambda: services.fail(evaluation_id, reason, worker=worker))
        return
    log.info("evaluation #%s: scored", evaluation_id)


def patiently(evaluation_id: int, write: Callable[[], T], what: str = "evaluation") -> T:
    """write(), tried again on a new connection while the database cannot be reached (a restart),
    for as long as a lease lasts: after that the reaper may have queued the evaluation again, and
    the claim checks in every write keep this worker out. Each write is safe to repeat for that
    reason too: one that did land before its connection broke finds the claim already moved on."""
    deadline = time.monotonic() + settings.EVALUATION_LEASE_SECONDS
    pause = 0.5
    while True:
        try:
            return write()
        except UNREACHABLE as exc:
            if time.monotonic() + pause > deadline:
                raise
            log.warning("%s #%s: waiting for the database: %s", what, evaluation_id, exc)
            connection.close()
            time.sleep(pause)
            pause = min(2 * pause, 5.0)


def measure(evaluation: Evaluation, worker: str,
            ncu_reports: dict[str, bytes] | None = None) -> dict[str, Any]:
    """Run the harness on the evaluation's job and return the scored report (nothing stored). A
    profile run on a worker with Nsight Compute runs under it (ncu_runs), and puts the reports kept
    for the owner (profile_reports.keep) into ncu_reports, by workload uuid."""
    hardware, submission = evaluation.hardware, evaluation.submission
    cpu = hardware.slug == "cpu"
    problem = harness_problem(submission.problem)
    workloads = workloads_for(submission.problem, smoke=cpu, hidden=modes.runs_hidden(submission.mode),
                              only=submission.workload if modes.profiled(submission.mode) else "")
    flops = stored_flops_by_uuid(submission.problem)  # read now: the database may be away later
    solution = SolutionFiles(dict(submission.sources), submission.entry)

    # Verdicts in run order (visible workloads first); of the hidden ones only whether they started.
    index = {w.uuid: i for i, w in enumerate(workloads)}
    visible = sum(w.visibility == "visible" for w in workloads)
    statuses: list[str | None] = [None] * len(workloads)

    def on_progress(event: dict[str, Any]) -> None:
        position = index.get(str(event.get("uuid")))
        if position is None:
            return
        running = event.get("event") == "start"
        statuses[position] = "running" if running else str(event.get("status", ""))
        progress = stored_progress(visible, len(workloads) - visible, statuses)
        try:
            renewed = services.renew_lease(evaluation.pk, worker, progress)
        except UNREACHABLE as exc:
            # Not waited for: the harness's watchdog runs this. The next event tries again.
            log.warning("evaluation #%s: lease not renewed, the database is unreachable: %s",
                        evaluation.pk, exc)
            connection.close()
            return
        if not renewed and not running:
            log.warning("evaluation #%s: lease lost while running", evaluation.pk)

    def run(job_dir: Path, chosen: list[Workload], options: SuperviseOptions) -> HarnessOutcome:
        # The outcome's log is the solution's stderr and may quote hidden shapes: it is not logged.
        return run_harness(job_dir, [w.uuid for w in chosen], options, progress=on_progress)

    shared = shared_times(evaluation, [w.uuid for w in workloads])
    device, options = "cpu" if cpu else "cuda", mode_options(submission.mode)
    if shared is not None:
        options = {**options, **SHARED_OPTIONS}
    ncu_path = ncu_for(cpu) if modes.profiled(submission.mode) else None
    with tempfile.TemporaryDirectory(prefix=f"solarena-eval-{evaluation.pk}-") as tmp:
        if ncu_path is None:
            job_dir = Path(tmp) / "job"
            write_job(job_dir, problem, solution, workloads, seed=evaluation.seed, device=device,
                      options=options)
            outcome = run(job_dir, workloads, supervise_options(cpu))
        else:
            job = ncu_runs.ProfileJob(problem, solution, workloads, evaluation.seed, device, options)
            profiled = ncu_runs.profile(ncu_path, Path(tmp), job, supervise_options(cpu), run)
            outcome = profiled.outcome
            kept = profile_reports.keep(profiled)  # while the files are there
            if ncu_reports is not None:
                ncu_reports.update(kept)
    if shared is not None:
        outcome = replace(outcome, results=with_shared_times(outcome.results, shared))
    return build_report(problem.definition, workloads, outcome, get_hardware(hardware.slug),
                        hardware.calibrated or None, flops)


def shared_times(evaluation: Evaluation, uuids: list[str]) -> dict[str, SharedTimes] | None:
    """The stored baseline and reference times the evaluation is scored against (evaluator/baselines.py),
    or None: it times them in its own run, and a calibration of its key is requested (once)."""
    if not baselines.shares(evaluation):
        return None
    problem, hardware = evaluation.submission.problem, evaluation.hardware
    shared = baselines.lookup(problem, hardware, uuids)
    if shared is None and settings.SOLARENA_CALIBRATE_ON_MISS:
        try:
            baselines.request(problem, hardware)
        except Exception:  # the evaluation goes on without: the next one asks again
            log.exception("evaluation #%s: could not request a baseline calibration", evaluation.pk)
    return shared


@app.task(bind=True, acks_late=True, name=baselines.TASK)
def calibrate(self: Task, calibration_id: int) -> None:
    """Measure a problem version's shared baseline and reference times on this worker's hardware."""
    worker = worker_name(self)
    calibration = patiently(calibration_id, lambda: baselines.claim(calibration_id, worker), CALIBRATION)
    if calibration is None:
        log.info("baseline calibration #%s: not claimed (taken, finished or gone)", calibration_id)
        return
    refusal = sandbox_refusal()
    try:
        if refusal:
            raise RuntimeError(f"the evaluator refused to run it: {refusal}")
        uuids, runs = calibration_runs(calibration)
        stored = patiently(calibration_id, lambda: baselines.store(calibration_id, worker, runs, uuids),
                           CALIBRATION)
    except ShuttingDown:  # left for the next request to send again, at once
        patiently(calibration_id, lambda: baselines.release(calibration_id, worker), CALIBRATION)
        return
    except Exception as exc:
        log.exception("baseline calibration #%s: platform error", calibration_id)
        reason = f"{type(exc).__name__}: {exc}"
        patiently(calibration_id, lambda: baselines.fail(calibration_id, worker, reason), CALIBRATION)
        return
    log.info("baseline calibration #%s: %s", calibration_id, "stored" if stored else "claim lost")


def calibration_runs(calibration: BaselineCalibration) -> tuple[list[str], list[dict[str, Any]]]:
    """Run the harness `calibration.runs` times on every workload the hardware's evaluations run,
    the reference as the solution (checked, untimed), timing the reference and the baseline; each
    run with a fresh input seed. Returns the uuids and each run's raw results by uuid."""
    cpu = calibration.hardware.slug == "cpu"
    problem = harness_problem(calibration.problem)
    workloads = workloads_for(calibration.problem, smoke=cpu, hidden=True)
    reference = SolutionFiles({"solution.py": problem.definition.reference}, "solution.py")
    uuids, results = [w.uuid for w in workloads], []
    for _ in range(calibration.runs):
        if shutting_down():  # a warm shutdown waits for the task: not for all of its runs
            raise ShuttingDown
        with tempfile.TemporaryDirectory(prefix=f"solarena-calibration-{calibration.pk}-") as tmp:
            job_dir = Path(tmp) / "job"
            write_job(job_dir, problem, reference, workloads, seed=secrets.randbits(48),
                      device="cpu" if cpu else "cuda", options=CALIBRATION_OPTIONS)
            results.append(run_harness(job_dir, uuids, supervise_options(cpu)).results)
    return uuids, results


CALIBRATION = "baseline calibration"  # what patiently() names in its log


class ShuttingDown(Exception):
    pass


def shutting_down() -> bool:
    flags = (worker_state.should_stop, worker_state.should_terminate)
    return any(flag is not None and flag is not False for flag in flags)


def ncu_for(cpu: bool) -> str | None:
    """The Nsight Compute a profile run uses on this worker (SOLARENA_NCU), or None for torch's
    profiler: on the CPU, with ncu off, or with none on PATH. (The seam tests put a fake one in.)"""
    configured = settings.SOLARENA_NCU
    if cpu or configured == "off":
        return None
    return ncu.find_ncu() if configured == "auto" else configured


def mode_options(mode: str) -> dict[str, Any]:
    """The harness's options for a mode: a test run checks correctness and times nothing; a profile
    run checks it and lists each workload's top kernels under torch's profiler (under Nsight Compute
    where the worker has it: ncu_for, measure)."""
    if modes.profiled(mode):
        return {**UNTIMED, "profile": profiling.TORCH}
    return {} if modes.timed(mode) else dict(UNTIMED)


def supervise_options(cpu: bool) -> SuperviseOptions:
    return SuperviseOptions(
        backend=settings.SOLARENA_SANDBOX,
        memory_bytes=settings.SOLARENA_EVAL_MEMORY_BYTES,
        job_dir_bytes=settings.SOLARENA_EVAL_JOB_DIR_BYTES,
        max_processes=settings.SOLARENA_EVAL_MAX_PROCESSES,
        max_open_files=settings.SOLARENA_EVAL_MAX_OPEN_FILES,
        workload_seconds=settings.SOLARENA_WORKLOAD_SECONDS,
        total_seconds=settings.SOLARENA_EVAL_SECONDS,
        cpu_interpreter=cpu,
    )
