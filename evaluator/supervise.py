"""Supervising a harness run: start it in a sandbox, watch its progress, and when a workload hangs
or kills the process, give that workload its verdict and start again on the remaining ones.

Trusted side, no Django. The harness reports raw measurements only; this module only collects
them (scoring happens elsewhere).
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sandbox
from evaluator.harness import status
from evaluator.jobs import spec_path
from sandbox.base import describe_bytes, memory_reason

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SAFE_PATH_FLAGS = ("-P", "-s")

# The results channel: one JSON object a line, of a known kind, with fields of known types.
MAX_EVENT_BYTES = 1 << 20  # an honest event is a few KiB (a workload's timing samples)
MAX_CHANNEL_BYTES = 64 << 20  # one attempt's events, all together
MAX_EVENT_DEPTH = 16  # nested objects and arrays
READ_BYTES = 1 << 20
LATENCY_FIELDS = ("latency_ms", "reference_latency_ms", "baseline_latency_ms")
OBJECT_FIELDS = ("correctness", "timing", "reference_timing", "baseline_timing", "profile")


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
    wrapper: tuple[str, ...] = ()  # a command the harness runs under (ncu.prefix in profile mode)


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
        _end_line(results_path)
        watcher = _Watcher(results_path, options, progress, remaining)
        run = backend.run(harness_argv(options, job_dir, list(outcome.results)), job_dir,
                          _limits(options, left), _environment(job_dir, options),
                          watchdog=watcher.stalled, stdin_data=spec, stdout_path=results_path)
        watcher.read_new()
        outcome.environment = watcher.environment or outcome.environment
        outcome.results.update(watcher.results)
        outcome.log += run.stderr[-4000:]
        if watcher.solution_error:
            outcome.solution_error = watcher.solution_error
        _settle(outcome, run, watcher, remaining, options)
        if run.ended_by == "memory":
            _blame_the_memory_limit(outcome, watcher, run.reason)
    return outcome


def _blame_the_memory_limit(outcome: HarnessOutcome, watcher: _Watcher, reason: str) -> None:
    """An attempt that ended at the memory limit: a solution's process that died earlier in it,
    and was started again, most likely died of the same want (an allocation failing outside the
    solution's own call exits with no word). The status stays; only the message names the limit."""
    for uuid, verdict in watcher.results.items():
        message = verdict.get("message")
        if (verdict.get("status") == status.RUNTIME_ERROR and isinstance(message, str)
                and _DIED.match(message) and reason not in message):
            outcome.results[uuid] = {**verdict, "message": f"{reason} ({message})"}


def _settle(outcome: HarnessOutcome, run: sandbox.RunResult, watcher: _Watcher, remaining: list[str],
            options: SuperviseOptions) -> None:
    """Verdicts for the workloads an attempt left without one."""
    if watcher.malformed:
        _settle_malformed(outcome, watcher, remaining)
    elif run.ok:
        missing = [u for u in remaining if u not in outcome.results]
        for uuid in missing:  # a clean exit must have answered everything it was asked
            outcome.results[uuid] = _verdict(status.RUNTIME_ERROR, "the harness skipped this workload")
    elif watcher.current is not None:
        outcome.results[watcher.current] = _died_verdict(run, watcher, options)
        watcher.report(watcher.current, outcome.results[watcher.current])
    elif watcher.started_any is False:
        reason = _died_verdict(run, watcher, options)
        for uuid in remaining:
            outcome.results[uuid] = reason
    elif watcher.loading_since is not None:  # reloading after a death: give the next one the verdict
        following = [u for u in remaining if u not in outcome.results]
        if following:
            outcome.results[following[0]] = _died_verdict(run, watcher, options)


def _settle_malformed(outcome: HarnessOutcome, watcher: _Watcher, remaining: list[str]) -> None:
    """Only a reporter that was tampered with writes a malformed event: the workload it was on
    (all that were left when it was on none) is a reward hack; the next attempt runs the rest."""
    if watcher.current is not None:
        hit = [watcher.current]
    else:
        hit = [u for u in remaining if u not in outcome.results]
    for uuid in hit:
        outcome.results[uuid] = _verdict(status.REWARD_HACK, watcher.malformed)
        watcher.report(uuid, outcome.results[uuid])


class MalformedEvent(ValueError):
    """An event of the results channel that no honest reporter writes; the message says how."""


class _Watcher:
    """Follows the results file while the harness runs; says when it has stalled, or when the
    channel carried a malformed event (then nothing more on it is believed and the run ends)."""

    def __init__(self, path: Path, options: SuperviseOptions, progress: Progress | None,
                 expected: list[str]) -> None:
        self.path, self.options, self.progress = path, options, progress
        self.expected = set(expected)  # the workloads this attempt was asked for
        self.offset = path.stat().st_size if path.exists() else 0
        self.pending = b""  # the start of a line still being written
        self.read_bytes = 0
        self.started = time.monotonic()
        self.current: str | None = None
        self.current_since = self.started
        self.started_any = False
        self.loading_since: float | None = None
        self.results: dict[str, dict[str, Any]] = {}
        self.environment: dict[str, Any] = {}
        self.solution_error: str | None = None
        self.reason = ""
        self.malformed = ""

    def stalled(self) -> bool:
        self.read_new()
        if self.malformed:
            self.reason = self.malformed
            return True
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
        """Handles the complete lines written since the last look, in bounded chunks."""
        try:
            fh = open(self.path, "rb")
        except FileNotFoundError:
            return
        with fh:
            fh.seek(self.offset)
            while not self.malformed and (chunk := fh.read(READ_BYTES)):
                self.offset += len(chunk)
                self._feed(chunk)

    def _feed(self, chunk: bytes) -> None:
        try:
            self.read_bytes += len(chunk)
            if self.read_bytes > MAX_CHANNEL_BYTES:
                raise MalformedEvent(f"more than {describe_bytes(MAX_CHANNEL_BYTES)} of events")
            *lines, self.pending = (self.pending + chunk).split(b"\n")
            for line in lines:
                self._handle(parse_event(line))
            if len(self.pending) > MAX_EVENT_BYTES:
                raise MalformedEvent(f"a line over {describe_bytes(MAX_EVENT_BYTES)}")
        except MalformedEvent as exc:
            self.malformed = f"the results channel carried a malformed event: {exc}"

    def _handle(self, event: dict[str, Any]) -> None:
        kind = event["event"]
        if kind == "environment":
            self.environment = {k: v for k, v in event.items() if k != "event"}
        elif kind == "solution":
            self.solution_error = str(event.get("message", ""))
        elif kind == "loading":
            self.loading_since = time.monotonic()
        elif kind == "loaded":
            self.loading_since = None
        elif kind == "start":
            self._check_unsettled(event["uuid"])
            self.current, self.current_since, self.started_any = event["uuid"], time.monotonic(), True
            if self.progress:
                self.progress(event)
        elif kind == "workload":
            self._check_unsettled(event["uuid"])
            verdict = {k: v for k, v in event.items() if k not in ("event", "uuid")}
            self.results[event["uuid"]] = attribute_out_of_memory(verdict, self.options)
            self.current = None
            if self.progress:
                self.progress(event)

    def _check_unsettled(self, uuid: str) -> None:
        if uuid not in self.expected:
            raise MalformedEvent("an event about a workload it was not asked for")
        if uuid in self.results:
            raise MalformedEvent("an event about a workload that already has its verdict")

    def report(self, uuid: str, verdict: dict[str, Any]) -> None:
        """Passes on a verdict the supervisor gave."""
        if self.progress:
            self.progress({"event": "workload", "uuid": uuid, **verdict})


def parse_event(line: bytes) -> dict[str, Any]:
    """One line of the results channel as an event, or MalformedEvent saying what is wrong."""
    if len(line) > MAX_EVENT_BYTES:
        raise MalformedEvent(f"a line over {describe_bytes(MAX_EVENT_BYTES)}")
    try:
        event = json.loads(line.decode("utf-8"), parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise MalformedEvent("nested too deeply") from None
    except ValueError:  # not UTF-8, not JSON, NaN or infinity, an integer of thousands of digits
        raise MalformedEvent("not JSON") from None
    if not isinstance(event, dict):
        raise MalformedEvent(f"a JSON {type(event).__name__}, not an object")
    if _depth(event) > MAX_EVENT_DEPTH:
        raise MalformedEvent("nested too deeply")
    check = EVENT_CHECKS.get(event.get("event")) if isinstance(event.get("event"), str) else None
    if check is None:
        raise MalformedEvent("an event of no known kind")
    check(event)
    return event


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not finite")
    return value


def _depth(value: Any) -> int:
    """How deeply value nests (1: a flat object), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_EVENT_DEPTH:
            break
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _check_nothing(event: dict[str, Any]) -> None:
    pass


def _check_start(event: dict[str, Any]) -> None:
    _expect(event, "uuid", str, required=True)


def _check_solution(event: dict[str, Any]) -> None:
    _expect(event, "message", str)
    if "status" in event and event["status"] not in status.ALL:
        raise MalformedEvent("a verdict of no known kind")


def _check_workload(event: dict[str, Any]) -> None:
    _expect(event, "uuid", str, required=True)
    if event.get("status") not in status.ALL:
        raise MalformedEvent("a verdict of no known kind")
    _expect(event, "message", str)
    _expect(event, "baseline_error", str)
    _expect(event, "baseline_is_reference", bool)
    for name in OBJECT_FIELDS:
        _expect(event, name, dict)
    for name in LATENCY_FIELDS:
        value = event.get(name)
        if value is not None and (type(value) not in (int, float) or value < 0):
            raise MalformedEvent(f"{name} is not a time")


def _expect(event: dict[str, Any], name: str, kind: type, required: bool = False) -> None:
    if name not in event and not required:
        return
    if type(event.get(name)) is not kind:
        raise MalformedEvent(f"{name} is not a {kind.__name__}")


EVENT_CHECKS: dict[str, Callable[[dict[str, Any]], None]] = {
    "environment": _check_nothing,
    "solution": _check_solution,
    "loading": _check_nothing,
    "loaded": _check_nothing,
    "start": _check_start,
    "workload": _check_workload,
    "done": _check_nothing,
}


def harness_argv(options: SuperviseOptions, job_dir: Path, skip: list[str]) -> list[str]:
    """The trusted reporter's command. -P: neither the working directory nor a script's directory
    goes on sys.path; -s: no user site-packages (HOME is the job directory, which the solution
    writes). multiprocessing passes both on to the solution's process."""
    python = "python" if options.backend == "docker" else options.python  # the image's own
    return [*options.wrapper, python, *SAFE_PATH_FLAGS, "-m", "evaluator.harness", str(job_dir), "--skip",
            *skip]


def run_tool(argv: list[str], job_dir: Path, options: SuperviseOptions, seconds: float,
             stdout_path: Path) -> sandbox.RunResult:
    """A tool of ours (`ncu --import`) on what a harness run left in job_dir, in that run's sandbox,
    limits and environment: the solution could have written it. Its output goes to stdout_path,
    which should lie outside job_dir."""
    backend = sandbox.get_backend(options.backend)
    return backend.run(argv, job_dir, _limits(options, seconds), _environment(job_dir, options),
                       stdout_path=stdout_path)


def results_path_for(job_dir: Path) -> Path:
    return job_dir.with_name(job_dir.name + ".results.jsonl")


def _end_line(path: Path) -> None:
    """A reporter killed mid-line leaves half an event: end it, so the next attempt's first
    event starts a line of its own."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, "rb+") as fh:
        fh.seek(-1, os.SEEK_END)
        if fh.read(1) != b"\n":
            fh.write(b"\n")


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


def attribute_out_of_memory(verdict: dict[str, Any], options: SuperviseOptions) -> dict[str, Any]:
    """A workload that failed for want of memory inside a memory-limited sandbox reached that
    limit: a container's cgroup answers a write into a memory file at its limit with ENOMEM
    rather than a kill, and the writer reports the error. The status stays RUNTIME_ERROR, so a
    message claiming it gains nothing."""
    message = verdict.get("message")
    if (options.memory_bytes and verdict.get("status") == status.RUNTIME_ERROR
            and isinstance(message, str) and _OUT_OF_MEMORY.search(message)):
        reason = memory_reason(_limits(options, 0.0))
        return {**verdict, "message": f"{reason} ({message})"}
    return verdict


# How the reporter words the death of the solution's process in the middle of a call.
_DIED = re.compile(r"^the solution's process (exited with code|was killed by signal|ran out of memory|"
                   r"closed the harness's channel)")
_OUT_OF_MEMORY = re.compile(r"\[Errno 12\]|Cannot allocate memory|\bMemoryError\b")


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
    # CUTLASS_DIR: where the evaluator keeps CUTLASS's headers, read by the harness's build.
    for key in ("CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUTLASS_DIR", "LD_LIBRARY_PATH",
                "OPENBLAS_CORETYPE", "OMP_NUM_THREADS"):
        if key in os.environ:
            env[key] = os.environ[key]
    if options.cpu_interpreter:
        env["TRITON_INTERPRET"] = "1"
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env
