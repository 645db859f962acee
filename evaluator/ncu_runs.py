"""Profile mode under Nsight Compute (docs/measuring.md, "Profile mode"), for `solarena eval
--profile` and the GPU workers alike: each workload gets a harness run of its own under ncu
(harness/ncu.py), in the sandbox and limits the caller gives, exporting its own report, which
`ncu --import` reads back, in the same sandbox, into the workload's `profile`. The report is
written where the solution can write too: what is read of it is bounded, lists kernels and
enters no score, and the file is opened only as a regular file, never through a link.

Where ncu fails (the harness never started under it, or a passing run left no readable report),
ncu is given up: that workload and the ones after it run once more under torch's profiler, and
their profiles say why (`ncu_error`)."""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from evaluator.harness import ncu, profiling, status
from evaluator.harness.problem import Problem, Workload
from evaluator.jobs import SolutionFiles, write_job
from evaluator.supervise import HarnessOutcome, SuperviseOptions, run_tool

REPORT = "profile.ncu-rep"  # in the job directory: writable in every sandbox
CSV_BYTES = 32 << 20  # ncu's CSV of one report, read back at most
ERROR_CHARS = 500
LOG_CHARS = 16_000

# Runs the harness on a job directory's workloads: run_harness, with the caller's progress bar or
# lease renewals around it.
Run = Callable[[Path, list[Workload], SuperviseOptions], HarnessOutcome]


@dataclass(frozen=True)
class ProfileJob:
    problem: Problem
    solution: SolutionFiles
    workloads: list[Workload]
    seed: int
    device: str
    options: dict[str, Any]  # the harness's options (UNTIMED, profile_calls); `profile` is set here


@dataclass
class NcuProfile:
    outcome: HarnessOutcome = field(default_factory=HarnessOutcome)
    reports: dict[str, Path] = field(default_factory=dict)  # workload uuid -> its report
    error: str | None = None  # why ncu was given up, where it was


def profile(ncu_path: str, scratch: Path, job: ProfileJob, supervise: SuperviseOptions,
            run: Run) -> NcuProfile:
    """Every workload of `job` under ncu (under torch's profiler once ncu failed), all within
    supervise.total_seconds."""
    done = NcuProfile()
    deadline = time.monotonic() + supervise.total_seconds
    fallback: list[Workload] = []
    for index, workload in enumerate(job.workloads):
        if done.error is not None:
            fallback.append(workload)
            continue
        if time.monotonic() >= deadline:
            _out_of_time(done.outcome, job.workloads[index:], supervise.total_seconds)
            return done
        job_dir = scratch / f"ncu-{index}"
        write_job(job_dir, job.problem, job.solution, [workload], seed=job.seed, device=job.device,
                  options={**job.options, "profile": profiling.NCU})
        export = job_dir / REPORT
        under_ncu = replace(supervise, total_seconds=_left(deadline),
                            wrapper=tuple(ncu.prefix(ncu_path, export)))
        attempt = run(job_dir, [workload], under_ncu)
        _merge(done.outcome, attempt)
        result = done.outcome.results.get(workload.uuid, {})
        if not attempt.environment:  # the harness never said a word: ncu did not start it
            done.error = "ncu did not start the harness" + _said(attempt.log)
        elif result.get("status") != status.PASSED:
            continue  # the solution's own verdict: nothing to profile
        else:
            try:
                launches = read_back(ncu_path, export, job_dir, supervise, attempt.log)
            except ncu.NcuError as exc:
                done.error = str(exc)[:ERROR_CHARS]
            else:
                result["profile"] = ncu_profile(launches, job)
                done.reports[workload.uuid] = export
                continue
        fallback.append(workload)
    if fallback and time.monotonic() >= deadline:
        _out_of_time(done.outcome, fallback, supervise.total_seconds)
    elif fallback:
        _with_torch(scratch, job, fallback, supervise, deadline, run, done)
    for workload in fallback:
        profile = (done.outcome.results.get(workload.uuid) or {}).get("profile")
        if profile:
            profile["ncu_error"] = done.error
    return done


def ncu_profile(launches: list[dict[str, Any]], job: ProfileJob) -> dict[str, Any]:
    """A workload's `profile` from the launches of its report, in the form of profiling.py's."""
    kernels = ncu.summarize(launches)
    for kernel in kernels:
        kernel["name"] = str(kernel["name"])[:profiling.MAX_NAME]
    return {"tool": profiling.NCU, "device": job.device,
            "calls": int(job.options.get("profile_calls", profiling.CALLS)),
            "kernels": kernels[:profiling.MAX_KERNELS], "truncated": len(kernels) > profiling.MAX_KERNELS}


def read_back(ncu_path: str, report: Path, job_dir: Path, supervise: SuperviseOptions,
              log: str = "") -> list[dict[str, Any]]:
    """The launches of a run's report (ncu.parse_details), through `ncu --import` in the run's
    sandbox; NcuError when there is none to read."""
    try:
        open_report(report).close()
    except ncu.NcuError as exc:
        raise ncu.NcuError(f"{exc}{_said(log)}") from None
    csv_path = job_dir.with_name(job_dir.name + ".ncu.csv")  # outside the job directory
    done = run_tool(ncu.import_command(ncu_path, report), job_dir, supervise, supervise.startup_seconds,
                    csv_path)
    if not done.ok:
        how = done.reason or (f"exited with code {done.exit_code}" if done.exit_code is not None
                              else f"was killed by signal {done.signal}")
        raise ncu.NcuError(f"ncu --import {how}{_said(done.stderr)}")
    if csv_path.stat().st_size > CSV_BYTES:
        raise ncu.NcuError(f"ncu --import printed more than {CSV_BYTES >> 20} MiB")
    return ncu.parse_details(csv_path.read_text(encoding="utf-8", errors="replace"))


def open_report(path: Path) -> IO[bytes]:
    """The report for reading, if it is a regular file: never through a link the solution left
    there (it would read the reader's files), nor a FIFO that would block."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ncu.NcuError("the report is a link, not a file") from None
        raise ncu.NcuError(f"ncu wrote no report ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ncu.NcuError("the report is not a regular file")
    return os.fdopen(fd, "rb")


def _with_torch(scratch: Path, job: ProfileJob, workloads: list[Workload], supervise: SuperviseOptions,
                deadline: float, run: Run, done: NcuProfile) -> None:
    job_dir = scratch / "torch"
    write_job(job_dir, job.problem, job.solution, workloads, seed=job.seed, device=job.device,
              options={**job.options, "profile": profiling.TORCH})
    _merge(done.outcome, run(job_dir, workloads, replace(supervise, total_seconds=_left(deadline))))


def _merge(outcome: HarnessOutcome, attempt: HarnessOutcome) -> None:
    outcome.results.update(attempt.results)
    outcome.environment = attempt.environment or outcome.environment
    outcome.solution_error = outcome.solution_error or attempt.solution_error
    outcome.attempts += attempt.attempts
    outcome.log = (outcome.log + attempt.log)[-LOG_CHARS:]


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 1.0)


def _out_of_time(outcome: HarnessOutcome, workloads: list[Workload], total: float) -> None:
    """Workloads left without a verdict when the time is up (one that ran under ncu keeps its own)."""
    message = f"not run: the evaluation's total time limit of {total:.0f} s was reached"
    for workload in workloads:
        outcome.results.setdefault(workload.uuid, {"status": status.TIMEOUT, "message": message})


def _said(log: str) -> str:
    """ncu's errors (==ERROR== lines) in a run's stderr, else its last line, as ": ..."."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("==ERROR==")]
    said = " ".join(errors[-3:] or lines[-1:])
    return f": {said[:ERROR_CHARS]}" if said else ""
