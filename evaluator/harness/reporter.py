"""The reporter (trusted): runs a job against the solution's process. It calibrates its own clock
on the harness's null problem before the solution is imported; then, per workload, it draws the
inputs of every call itself and puts them in buffers it shares with the solution's process,
clocks each call from outside, checks every output against the reference it computes on its own
copy of the inputs, holds the reported times to its own clock, and times the reference and the
baseline itself with the solution's side paused. It never imports the solution. One failing
workload never stops the others."""

from __future__ import annotations

import gc
import json
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from . import status
from .calibration import (
    HOST_WORK_LANGUAGES,
    NULL_DEFINITION,
    NULL_TIMING,
    NULL_WORKLOAD,
    Calibration,
    CallClock,
    copy_cost_ms,
    unaccounted,
)
from .checks import CheckResult, as_output_list, check_outputs
from .environment import describe
from .gpu_clock import sm_clock_mhz
from .inputs import InputError, derive_seed, empty_outputs, make_inputs, scrub, torch_dtype
from .modules import SolutionLoadError, describe_exception, import_file, solution_languages
from .problem import Definition, Tolerance, Workload, definition_from_json, workload_from_json
from .processes import DormantTasks, PauseFailed, Task, newcomers
from .processes import describe as describe_tasks
from .profiling import CALLS as PROFILED_CALLS
from .profiling import TOOLS as PROFILE_TOOLS
from .profiling import validate as validate_profile
from .solution_process import ChannelTampered, SolutionDied, SolutionProcess
from .timing import Sample, Timing, TimingOptions, flush_l2, measure, time_callable

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
MAX_SPEC_BYTES = 1 << 24  # a solution.json read for its languages
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
    observed_ms: list[float] = field(default_factory=list)  # the reporter's clock of each call
    sm_clock_mhz: list[float | None] = field(default_factory=list)  # the GPU's, read after each call
    cpu_ms: list[float] = field(default_factory=list)  # CPU time the solution's side used in each call
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
    languages: list[str] = field(default_factory=list)  # as its solution.json declares them
    dormant: DormantTasks = field(default_factory=DormantTasks)


def run_job(job: Job, emit: Emit, skip: Iterable[str] = ()) -> None:
    emit({"event": "environment", **describe(job.device)})
    code = load_problem_code(job)
    skipped = set(skip)
    session: Session | None = None
    load_failure: dict[str, Any] | None = None
    for workload in job.workloads:
        if workload.uuid in skipped:
            continue
        if session is None and load_failure is None:
            emit({"event": "loading"})
            session, load_failure = start_solution(job)
            emit({"event": "loaded"})
            if load_failure is not None:
                emit({"event": "solution", **load_failure})
        emit({"event": "start", "uuid": workload.uuid})
        if session is None:
            result = dict(load_failure or {})
        else:
            try:
                result = WorkloadRun(job, workload, session, code).run()
            except (SolutionDied, PauseFailed) as exc:
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


def start_solution(job: Job) -> tuple[Session | None, dict[str, Any] | None]:
    """Start the solution's process, calibrate the reporter's clock on it before any user code
    is there, note the threads and processes of the harness's own, then import the solution."""
    process = SolutionProcess()
    try:
        languages = declared_languages(job.solution_path)  # before any of the solution's code runs
        process.request("prepare", device=str(job.device), definition=NULL_DEFINITION)
        calibration = calibrate(job, process)
        process.pause()
        harness_tasks = process.tasks()
        reply = process.request("load", definition=job.definition.to_json(),
                                problem_dir=str(job.directory / "problem"),
                                solution=str(job.solution_path))
    except (SolutionDied, PauseFailed) as exc:
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
    return Session(process, calibration, harness_tasks, languages), None


def declared_languages(solution_path: Path) -> list[str]:
    """The languages a solution.json declares (whether its host work is charged); [] for a single
    source file or a spec that cannot be read (its import then says why). Read before the
    import, so the solution has not run yet; after a restart it may have rewritten the file,
    which can only turn a flag into a charge of the very time hidden."""
    if solution_path.suffix != ".json":
        return []
    try:  # a restart reads it again, after the solution ran: it may have grown
        if solution_path.stat().st_size > MAX_SPEC_BYTES:
            return []
        return solution_languages(json.loads(solution_path.read_text(encoding="utf-8"))["spec"])
    except (OSError, ValueError, KeyError, TypeError, SolutionLoadError):
        return []


def calibrate(job: Job, process: SolutionProcess) -> Calibration:
    """Time the harness's own null problem through the same gated calls as any solution."""
    definition = definition_from_json(NULL_DEFINITION, "calibration")
    null_job = Job(job.directory, definition, [], job.solution_path, job.seed, job.device,
                   correctness_rounds=1, timing=TimingOptions.for_device(job.device, NULL_TIMING),
                   time_reference=False, time_baseline=False)
    workload = workload_from_json(NULL_WORKLOAD, definition, "calibration")
    reference = import_problem_source(definition.reference, "solarena_null_reference")
    run = WorkloadRun(null_job, workload, Session(process, Calibration(0.0, 0.0, 0.0, 0.0, 0), []),
                      ProblemCode(reference.run, None, None))
    outcome = run.run()
    if outcome["status"] != status.PASSED:
        raise CallFailed(outcome["status"], outcome.get("message", ""))
    return Calibration.from_calls(run.calls)


class WorkloadRun:
    """Correctness and timing of one workload."""

    def __init__(self, job: Job, workload: Workload, session: Session, code: ProblemCode) -> None:
        self.job, self.workload, self.session, self.code = job, workload, session, code
        self.process = session.process
        self.definition = job.definition
        self.axes = self.definition.resolve_axes(workload.axes)
        self.specs = list(self.definition.outputs.values())
        self.tolerance: Tolerance = workload.tolerance
        slots = max(job.timing.batch, job.timing.warmup, job.profile_calls if job.profile else 1, 1)
        self.pool = torch.cuda.MemPool() if job.device.type == "cuda" else None
        self.buffers = [self.shared(lambda: empty_outputs(self.definition, self.axes, job.device))
                        for _ in range(slots)]
        self.inputs: list[torch.Tensor | None] = []
        self.clocks: list[tuple[float, float]] = []  # (inside, outside) ms of each timed call
        self.calls: list[CallClock] = []  # each timed call, seen from outside and as reported

    def run(self) -> dict[str, Any]:
        try:
            self.inputs = self.input_buffers()
            self.process.request("workload", axes=self.axes, inputs=self.inputs, buffers=self.buffers)
            copy_ms = copy_cost_ms(self.buffers[0], self.job.device)
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
        except CallFailed as exc:
            failed: dict[str, Any] = {"status": exc.verdict, "message": exc.message}
            if exc.correctness is not None:
                failed["correctness"] = exc.correctness
            return failed
        except InputError as exc:
            return {"status": status.INVALID_REFERENCE, "message": f"input generation: {exc}"}
        out: dict[str, Any] = {"status": status.PASSED, "message": "", "correctness": correctness,
                               "latency_ms": timing.latency_ms, "timing": timing.to_json(), **profiled}
        if self.job.device.type == "cuda" and self.session.calibration.calls:
            held = unaccounted(self.calls, self.session.calibration, copy_ms,
                               bool(HOST_WORK_LANGUAGES & set(self.session.languages)))
            out["timing"]["outside"] = held.to_json()
            if held.tampered:
                return {"status": status.REWARD_HACK, "message": held.message(),
                        "timing": {"outside": held.to_json()}}
            if held.charged_ms:  # host work outside the GPU activity: the solution's time too
                out["latency_ms"] = timing.latency_ms + held.charged_ms
        self.process.pause()  # nothing of the solution's side runs while its yardsticks are timed
        self.time_problem_code(out)
        return out

    @property
    def clock(self) -> str:
        return "gpu_activity" if self.job.device.type == "cuda" else "host"

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
        the reporter pauses it, draws the call's inputs and puts them in the shared buffers, then
        starts its clock and says go; the call is over when its outputs are in the shared
        buffers: the reporter stops its clock, pauses the solution's side again and checks them
        (and that nothing of the solution's was left running) before the next call starts."""
        nonce = self.process.send("call", count=len(seeds), timed=timed, profile=profile)
        call = GatedCall()
        opened_at: float | None = None
        cpu_at_go = 0.0
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
                pids = self.process.pause()
                try:
                    args = self.make_args(seeds[position])
                    scalars = self.fill_inputs(args)
                except Exception:
                    self.stop(nonce)  # the solution's process must not be left waiting mid-batch
                    raise
                cpu_at_go = self.process.cpu_ms(pids)
                opened_at = time.perf_counter()
                self.process.send("go", scalars=scalars)
                continue
            assert opened_at is not None
            call.observed_ms.append((time.perf_counter() - opened_at) * 1e3)
            pids = self.process.pause()
            call.cpu_ms.append(self.process.cpu_ms(pids) - cpu_at_go)
            call.sm_clock_mhz.append(sm_clock_mhz(self.job.device) if timed else None)
            opened_at = None
            try:
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

    def stop(self, nonce: int) -> None:
        self.process.send("stop")
        self.process.reply_to(nonce, self.process.receive())

    def fill_inputs(self, args: list[Any]) -> dict[str, Any]:
        """Copy a call's tensors into the shared input buffers (then, on a GPU, flush the L2 so
        the call starts cold); the other arguments travel with the go."""
        scalars = {}
        for index, (arg, buffer) in enumerate(zip(args, self.inputs, strict=True)):
            if buffer is None:
                scalars[str(index)] = arg
            else:
                buffer.copy_(arg)
        if self.job.device.type == "cuda":
            flush_l2(self.job.device)
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
                                                self.process.side.pauses, timed)
        if working:
            raise CallFailed(status.REWARD_HACK,
                             f"{len(working)} thread(s) or process(es) the harness did not start "
                             f"were running during a call ({describe_tasks(working)[:200]}): work "
                             "must be done inside run(...); a library's helper thread may stay only "
                             "if it idles while calls are timed")

    def reported_samples(self, call: GatedCall, count: int) -> list[Sample]:
        """The solution's process reports its own times: they must be well-formed and fit inside
        the reporter's own clock of each call. On the CPU the time is the reporter's clock less
        its own least overhead; on a GPU the reported activity time, held to the reporter's
        clock afterwards (calibration.py)."""
        raw = call.reply.get("samples")
        try:
            if not isinstance(raw, list) or len(raw) != count:
                raise ValueError(f"{count} timing samples were expected")
            reported = [Sample.from_json(s) for s in raw]
        except ValueError as exc:
            raise CallFailed(status.REWARD_HACK, f"malformed timing report: {exc}") from None
        least = self.session.calibration.least_ms
        samples = []
        for sample, observed, sm_clock, cpu in zip(reported, call.observed_ms, call.sm_clock_mhz, call.cpu_ms,
                                                    strict=True):
            if max(sample.host_ms, sample.gpu_ms or 0.0) > observed + HOST_SLACK_MS:
                raise CallFailed(status.REWARD_HACK, "a reported time exceeds the time the call took "
                                 "as seen from outside: the timing report was tampered with")
            outside = max(observed - least, 0.0)
            samples.append(Sample(host_ms=outside, gpu_ms=sample.gpu_ms, event_ms=sample.event_ms,
                                  sm_clock_mhz=sm_clock))
            self.clocks.append((sample.host_ms, outside))
            waited = min(sample.wait_ms or 0.0, cpu)  # a claim: it only sorts, never lowers
            self.calls.append(CallClock(observed, sample.primary_ms, cpu - waited))
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
        expected = self.expected(args)
        try:
            return check_outputs(self.buffers[slot], expected, self.specs, self.tolerance)
        finally:
            scrub(expected)
            scrub(self.buffers[slot])  # an output the next call does not write fails

    def expected(self, args: list[Any]) -> list[torch.Tensor]:
        try:
            return self.reference_outputs(args)
        except Exception as exc:
            raise CallFailed(status.INVALID_REFERENCE,
                             f"the reference failed: {describe_exception(exc)}") from None

    # ------------------------------------------------------------ reference and baseline

    def time_problem_code(self, out: dict[str, Any]) -> None:
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

    def shared(self, make: Callable[[], list[torch.Tensor | None]]) -> list[torch.Tensor | None]:
        """Tensors the solution's process shares with this one (shared memory, or CUDA IPC).
        On a GPU they come from a pool of their own: sharing a buffer shares its whole memory
        segment, which must not also hold the reporter's inputs or expected outputs."""
        if self.pool is None:
            return [t.share_memory_() if t is not None else None for t in make()]
        with torch.cuda.use_mem_pool(self.pool):
            return make()

    def input_buffers(self) -> list[torch.Tensor | None]:
        """A buffer for each tensor argument of a call, laid out as the inputs are drawn (strides
        kept: some problems hand over column-major matrices); None for the other arguments."""
        probe = self.make_args(self.seed("layout", 0))
        return self.shared(lambda: [_like(a) if isinstance(a, torch.Tensor) else None for a in probe])


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
