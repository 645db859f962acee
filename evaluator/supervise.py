"""Supervising a harness run: start it in a sandbox, watch its progress, and when a workload hangs
or kills the process, give that workload its verdict and start again on the remaining ones.

Trusted side, no Django. The harness reports raw measurements only; this module only collects
them (scoring happens elsewhere).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sandbox
from evaluator.harness import status
from evaluator.jobs import spec_path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAFE_PATH_FLAGS = ("-P", "-s")


@dataclass(frozen=True)
class SuperviseOptions:
    workload_seconds: float = 60.0  # one workload: correctness and timing of all three callables
    startup_seconds: float = 120.0  # importing torch and the solution (builds included)
    total_seconds: float = 1800.0
    cpu_interpreter: bool = False  # run Triton kernels with TRITON_INTERPRET=1
    python: str = sys.executable
    backend: str = "none"
    memory_bytes: int | None = 32 << 30  # host memory of the whole sandbox, its tmpfs files included
    max_processes: int | None = 64  # processes in the sandboxed tree
    max_open_files: int | None = 4096
    job_dir_bytes: int | None = sandbox.JOB_DIR_BYTES  # disk used in the job directory


@dataclass
class HarnessOutcome:
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    solution_error: str | None = None
    attempts: int = 0
    log: str = ""


Progress = Callable[[dict[str, Any]], None]


def run_harness(
    job_dir: Path,
    uuids: list[str],
    options: SuperviseOptions,
    progress: Progress | None = None,
) -> HarnessOutcome:
    """Run the harness on job_dir until every workload in uuids has a verdict."""
    outcome = HarnessOutcome()
    backend = sandbox.get_backend(options.backend)
    spec = spec_path(job_dir).read_bytes()
    results_path = results_path_for(job_dir)  # outside the job directory: the solution cannot forge it
    deadline = time.monotonic() + options.total_seconds
    while True:
        remaining = [u for u in uuids if u not in outcome.results]
        if not remaining:
            break
        if outcome.attempts > len(uuids) + 1:  # each attempt settles at least one workload
            for uuid in remaining:
                outcome.results[uuid] = _verdict(status.RUNTIME_ERROR, "the harness kept failing")
            break
        left = deadline - time.monotonic()
        if left <= 0:
            for uuid in remaining:
                outcome.results[uuid] = _verdict(status.TIMEOUT, "not run: the evaluation's total "
                                                 f"time limit of {options.total_seconds:.0f} s was reached")
            break
        outcome.attempts += 1
        watcher = _Watcher(results_path, options, progress)
        run = backend.run(harness_argv(options, job_dir, list(outcome.results)), job_dir,
                          _limits(options, left), _environment(job_dir, options),
                          watchdog=watcher.stalled, stdin_data=spec, stdout_path=results_path)
        watcher.read_new()
        outcome.environment = watcher.environment or outcome.environment
        outcome.results.update(watcher.results)
        outcome.log += run.stderr[-4000:]
        if watcher.solution_error:
            outcome.solution_error = watcher.solution_error
        if run.ok:
            missing = [u for u in remaining if u not in outcome.results]
            for uuid in missing:  # a clean exit must have answered everything it was asked
                outcome.results[uuid] = _verdict(status.RUNTIME_ERROR, "the harness skipped this workload")
            continue
        if watcher.current is not None:
            outcome.results[watcher.current] = _died_verdict(run, watcher, options)
            if progress:
                progress({"event": "workload", "uuid": watcher.current, **outcome.results[watcher.current]})
        elif watcher.started_any is False:
            reason = _died_verdict(run, watcher, options)
            for uuid in remaining:
                outcome.results[uuid] = reason
        elif watcher.loading_since is not None:  # reloading after a death: give the next one the verdict
            following = [u for u in remaining if u not in outcome.results]
            if following:
                outcome.results[following[0]] = _died_verdict(run, watcher, options)
    return outcome


class _Watcher:
    """Follows the results file while the harness runs; says when it has stalled."""

    def __init__(self, path: Path, options: SuperviseOptions, progress: Progress | None) -> None:
        self.path, self.options, self.progress = path, options, progress
        self.offset = path.stat().st_size if path.exists() else 0
        self.started = time.monotonic()
        self.current: str | None = None
        self.current_since = self.started
        self.started_any = False
        self.loading_since: float | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.environment: dict[str, Any] = {}
        self.solution_error: str | None = None
        self.reason = ""

    def stalled(self) -> bool:
        self.read_new()
        now = time.monotonic()
        if self.current is not None and now - self.current_since > self.options.workload_seconds:
            self.reason = f"the workload did not finish within {self.options.workload_seconds:.0f} s"
            return True
        loading_since = self.started if not self.started_any else self.loading_since
        if loading_since is not None and now - loading_since > self.options.startup_seconds:
            self.reason = f"the solution did not load within {self.options.startup_seconds:.0f} s"
            return True
        return False

    def read_new(self) -> None:
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8") as fh:
            fh.seek(self.offset)
            chunk = fh.read()
        complete = chunk[: chunk.rfind("\n") + 1]
        self.offset += len(complete.encode("utf-8"))
        for line in complete.splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            self._handle(event)

    def _handle(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "environment":
            self.environment = {k: v for k, v in event.items() if k != "event"}
        elif kind == "solution":
            self.solution_error = str(event.get("message", ""))
        elif kind == "loading":
            self.loading_since = time.monotonic()
        elif kind == "loaded":
            self.loading_since = None
        elif kind == "start":
            self.current, self.current_since, self.started_any = event["uuid"], time.monotonic(), True
        elif kind == "workload":
            self.results[event["uuid"]] = {k: v for k, v in event.items() if k not in ("event", "uuid")}
            self.current = None
        if self.progress and kind in ("start", "workload"):
            self.progress(event)


def harness_argv(options: SuperviseOptions, job_dir: Path, skip: list[str]) -> list[str]:
    """The trusted reporter's command. -P: neither the working directory nor a script's directory
    goes on sys.path; -s: no user site-packages (HOME is the job directory, which the solution
    writes). multiprocessing passes both on to the solution's process."""
    python = "python" if options.backend == "docker" else options.python  # the image's own
    return [python, *SAFE_PATH_FLAGS, "-m", "evaluator.harness", str(job_dir), "--skip", *skip]


def results_path_for(job_dir: Path) -> Path:
    return job_dir.with_name(job_dir.name + ".results.jsonl")


def _limits(options: SuperviseOptions, wall_seconds: float) -> sandbox.Limits:
    return sandbox.Limits(wall_seconds=wall_seconds, memory_bytes=options.memory_bytes,
                          max_processes=options.max_processes, max_open_files=options.max_open_files,
                          job_dir_bytes=options.job_dir_bytes)


def _died_verdict(run: sandbox.RunResult, watcher: _Watcher, options: SuperviseOptions) -> dict[str, Any]:
    if run.ended_by in ("timeout", "watchdog"):
        return _verdict(status.TIMEOUT, watcher.reason or "the evaluation's time limit was reached")
    if run.ended_by in ("memory", "processes", "disk"):
        return _verdict(status.RUNTIME_ERROR, run.reason)
    if run.signal:
        how = f"the process was killed by signal {run.signal}"
    else:
        how = f"the process exited with code {run.exit_code}"
    tail = run.stderr.strip().splitlines()[-1:] if run.stderr.strip() else []
    return _verdict(status.RUNTIME_ERROR, how + (f": {tail[0][:500]}" if tail else ""))


def _verdict(verdict: str, message: str) -> dict[str, Any]:
    return {"status": verdict, "message": message}


def _environment(job_dir: Path, options: SuperviseOptions) -> dict[str, str]:
    """A clean environment: nothing of the caller's (no credentials), only what the harness needs."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(job_dir),
        "PYTHONPATH": str(PROJECT_ROOT),
        # The flags of harness_argv for every interpreter started inside, whoever starts it.
        "PYTHONSAFEPATH": "1",
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "TRITON_CACHE_DIR": str(job_dir / ".triton"),
        "TORCH_EXTENSIONS_DIR": str(job_dir / ".torch_extensions"),
    }
    for key in ("CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LD_LIBRARY_PATH", "OPENBLAS_CORETYPE",
                "OMP_NUM_THREADS"):
        if key in os.environ:
            env[key] = os.environ[key]
    if options.cpu_interpreter:
        env["TRITON_INTERPRET"] = "1"
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env
