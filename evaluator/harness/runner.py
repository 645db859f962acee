"""The reporter: runs a job against the solution's process. Per workload it sends seeds for
correctness rounds and timed calls, checks every output the solution copied into the shared
buffers against the reference computed here on its own inputs, times the reference and the
baseline itself, and reports. It never imports the solution. One failing workload never stops
the others."""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from . import status
from .checks import CheckResult, as_output_list, check_outputs
from .environment import describe
from .gpu_clock import sm_clock_mhz
from .inputs import InputError, derive_seed, empty_outputs, make_inputs, scrub, torch_dtype
from .modules import describe_exception, import_file
from .problem import Definition, Tolerance, Workload, definition_from_json, workload_from_json
from .solution_process import ChannelTampered, SolutionDied, SolutionProcess
from .timing import Sample, Timing, TimingOptions, measure, time_callable

# An inside clock below this share of the outside one, on calls the outside clock puts above
# CLOCK_FLOOR_MS, was tampered with (honest: the outside adds the output copy and messaging).
CLOCK_RATIO = 0.1
CLOCK_FLOOR_MS = 0.02
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
    time_reference: bool = True
    time_baseline: bool = True

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
            time_reference=bool(options.get("time_reference", True)),
            time_baseline=bool(options.get("time_baseline", True)),
        )


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
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
    checks: list[CheckResult] = field(default_factory=list)
    reply: dict[str, Any] = field(default_factory=dict)


class CallFailed(Exception):
    def __init__(self, verdict: str, message: str) -> None:
        super().__init__(message)
        self.verdict, self.message = verdict, message


Emit = Callable[[dict[str, Any]], None]


@dataclass
class ProblemCode:
    reference: Callable[..., Any]
    baseline: Callable[..., Any] | None
    custom: Callable[..., Any] | None


def load_problem_code(job: Job) -> ProblemCode:
    """Import the reference and baseline from the job's spec, not from files the solution could
    have rewritten; Triton needs real files, so they go to a directory of the reporter's own."""
    private = Path(tempfile.mkdtemp(prefix="solarena-problem-"))
    (private / "reference.py").write_text(job.definition.reference, encoding="utf-8")
    reference = import_file(private / "reference.py", "solarena_reference")
    baseline = None
    if job.definition.baseline is not None:
        (private / "baseline.py").write_text(job.definition.baseline, encoding="utf-8")
        baseline = import_file(private / "baseline.py", "solarena_baseline").run
    entry = job.definition.custom_inputs_entrypoint
    return ProblemCode(reference.run, baseline, getattr(reference, entry) if entry else None)


def run_job(job: Job, emit: Emit, skip: Iterable[str] = ()) -> None:
    emit({"event": "environment", **describe(job.device)})
    code = load_problem_code(job)
    skipped = set(skip)
    process: SolutionProcess | None = None
    load_failure: dict[str, Any] | None = None
    for workload in job.workloads:
        if workload.uuid in skipped:
            continue
        if process is None and load_failure is None:
            emit({"event": "loading"})
            process, load_failure = start_solution(job)
            emit({"event": "loaded"})
            if load_failure is not None:
                emit({"event": "solution", **load_failure})
        emit({"event": "start", "uuid": workload.uuid})
        if process is None:
            result = dict(load_failure or {})
        else:
            try:
                result = WorkloadRun(job, workload, process, code).run()
            except ChannelTampered as exc:
                result = {"status": status.REWARD_HACK, "message": f"result forgery: {exc}"}
                process.close()
                process = None
            except SolutionDied as exc:
                result = {"status": status.RUNTIME_ERROR, "message": str(exc)}
                process.close()
                process = None  # a fresh process for the next workload
        emit({"event": "workload", "uuid": workload.uuid, **result})
        _release(job.device)
    if process is not None:
        process.close()
    emit({"event": "done"})


def start_solution(job: Job) -> tuple[SolutionProcess | None, dict[str, Any] | None]:
    process = SolutionProcess()
    try:
        reply = process.request("load", definition=job.definition.to_json(), device=str(job.device),
                                problem_dir=str(job.directory / "problem"),
                                solution=str(job.solution_path))
    except SolutionDied as exc:
        process.close()
        return None, {"status": status.RUNTIME_ERROR, "message": f"while importing the solution: {exc}"}
    if not reply.get("ok"):
        process.close()
        verdict = reply.get("status")
        return None, {"status": verdict if verdict in status.ALL else status.COMPILE_ERROR,
                      "message": str(reply.get("message", ""))[:2000]}
    return process, None


class WorkloadRun:
    """Correctness and timing of one workload."""

    def __init__(self, job: Job, workload: Workload, process: SolutionProcess, code: ProblemCode) -> None:
        self.job, self.workload, self.process, self.code = job, workload, process, code
        self.definition = job.definition
        self.axes = self.definition.resolve_axes(workload.axes)
        self.specs = list(self.definition.outputs.values())
        self.tolerance: Tolerance = workload.tolerance
        slots = max(job.timing.batch, job.timing.warmup, 1)
        self.buffers = self.shared_buffers(slots)

    def run(self) -> dict[str, Any]:
        self.process.request("workload", workload=self.workload.to_json(), buffers=self.buffers)
        self.floor_ms = self.round_trip_floor()
        self.clocks: list[tuple[float, float]] = []  # (inside, outside) ms of each timed call
        try:
            correctness = self.check_rounds()
            timing = measure(self.solution_batch, self.job.timing, self.clock)
            self.check_clocks()
        except CallFailed as exc:
            return {"status": exc.verdict, "message": exc.message}
        except InputError as exc:
            return {"status": status.INVALID_REFERENCE, "message": f"input generation: {exc}"}
        out: dict[str, Any] = {"status": status.PASSED, "message": "", "correctness": correctness,
                               "latency_ms": timing.latency_ms, "timing": timing.to_json()}
        self.time_problem_code(out)
        return out

    @property
    def clock(self) -> str:
        return "gpu_activity" if self.job.device.type == "cuda" else "host"

    # ------------------------------------------------------------ the solution

    def check_rounds(self) -> dict[str, Any]:
        worst_ratio, worst_err = 1.0, 0.0
        for round_index in range(self.job.correctness_rounds):
            call = self.gated_call([self.seed("check", round_index)], False, f"round {round_index + 1}")
            worst_ratio = min(worst_ratio, call.checks[0].matched_ratio or 1.0)
            worst_err = max(worst_err, call.checks[0].max_abs_error or 0.0)
        return {"rounds": self.job.correctness_rounds, "max_abs_error": worst_err,
                "min_matched_ratio": worst_ratio}

    def solution_batch(self, first: int, count: int, timed: bool) -> list[Sample]:
        seeds = [self.seed("time", first + j) for j in range(count)]
        when = "a timed call" if timed else "a warm-up call"
        call = self.gated_call(seeds, timed, when)
        return self.reported_samples(call, count) if timed else []

    def gated_call(self, seeds: list[int], timed: bool, when: str) -> GatedCall:
        """Run a batch in the solution's process, one call at a time: each starts when this side
        says go and is over when its outputs are in the shared buffers; the reporter clocks it
        from outside and checks its outputs before the next one starts."""
        nonce = self.process.send("call", seed=seeds[0], count=len(seeds), timed=timed)
        call = GatedCall()
        opened_at: float | None = None
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
                opened_at = time.perf_counter()
                self.process.send("go")
                continue
            assert opened_at is not None
            call.observed_ms.append((time.perf_counter() - opened_at) * 1e3)
            call.sm_clock_mhz.append(sm_clock_mhz(self.job.device) if timed else None)
            opened_at = None
            try:
                check = self.verify_slot(position, seeds[position])
            except Exception:
                self.stop(nonce)  # the solution's process must not be left waiting mid-batch
                raise
            if not check.ok:
                self.stop(nonce)
                prefix = f"{when} returned a wrong result" if timed else when
                raise CallFailed(check.status, f"{prefix}: {check.message}")
            call.checks.append(check)
            following = position + 1
            self.process.send("next", seed=seeds[following] if following < len(seeds) else None)

    def stop(self, nonce: int) -> None:
        self.process.send("stop")
        self.process.reply_to(nonce, self.process.receive())

    def round_trip_floor(self) -> float:
        """The shortest message round trip to the solution's process, in ms: what a gated call's
        outside clock holds besides the call."""
        trips = []
        for _ in range(5):
            started = time.perf_counter()
            self.process.request("ping")
            trips.append((time.perf_counter() - started) * 1e3)
        return min(trips)

    def reported_samples(self, call: GatedCall, count: int) -> list[Sample]:
        """The solution's process reports its own times: they must be well-formed and fit inside
        the reporter's own clock of each call. The host time is the reporter's."""
        raw = call.reply.get("samples")
        try:
            if not isinstance(raw, list) or len(raw) != count:
                raise ValueError(f"{count} timing samples were expected")
            reported = [Sample.from_json(s) for s in raw]
        except ValueError as exc:
            raise CallFailed(status.REWARD_HACK, f"malformed timing report: {exc}") from None
        samples = []
        for sample, observed, sm_clock in zip(reported, call.observed_ms, call.sm_clock_mhz, strict=True):
            if max(sample.host_ms, sample.gpu_ms or 0.0) > observed + HOST_SLACK_MS:
                raise CallFailed(status.REWARD_HACK, "a reported time exceeds the time the call took "
                                 "as seen from outside: the timing report was tampered with")
            samples.append(Sample(host_ms=max(observed - self.floor_ms, 0.0), gpu_ms=sample.gpu_ms,
                                  event_ms=sample.event_ms, sm_clock_mhz=sm_clock))
            self.clocks.append((sample.host_ms, max(observed - self.floor_ms, 0.0)))
        return samples

    def check_clocks(self) -> None:
        """The solution's process clocks each call from inside, the reporter from outside (which
        adds only the copy of the outputs and message latency). An inside clock far below the
        outside one means the inside clock was tampered with."""
        if not self.clocks:
            return
        inside = statistics.median(c[0] for c in self.clocks)
        outside = min(c[1] for c in self.clocks)  # the least disturbed: a loaded host only adds
        if outside > CLOCK_FLOOR_MS and inside < CLOCK_RATIO * outside:
            raise CallFailed(status.REWARD_HACK,
                             f"the solution's process clocked its calls at {inside:.3g} ms, the harness "
                             f"at {outside:.3g} ms from outside: its timing was tampered with")

    def raise_failure(self, reply: dict[str, Any], when: str) -> None:
        failure = reply.get("failure")
        if failure is None:
            return
        verdict = failure.get("status") if isinstance(failure, dict) else None
        if verdict not in status.ALL or verdict == status.PASSED:
            raise CallFailed(status.REWARD_HACK, f"{when}: the solution's process sent a malformed verdict")
        raise CallFailed(verdict, f"{when}: {str(failure.get('message', ''))[:2000]}")

    def verify_slot(self, slot: int, seed: int) -> CheckResult:
        expected = self.expected(seed)
        try:
            return check_outputs(self.buffers[slot], expected, self.specs, self.tolerance)
        finally:
            scrub(expected)
            scrub(self.buffers[slot])  # an output the next call does not write fails

    def expected(self, seed: int) -> list[torch.Tensor]:
        try:
            return self.reference_outputs(self.make_args(seed))
        except InputError:
            raise
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
        """Time the reference or the baseline here, on the same fresh inputs as the solution."""
        def check(i: int, result: Any) -> None:
            if verify:
                outputs = as_output_list(result, len(self.specs))
                outcome = outputs if isinstance(outputs, CheckResult) else check_outputs(
                    outputs, self.expected(self.seed("time", i)), self.specs, self.tolerance)
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

    def shared_buffers(self, slots: int) -> list[list[torch.Tensor]]:
        """Output buffers the solution's process writes into, poisoned so an unwritten one fails.
        On a GPU they come from a pool of their own: sharing a buffer shares its whole memory
        segment, which must not also hold the reporter's expected outputs."""
        def make() -> list[list[torch.Tensor]]:
            return [empty_outputs(self.definition, self.axes, self.job.device) for _ in range(slots)]

        if self.job.device.type != "cuda":
            return [[t.share_memory_() for t in outs] for outs in make()]
        pool = torch.cuda.MemPool()
        with torch.cuda.use_mem_pool(pool):
            buffers = make()
        self._pool = pool  # the pool lives as long as its buffers
        return buffers


def _release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
