"""The reporter (trusted): runs a job against the solution's process. It calibrates its own clock
on the harness's null problem before the solution is imported; then, per workload, it draws the
inputs of every call itself and puts them in buffers it shares with the solution's process,
clocks each call from outside (on a GPU, with its own stream's events around the call:
gpu_bracket.py), checks every output, as it was when the call said done, against the reference
it computes on its own copy of the inputs, holds the reported times to its own clock, and times
the reference and the baseline itself with the solution's side paused. It never imports the
solution. One failing workload never stops the others."""

from __future__ import annotations

import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from . import status
from .buffers import share_cuda
from .calibration import (
    NULL_DEFINITION,
    NULL_TIMING,
    NULL_WORKLOAD,
    Calibration,
    GpuCall,
    beyond_bracket,
    hold,
    scored_ms,
)
from .checks import CheckResult, as_output_list, check_outputs
from .environment import describe
from .freezer import Freezer
from .gpu_bracket import GpuBracket, GpuBusy, Pending, SolutionDidNotFinish, gpu_idle_or_raise
from .gpu_clock import sm_clock_mhz
from .inputs import InputError, derive_seed, empty_outputs, make_inputs, scrub, torch_dtype
from .modules import describe_exception, import_file
from .problem import Definition, Tolerance, Workload, definition_from_json, workload_from_json
from .processes import DormantTasks, PauseFailed, Task, newcomers
from .processes import describe as describe_tasks
from .profiling import CALLS as PROFILED_CALLS
from .profiling import TOOLS as PROFILE_TOOLS
from .profiling import validate as validate_profile
from .solution_process import ChannelTampered, SolutionDied, SolutionProcess
from .timing import Sample, Timing, TimingOptions, measure, time_callable

# An inside clock below this share of the outside one, on calls the outside clock puts above
# CLOCK_FLOOR_MS, and short of it by more than CLOCK_MARGIN_MS, was tampered with (honest: the
# outside adds the output copy and messaging). The margin covers a loaded host, whose scheduling
# delays every message of a call: an honest 0.1 ms call was clocked at 1 ms at the least, from
# outside, with two sandboxes busy on two cores. Only the label depends on it: on the CPU the
# score takes the outside clock whatever the inside one says.
CLOCK_RATIO = 0.1
CLOCK_FLOOR_MS = 0.02
CLOCK_MARGIN_MS = 5.0
# Under this no call of Python code takes, loaded host or not: an inside clock this low was edited.
CLOCK_IMPOSSIBLE_MS = 0.001
HOST_SLACK_MS = 0.05  # clock-reading allowance when bounding reported times by the reporter's clock


@dataclass
class Job:
    directory: Path
    definition: Definition
    workloads: list[Workload]
    solution_path: Path
    seed: int
    device: torch.device
    correctness_rounds: int
    timing: TimingOptions
    time_solution: bool = True  # False: correctness only (the `test` mode), no time at all
    time_reference: bool = True
    time_baseline: bool = True
    profile: str | None = None  # profiling.TOOLS: profile a few calls after correctness (and timing)
    profile_calls: int = PROFILED_CALLS

    @classmethod
    def from_spec(cls, data: dict[str, Any], directory: Path) -> Job:
        definition = definition_from_json(data["definition"], "job")
        workloads = [
            workload_from_json(w, definition, f"job workload {i}", base_dir=directory / "problem",
                               visibility=w.get("visibility", "visible"), smoke=w.get("smoke", False))
            for i, w in enumerate(data["workloads"])
        ]
        device = pick_device(data.get("device", "auto"))
        options = data.get("options", {})
        cpu = device.type == "cpu"
        return cls(
            directory=directory,
            definition=definition,
            workloads=workloads,
            solution_path=directory / data["solution"],
            seed=int(data["seed"]),
            device=device,
            correctness_rounds=int(options.get("correctness_rounds", 3 if cpu else 5)),
            timing=TimingOptions.for_device(device, options.get("timing")),
            time_solution=bool(options.get("time_solution", True)),
            time_reference=bool(options.get("time_reference", True)),
            time_baseline=bool(options.get("time_baseline", True)),
            profile=_profile_tool(options.get("profile")),
            profile_calls=max(1, int(options.get("profile_calls", PROFILED_CALLS))),
        )


def _profile_tool(value: Any) -> str | None:
    if value is not None and value not in PROFILE_TOOLS:
        raise ValueError(f"unknown profiling tool {value!r} (known: {', '.join(PROFILE_TOOLS)})")
    return value


def pick_device(name: str) -> torch.device:
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError("this job asks for a CUDA device but none is visible")
    device = torch.device(name)
    if device.type == "cuda" and device.index is None:  # both processes must name the same device
        device = torch.device("cuda", torch.cuda.current_device())
    return device


@dataclass
class GatedCall:
    observed_ms: list[float] = field(default_factory=list)  # the reporter's host clock of each call
    brackets: list[Any] = field(default_factory=list)  # on a GPU, its GPU clock (CallBracket)
    sm_clock_mhz: list[float | None] = field(default_factory=list)  # the GPU's, read after each call
    checks: list[CheckResult] = field(default_factory=list)
    reply: dict[str, Any] = field(default_factory=dict)


class CallFailed(Exception):
    def __init__(self, verdict: str, message: str, correctness: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.verdict, self.message, self.correctness = verdict, message, correctness


Emit = Callable[[dict[str, Any]], None]


@dataclass
class ProblemCode:
    reference: Callable[..., Any]
    baseline: Callable[..., Any] | None
    custom: Callable[..., Any] | None


def load_problem_code(job: Job) -> ProblemCode:
    """Import the reference and baseline from the job's spec, not from files the solution could
    have rewritten."""
    reference = import_problem_source(job.definition.reference, "solarena_reference")
    baseline = None
    if job.definition.baseline is not None:
        baseline = import_problem_source(job.definition.baseline, "solarena_baseline").run
    entry = job.definition.custom_inputs_entrypoint
    return ProblemCode(reference.run, baseline, getattr(reference, entry) if entry else None)


def import_problem_source(source: str, module_name: str) -> ModuleType:
    """Triton needs kernels in real files: the source goes to a directory of the reporter's own."""
    private = Path(tempfile.mkdtemp(prefix="solarena-problem-"))
    (private / f"{module_name}.py").write_text(source, encoding="utf-8")
    return import_file(private / f"{module_name}.py", module_name)


@dataclass
class Session:
    """The solution's process, once calibrated and loaded."""

    process: SolutionProcess
    calibration: Calibration
    harness_tasks: list[Task]  # threads and processes of the solution's side before the import
    bracket: GpuBracket | None = None  # on a GPU: the reporter's own clock of each call
    dormant: DormantTasks = field(default_factory=DormantTasks)


def run_job(job: Job, emit: Emit, skip: Iterable[str] = (), freezer: Freezer | None = None) -> None:
    emit({"event": "environment", **describe(job.device),
          "pausing": freezer.name if freezer is not None else "signals"})
    code = load_problem_code(job)
    skipped = set(skip)
    session: Session | None = None
    load_failure: dict[str, Any] | None = None
    for workload in job.workloads:
        if workload.uuid in skipped:
            continue
        if session is None and load_failure is None:
            emit({"event": "loading"})
            session, load_failure = start_solution(job, freezer)
            emit({"event": "loaded"})
            if load_failure is not None:
                emit({"event": "solution", **load_failure})
        emit({"event": "start", "uuid": workload.uuid})
        if session is None:
            result = dict(load_failure or {})
        else:
            try:
                result = WorkloadRun(job, workload, session, code).run()
            except (SolutionDied, PauseFailed, SolutionDidNotFinish) as exc:
                result = {"status": status.RUNTIME_ERROR, "message": str(exc)}
                if isinstance(exc, ChannelTampered):
                    result = {"status": status.REWARD_HACK, "message": f"result forgery: {exc}"}
                session.process.close()
                session = None  # a fresh process for the next workload
        emit({"event": "workload", "uuid": workload.uuid, **result})
        _release(job.device)
    if session is not None:
        session.process.close()
    emit({"event": "done"})


def start_solution(job: Job, freezer: Freezer | None = None) -> tuple[Session | None, dict[str, Any] | None]:
    """Start the solution's process, calibrate the reporter's clock on it before any user code
    is there, note the threads and processes of the harness's own, then import the solution."""
    process = SolutionProcess(freezer)
    try:
        prepared = process.request("prepare", device=str(job.device), definition=NULL_DEFINITION)
        if prepared.get("seccomp_error"):
            print(f"solarena: no seccomp filter in the solution's process: {prepared['seccomp_error']}",
                  file=sys.stderr)
        bracket = GpuBracket(job.device, torch.cuda.MemPool()) if job.device.type == "cuda" else None
        calibration = calibrate(job, process, bracket)
        process.pause()
        harness_tasks = process.tasks()
        reply = process.request("load", definition=job.definition.to_json(),
                                problem_dir=str(job.directory / "problem"),
                                solution=str(job.solution_path))
    except (SolutionDied, PauseFailed, SolutionDidNotFinish) as exc:
        process.close()
        return None, {"status": status.RUNTIME_ERROR, "message": f"while importing the solution: {exc}"}
    except CallFailed as exc:  # the harness's own null problem: nothing of the solution ran yet
        process.close()
        return None, {"status": status.RUNTIME_ERROR, "message": f"the harness's calibration failed: "
                      f"{exc.message}"}
    if not reply.get("ok"):
        process.close()
        verdict = reply.get("status")
        return None, {"status": verdict if verdict in status.ALL else status.COMPILE_ERROR,
                      "message": str(reply.get("message", ""))[:2000]}
    return Session(process, calibration, harness_tasks, bracket), None


def calibrate(job: Job, process: SolutionProcess, bracket: GpuBracket | None) -> Calibration:
    """Time the harness's own null problem through the same gated calls as any solution."""
    definition = definition_from_json(NULL_DEFINITION, "calibration")
    null_job = Job(job.directory, definition, [], job.solution_path, job.seed, job.device,
                   correctness_rounds=1, timing=TimingOptions.for_device(job.device, NULL_TIMING),
                   time_reference=False, time_baseline=False)
    workload = workload_from_json(NULL_WORKLOAD, definition, "calibration")
    reference = import_problem_source(definition.reference, "solarena_null_reference")
    run = WorkloadRun(null_job, workload, Session(process, Calibration(0.0, 0.0, 0.0, 0), [], bracket),
                      ProblemCode(reference.run, None, None))
    outcome = run.run()
    if outcome["status"] != status.PASSED:
        raise CallFailed(outcome["status"], outcome.get("message", ""))
    if bracket is not None:
        return Calibration.from_gpu_calls(run.gpu_calls)
    return Calibration.from_cpu_calls([outside - inside for inside, outside in run.clocks])


class WorkloadRun:
    """Correctness and timing of one workload."""

    def __init__(self, job: Job, workload: Workload, session: Session, code: ProblemCode) -> None:
        self.job, self.workload, self.session, self.code = job, workload, session, code
        self.process = session.process
        self.bracket = session.bracket
        self.definition = job.definition
        self.axes = self.definition.resolve_axes(workload.axes)
        self.specs = list(self.definition.outputs.values())
        self.tolerance: Tolerance = workload.tolerance
        slots = max(job.timing.batch, job.timing.warmup, job.profile_calls if job.profile else 1, 1)
        self.pool = torch.cuda.MemPool() if job.device.type == "cuda" else None
        if self.pool is None:
            self.process.arena.release()  # the last workload's buffers are gone: start again
        self.buffers = [self.shared(lambda: empty_outputs(self.definition, self.axes, job.device))
                        for _ in range(slots)]
        # On a GPU the outputs are checked as the reporter's stream froze them at the call's done
        self.frozen = ([[torch.empty_like(b) for b in slot] for slot in self.buffers] if self.pool is not None
                       else self.buffers)
        self.inputs: list[torch.Tensor | None] = []
        self.clocks: list[tuple[float, float]] = []  # (inside, outside) ms of each timed call
        self.gpu_calls: list[GpuCall] = []  # each timed call, as reported and as bracketed
        self.prelude_ref_ms = 0.0
        self.pending: Pending | None = None  # a bracket queued on the GPU and not yet settled

    def run(self) -> dict[str, Any]:
        try:
            probe = self.make_args(self.seed("layout", 0))
            self.inputs = self.input_buffers(probe)
            self.process.request("workload", axes=self.axes, inputs=[self.describe(t) for t in self.inputs],
                                 buffers=[[self.describe(t) for t in slot] for slot in self.buffers],
                                 signals=self.bracket.describe() if self.bracket is not None else None)
            if self.bracket is not None:  # the prelude on an idle GPU: the reference for every call
                self.process.pause()
                self.prelude_ref_ms = self.bracket.calibrate_prelude(self.input_pairs(probe))
            correctness = self.check_rounds()
            if not self.job.time_solution:
                untimed = {"status": status.PASSED, "message": "", "correctness": correctness,
                           **self.profile_solution()}
                if self.job.time_reference or self.job.time_baseline:  # a shared baseline's calibration
                    self.process.pause()
                    self.time_problem_code(untimed)
                return untimed
            timing = measure(self.solution_batch, self.job.timing, self.clock)
            self.check_clocks()
            profiled = self.profile_solution()  # after timing, which it must not disturb
            out: dict[str, Any] = {"status": status.PASSED, "message": "", "correctness": correctness,
                                   "latency_ms": timing.latency_ms, "timing": timing.to_json(), **profiled}
            if self.bracket is not None and self.session.calibration.calls:
                out["timing"]["outside"] = hold(self.gpu_calls, self.session.calibration,
                                                self.prelude_ref_ms).to_json()
            self.process.pause()  # nothing of the solution's side runs while its yardsticks are timed
            self.time_problem_code(out)
        except CallFailed as exc:
            failed: dict[str, Any] = {"status": exc.verdict, "message": exc.message}
            if exc.correctness is not None:
                failed["correctness"] = exc.correctness
            return failed
        except GpuBusy as exc:
            return {"status": status.REWARD_HACK, "message": str(exc)}
        except InputError as exc:
            return {"status": status.INVALID_REFERENCE, "message": f"input generation: {exc}"}
        finally:
            self.release_pending()
        return out

    @property
    def clock(self) -> str:
        return "gpu_activity" if self.job.device.type == "cuda" else "host"

    def describe(self, tensor: torch.Tensor | None) -> dict[str, Any] | None:
        """How the solution's process finds a shared tensor (buffers.py)."""
        if tensor is None:
            return None
        return share_cuda(tensor) if self.pool is not None else self.process.arena.describe(tensor)

    def release_pending(self) -> None:
        """A bracket still queued when a call broke off: write its words, so that the reporter's
        stream does not wait on them for good."""
        if self.pending is not None and self.bracket is not None:
            self.bracket.unblock(self.pending.ticket)
            torch.cuda.synchronize(self.job.device)
            self.pending = None

    # ------------------------------------------------------------ the solution

    def check_rounds(self) -> dict[str, Any]:
        worst_ratio, worst_err, worst_rel = 1.0, 0.0, 0.0
        for round_index in range(self.job.correctness_rounds):
            call = self.gated_call([self.seed("check", round_index)], False, f"round {round_index + 1}")
            worst_ratio = min(worst_ratio, call.checks[0].matched_ratio or 1.0)
            worst_err = max(worst_err, call.checks[0].max_abs_error or 0.0)
            worst_rel = max(worst_rel, call.checks[0].max_rel_error or 0.0)
        return {"rounds": self.job.correctness_rounds, "max_abs_error": worst_err,
                "max_rel_error": worst_rel, "min_matched_ratio": worst_ratio}

    def profile_solution(self) -> dict[str, Any]:
        """{"profile": ...} of a few more calls, each checked like any other, when the job asks for
        it; else nothing. The profile is the solution's process's own account: validated, never
        scored."""
        if self.job.profile is None:
            return {}
        count = self.job.profile_calls
        seeds = [self.seed("profile", j) for j in range(count)]
        call = self.gated_call(seeds, False, "a profiled call", profile=self.job.profile)
        try:
            return {"profile": validate_profile(call.reply.get("profile"), count, self.job.profile)}
        except ValueError as exc:
            raise CallFailed(status.REWARD_HACK, f"malformed profile report: {exc}") from None

    def solution_batch(self, first: int, count: int, timed: bool) -> list[Sample]:
        seeds = [self.seed("time", first + j) for j in range(count)]
        when = "a timed call" if timed else "a warm-up call"
        call = self.gated_call(seeds, timed, when)
        return self.reported_samples(call, count) if timed else []

    def gated_call(self, seeds: list[int], timed: bool, when: str, profile: str | None = None) -> GatedCall:
        """Run a batch in the solution's process, one call at a time. When it is ready for a call,
        the reporter pauses it, draws the call's inputs and puts them in the shared buffers (on a
        GPU: queues its own stream's bracket of the call, which copies them in), then starts
        its clock and says go; the call is over when its outputs are in the shared buffers: the
        reporter pauses the solution's side again, stops its clock, (on a GPU, waits for its
        stream's freeze of the outputs) and checks them, and that nothing of the solution's was
        left running, before the next call starts."""
        nonce = self.process.send("call", count=len(seeds), timed=timed, profile=profile)
        call = GatedCall()
        opened_at: float | None = None
        args: list[Any] = []
        while True:
            message = self.process.receive()
            if message["kind"] == "reply":
                reply = self.process.reply_to(nonce, message)
                self.raise_failure(reply, when)
                if len(call.observed_ms) != len(seeds):
                    raise ChannelTampered("the solution's process skipped the harness's gate")
                call.reply = reply
                return call
            position = message.get("position")
            if position != len(call.observed_ms) or (message["kind"] == "ready") != (opened_at is None):
                raise ChannelTampered("a gate message came out of turn on the harness's channel")
            if message["kind"] == "ready":
                self.process.pause()
                try:
                    args = self.make_args(seeds[position])
                    scalars = self.fill_inputs(args, position)
                except Exception:
                    self.stop(nonce)  # the solution's process must not be left waiting mid-batch
                    raise
                opened_at = time.perf_counter()
                self.process.send("go", scalars=scalars, ticket=self.pending.ticket if self.pending else 0)
                continue
            assert opened_at is not None
            pids = self.process.pause()  # its outputs can change no more: then the clock stops
            call.observed_ms.append((time.perf_counter() - opened_at) * 1e3)
            opened_at = None
            try:
                if self.bracket is not None and self.pending is not None:
                    call.brackets.append(self.settle())
                call.sm_clock_mhz.append(sm_clock_mhz(self.job.device) if timed else None)
                self.check_left_running(pids, timed)
                check = self.verify_slot(position, args)
            except Exception:
                self.stop(nonce)
                raise
            if not check.ok:
                self.stop(nonce)
                prefix = f"{when} returned a wrong result" if timed else when
                raise CallFailed(check.status, f"{prefix}: {check.message}", check.error_figures())
            call.checks.append(check)
            self.process.send("next")

    def settle(self) -> Any:
        """The bracket of the call that just said done, once the reporter's stream froze its
        outputs."""
        assert self.bracket is not None and self.pending is not None
        pending, self.pending = self.pending, None
        try:
            return self.bracket.settle(pending)
        except SolutionDidNotFinish as exc:
            raise CallFailed(status.REWARD_HACK, f"result forgery: {exc}") from None

    def stop(self, nonce: int) -> None:
        self.process.send("stop")
        self.process.reply_to(nonce, self.process.receive())

    def fill_inputs(self, args: list[Any], position: int) -> dict[str, Any]:
        """Put a call's tensors in the shared input buffers: on the CPU by copying them now, on a
        GPU by queuing the bracket of the call (gpu_bracket.py), whose prelude copies them and
        flushes the L2 and whose end freezes the outputs of slot `position`. The other
        arguments travel with the go."""
        scalars, pairs = {}, []
        for index, (arg, buffer) in enumerate(zip(args, self.inputs, strict=True)):
            if buffer is None:
                scalars[str(index)] = _plain(arg)
            elif self.bracket is None:
                buffer.copy_(arg)
            else:
                pairs.append((arg, buffer))
        if self.bracket is not None:
            self.pending = self.bracket.arm(pairs, list(zip(self.buffers[position], self.frozen[position],
                                                            strict=True)))
        return scalars

    def check_left_running(self, pids: list[int], timed: bool) -> None:
        """No thread or process of the solution's side that was not there before the import may
        work through a timed call: it could work outside the call. A thread that shows up in an
        untimed call may stay if it idles through timed ones (a compiler's worker pool); a new
        process may not, idle or not: the GPU work of its own context is in no record of ours."""
        known = self.session.harness_tasks
        extra = newcomers(known, self.process.tasks(pids, known))
        if not extra or not self.session.calibration.calls:
            return
        processes = {t.pid for t in known}
        working = [t for t in extra if t.pid not in processes]
        working += self.session.dormant.working([t for t in extra if t.pid in processes],
                                                self.process.side.pauses, timed,
                                                frozen=self.process.side.freezer is not None)
        if working:
            raise CallFailed(status.REWARD_HACK,
                             f"{len(working)} thread(s) or process(es) the harness did not start "
                             f"were running during a call ({describe_tasks(working)[:200]}): work "
                             "must be done inside run(...); a library's helper thread may stay only "
                             "if it idles while calls are timed")

    def reported_samples(self, call: GatedCall, count: int) -> list[Sample]:
        """The solution's process reports its own times: they must be well-formed and fit inside
        the reporter's own clock of each call. On the CPU the time is the reporter's clock less
        its own least overhead; on a GPU the reported activity span, held to the reporter's
        bracket of the call (calibration.py)."""
        raw = call.reply.get("samples")
        try:
            if not isinstance(raw, list) or len(raw) != count:
                raise ValueError(f"{count} timing samples were expected")
            reported = [Sample.from_json(s) for s in raw]
        except ValueError as exc:
            raise CallFailed(status.REWARD_HACK, f"malformed timing report: {exc}") from None
        calibration = self.session.calibration
        samples = []
        rows = zip(reported, call.observed_ms, call.sm_clock_mhz, strict=True)
        for index, (sample, observed, sm_clock) in enumerate(rows):
            if sample.host_ms > observed + HOST_SLACK_MS:
                raise CallFailed(status.REWARD_HACK, "a reported time exceeds the time the call took "
                                 "as seen from outside: the timing report was tampered with")
            if self.bracket is None:
                outside = max(observed - calibration.least_ms, 0.0)
                samples.append(Sample(host_ms=outside, sm_clock_mhz=sm_clock))
                self.clocks.append((sample.host_ms, outside))
                continue
            bracket = call.brackets[index]
            gpu_call = GpuCall(sample.gpu_ms, bracket, bracket.bound_ms(self.prelude_ref_ms))
            if beyond_bracket(gpu_call):
                raise CallFailed(status.REWARD_HACK, "a reported GPU time exceeds the time the call held "
                                 "the GPU as the harness's own stream saw it: the timing report was "
                                 "tampered with")
            self.gpu_calls.append(gpu_call)
            samples.append(Sample(host_ms=observed, gpu_ms=scored_ms(gpu_call, calibration),
                                  event_ms=sample.event_ms, sm_clock_mhz=sm_clock))
            self.clocks.append((sample.host_ms, observed))
        return samples

    def check_clocks(self) -> None:
        """The solution's process clocks each call from inside, the reporter from outside (which
        adds only the copy of the outputs and message latency). An inside clock far below the
        outside one means the inside clock was tampered with."""
        if not self.clocks:
            return
        inside = statistics.median(c[0] for c in self.clocks)
        outside = min(c[1] for c in self.clocks)  # the least disturbed: a loaded host only adds
        edited = inside < CLOCK_IMPOSSIBLE_MS
        if outside > CLOCK_FLOOR_MS and (edited or (inside < CLOCK_RATIO * outside
                                                    and outside - inside > CLOCK_MARGIN_MS)):
            raise CallFailed(status.REWARD_HACK,
                             f"the solution's process clocked its calls at {inside:.3g} ms, the harness "
                             f"at {outside:.3g} ms from outside: its timing was tampered with")

    def raise_failure(self, reply: dict[str, Any], when: str) -> None:
        failure = reply.get("failure")
        if failure is None:
            return
        verdict = failure.get("status") if isinstance(failure, dict) else None
        message = failure.get("message", "") if isinstance(failure, dict) else None
        if verdict not in status.ALL or verdict == status.PASSED or not isinstance(message, str):
            raise CallFailed(status.REWARD_HACK, f"{when}: the solution's process sent a malformed verdict")
        raise CallFailed(verdict, f"{when}: {message[:2000]}")

    def verify_slot(self, slot: int, args: list[Any]) -> CheckResult:
        """Check the outputs as they were at the call's done (on a GPU, the reporter's frozen
        copies; on the CPU, the shared buffers of the paused side)."""
        expected = self.expected(args)
        try:
            return check_outputs(self.frozen[slot], expected, self.specs, self.tolerance)
        finally:
            scrub(expected)
            scrub(self.buffers[slot])  # an output the next call does not write fails
            if self.frozen[slot] is not self.buffers[slot]:
                scrub(self.frozen[slot])

    def expected(self, args: list[Any]) -> list[torch.Tensor]:
        try:
            return self.reference_outputs(args)
        except Exception as exc:
            raise CallFailed(status.INVALID_REFERENCE,
                             f"the reference failed: {describe_exception(exc)}") from None

    # ------------------------------------------------------------ reference and baseline

    def time_problem_code(self, out: dict[str, Any]) -> None:
        """Time the reference and the baseline, the solution's side paused (and on a GPU, none of
        its work left running there, before or after)."""
        if self.bracket is not None:
            gpu_idle_or_raise(self.job.device)
        self.time_yardsticks(out)
        if self.bracket is not None:
            gpu_idle_or_raise(self.job.device)

    def time_yardsticks(self, out: dict[str, Any]) -> None:
        if self.job.time_reference:
            ref = self.time_local(self.code.reference, verify=False)
            out["reference_latency_ms"] = ref.latency_ms
            out["reference_timing"] = ref.to_json()
        if self.job.time_baseline and self.code.baseline is not None:
            try:
                base = self.time_local(self.code.baseline, verify=True)
                out["baseline_latency_ms"] = base.latency_ms
                out["baseline_timing"] = base.to_json()
            except CallFailed as exc:
                out["baseline_error"] = exc.message
            except Exception as exc:
                out["baseline_error"] = describe_exception(exc)
        elif self.job.time_baseline and "reference_latency_ms" in out:
            out["baseline_latency_ms"] = out["reference_latency_ms"]
            out["baseline_is_reference"] = True

    def time_local(self, fn: Callable[..., Any], verify: bool) -> Timing:
        """Time the reference or the baseline here, on the same fresh inputs as the solution.
        verify: check the outputs of the warm-up calls (the baseline is the problem's own code,
        which nothing of the solution's can reach: checking every timed call too would only cost
        a reference computation each)."""
        checked = max(self.job.timing.warmup, 1)

        def check(i: int, result: Any) -> None:
            if verify and i < checked:
                outputs = as_output_list(result, len(self.specs))
                outcome = outputs if isinstance(outputs, CheckResult) else check_outputs(
                    outputs, self.expected(self.make_args(self.seed("time", i))), self.specs,
                    self.tolerance)
                if not outcome.ok:
                    scrub(result)
                    raise CallFailed(outcome.status,
                                     f"the baseline returned a wrong result: {outcome.message}")
            scrub(result)

        with torch.no_grad():
            return time_callable(lambda i: self.make_args(self.seed("time", i)), lambda args: fn(*args),
                                 check, self.job.device, self.job.timing)

    def reference_outputs(self, args: list[Any]) -> list[torch.Tensor]:
        with torch.no_grad():
            result = self.code.reference(*args)
        if self.job.device.type == "cuda":
            torch.cuda.synchronize(self.job.device)
        outputs = as_output_list(result, len(self.specs))
        if isinstance(outputs, CheckResult):
            raise RuntimeError(f"reference: {outputs.message}")
        for out, spec in zip(outputs, self.specs, strict=False):
            shape = self.definition.shape(spec, self.axes)
            if not isinstance(out, torch.Tensor) or tuple(out.shape) != shape or (
                out.dtype != torch_dtype(spec.dtype)
            ):
                raise RuntimeError(f"reference output {spec.name!r} does not match the definition")
        return [o.detach() for o in outputs]

    # ------------------------------------------------------------ helpers

    def seed(self, phase: str, index: int) -> int:
        return derive_seed(self.job.seed, self.workload.uuid, phase, index)

    def make_args(self, seed: int) -> list[Any]:
        return make_inputs(self.definition, self.workload, self.axes, seed, self.job.device,
                           self.job.directory / "problem", self.code.custom)

    def shared(self, make: Callable[[], list[torch.Tensor]]) -> list[torch.Tensor]:
        """Tensors made by `make`, in memory the solution's process shares with this one: on the
        CPU in the process's arena; on a GPU in a pool of their own (CUDA IPC shares a buffer's
        whole memory segment, which must not also hold the reporter's inputs or expected
        outputs)."""
        if self.pool is None:
            made = make()
            shared = [self.process.arena.empty(t.shape, t.stride(), t.dtype) for t in made]
            for target, source in zip(shared, made, strict=True):
                target.copy_(source)
            return shared
        with torch.cuda.use_mem_pool(self.pool):
            return make()

    def input_buffers(self, probe: list[Any]) -> list[torch.Tensor | None]:
        """A buffer for each tensor argument of a call, laid out as the inputs are drawn (strides
        kept: some problems hand over column-major matrices); None for the other arguments."""
        tensors = [a for a in probe if isinstance(a, torch.Tensor)]
        made = iter(self.shared(lambda: [_like(t) for t in tensors]))
        return [next(made) if isinstance(a, torch.Tensor) else None for a in probe]

    def input_pairs(self, args: list[Any]) -> list[tuple[torch.Tensor, torch.Tensor]]:
        return [(arg, buffer) for arg, buffer in zip(args, self.inputs, strict=True) if buffer is not None]


def _plain(value: Any) -> bool | int | float:
    """A scalar argument as it travels with the go: a plain number."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    elif hasattr(value, "item") and not isinstance(value, (bool, int, float)):
        value = value.item()
    if not isinstance(value, (bool, int, float)):
        raise InputError(f"a scalar input is a {type(value).__name__}, not a number")
    return value


def _like(tensor: torch.Tensor) -> torch.Tensor:
    """An empty tensor of the same shape, dtype and (where it is a permutation of a dense one)
    memory layout."""
    if _dense(tensor):
        return torch.empty_strided(tensor.shape, tensor.stride(), dtype=tensor.dtype, device=tensor.device)
    return torch.empty(tensor.shape, dtype=tensor.dtype, device=tensor.device)


def _dense(tensor: torch.Tensor) -> bool:
    step = 1
    for dim in sorted(range(tensor.dim()), key=tensor.stride):
        if tensor.size(dim) != 1:
            if tensor.stride(dim) != step:
                return False
            step *= tensor.size(dim)
    return True


def _release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
