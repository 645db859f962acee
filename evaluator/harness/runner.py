"""Running a job: per workload, correctness rounds on fresh inputs, then timing of the solution,
the reference and the baseline on fresh inputs, every timed output checked. One failing workload
never stops the others."""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from . import status
from .checks import CheckResult, as_output_list, check_outputs
from .environment import describe
from .inputs import (
    InputError,
    clone_args,
    derive_seed,
    empty_outputs,
    make_inputs,
    scrub,
    torch_dtype,
)
from .modules import (
    LoadedSolution,
    SolutionLoadError,
    describe_exception,
    import_file,
    is_compile_error,
    load_solution,
)
from .problem import Definition, Tolerance, Workload, definition_from_json, workload_from_json
from .timing import Timing, TimingOptions, time_callable

POOL_BYTES = 2 << 30  # memory for the distinct input sets the timed calls cycle through


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
    pool_size: int = 4

    @classmethod
    def load(cls, directory: Path) -> Job:
        data = json.loads((directory / "job.json").read_text(encoding="utf-8"))
        definition = definition_from_json(data["definition"], "job.json")
        workloads = [
            workload_from_json(w, definition, f"job.json workload {i}", base_dir=directory / "problem",
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
            pool_size=int(options.get("pool_size", 2 if cpu else 8)),
        )


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError("this job asks for a CUDA device but none is visible")
    return torch.device(name)


class TimedCallFailed(Exception):
    def __init__(self, result: CheckResult) -> None:
        super().__init__(result.message)
        self.result = result


Emit = Callable[[dict[str, Any]], None]


def run_job(job: Job, emit: Emit, skip: Iterable[str] = ()) -> None:
    emit({"event": "environment", **describe(job.device)})
    problem_dir = job.directory / "problem"
    reference = import_file(problem_dir / "reference.py", "solarena_reference")
    baseline_file = problem_dir / "baseline.py"
    baseline = import_file(baseline_file, "solarena_baseline").run if baseline_file.is_file() else None
    custom = (getattr(reference, job.definition.custom_inputs_entrypoint)
              if job.definition.custom_inputs_entrypoint else None)
    try:
        solution: LoadedSolution | None = load_solution(job.solution_path)
        load_error = ""
    except SolutionLoadError as exc:
        solution, load_error = None, str(exc)
        emit({"event": "solution", "status": status.COMPILE_ERROR, "message": load_error})
    skipped = set(skip)
    for workload in job.workloads:
        if workload.uuid in skipped:
            continue
        emit({"event": "start", "uuid": workload.uuid})
        if solution is None:
            result = {"status": status.COMPILE_ERROR, "message": load_error}
        else:
            runner = WorkloadRun(job, workload, solution, reference.run, baseline, custom)
            result = runner.run()
        emit({"event": "workload", "uuid": workload.uuid, **result})
        _release(job.device)
    emit({"event": "done"})


class WorkloadRun:
    """Correctness and timing of one workload."""

    def __init__(
        self,
        job: Job,
        workload: Workload,
        solution: LoadedSolution,
        reference: Callable[..., Any],
        baseline: Callable[..., Any] | None,
        custom: Callable[..., Any] | None,
    ) -> None:
        self.job, self.workload, self.solution = job, workload, solution
        self.reference, self.baseline, self.custom = reference, baseline, custom
        self.definition = job.definition
        self.axes = self.definition.resolve_axes(workload.axes)
        self.specs = list(self.definition.outputs.values())
        self.tolerance: Tolerance = workload.tolerance

    def run(self) -> dict[str, Any]:
        try:
            failure, correctness = self.check_rounds()
        except InputError as exc:
            return {"status": status.INVALID_REFERENCE, "message": f"input generation: {exc}"}
        if failure is not None:
            return failure
        out: dict[str, Any] = {"status": status.PASSED, "message": "", "correctness": correctness}
        pool = self.timing_pool()
        expected: dict[int, list[torch.Tensor]] = {}

        def expected_for(i: int) -> list[torch.Tensor]:
            slot = i % len(pool)
            if slot not in expected:
                expected[slot] = self.reference_outputs(clone_args(pool[slot]))
            return expected[slot]

        try:
            return self.time_all(out, pool, expected_for)
        finally:
            for outputs in expected.values():
                scrub(outputs)

    def time_all(
        self,
        out: dict[str, Any],
        pool: list[list[Any]],
        expected_for: Callable[[int], list[torch.Tensor]],
    ) -> dict[str, Any]:
        try:
            timing = self.time(self.call_solution, pool, expected_for)
        except TimedCallFailed as exc:
            return {"status": exc.result.status,
                    "message": f"a timed call returned a wrong result: {exc.result.message}"}
        except Exception as exc:
            return self.solution_failure(exc, "a timed call")
        out["latency_ms"] = timing.latency_ms
        out["timing"] = timing.to_json()
        if self.job.time_reference:
            ref_timing = self.time(lambda args: self.reference(*args), pool, None)
            out["reference_latency_ms"] = ref_timing.latency_ms
            out["reference_timing"] = ref_timing.to_json()
        if self.job.time_baseline and self.baseline is not None:
            try:
                base = self.time(lambda args: self.baseline(*args), pool, expected_for)
                out["baseline_latency_ms"] = base.latency_ms
                out["baseline_timing"] = base.to_json()
            except Exception as exc:
                out["baseline_error"] = describe_exception(exc)
        elif self.job.time_baseline and "reference_latency_ms" in out:
            out["baseline_latency_ms"] = out["reference_latency_ms"]
            out["baseline_is_reference"] = True
        return out

    # ------------------------------------------------------------ correctness

    def check_rounds(self) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        worst_ratio, worst_err = 1.0, 0.0
        for round_index in range(self.job.correctness_rounds):
            args = self.make_args(("check", round_index))
            try:
                result = self.call_solution(clone_args(args))
                self.sync()
            except Exception as exc:
                return self.solution_failure(exc, f"round {round_index + 1}"), {}
            try:
                expected = self.reference_outputs(clone_args(args))
            except Exception as exc:
                return {"status": status.INVALID_REFERENCE,
                        "message": f"the reference failed: {describe_exception(exc)}"}, {}
            check = self.check(result, expected)
            scrub(expected)
            scrub(result)
            if not check.ok:
                return {"status": check.status,
                        "message": f"round {round_index + 1}: {check.message}"}, {}
            worst_ratio = min(worst_ratio, check.matched_ratio or 1.0)
            worst_err = max(worst_err, check.max_abs_error or 0.0)
        return None, {"rounds": self.job.correctness_rounds, "max_abs_error": worst_err,
                      "min_matched_ratio": worst_ratio}

    def check(self, result: Any, expected: list[torch.Tensor]) -> CheckResult:
        outputs = as_output_list(result, len(self.specs))
        if isinstance(outputs, CheckResult):
            return outputs
        return check_outputs(outputs, expected, self.specs, self.tolerance)

    def reference_outputs(self, args: list[Any]) -> list[torch.Tensor]:
        with torch.no_grad():
            result = self.reference(*args)
        self.sync()
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

    # ------------------------------------------------------------ timing

    def timing_pool(self) -> list[list[Any]]:
        first = self.make_args(("time", 0))
        size = sum(a.numel() * a.element_size() for a in first if isinstance(a, torch.Tensor))
        count = max(2, min(self.job.pool_size, POOL_BYTES // max(size, 1)))
        return [first] + [self.make_args(("time", i)) for i in range(1, count)]

    def time(
        self,
        invoke: Callable[[list[Any]], Any],
        pool: list[list[Any]],
        expected_for: Callable[[int], list[torch.Tensor]] | None,
    ) -> Timing:
        def prepare(i: int) -> list[Any]:
            return clone_args(pool[i % len(pool)])

        def verify(i: int, result: Any) -> None:
            if expected_for is not None:
                check = self.check(result, expected_for(i))
                scrub(result)
                if not check.ok:
                    raise TimedCallFailed(check)

        return time_callable(prepare, invoke, verify, self.job.device, self.job.timing)

    # ------------------------------------------------------------ helpers

    def make_args(self, salt: tuple[str, int]) -> list[Any]:
        seed = derive_seed(self.job.seed, self.workload.uuid, *salt)
        return make_inputs(self.definition, self.workload, self.axes, seed, self.job.device,
                           self.job.directory / "problem", self.custom)

    def call_solution(self, args: list[Any]) -> Any:
        if self.solution.destination_passing:
            outs = empty_outputs(self.definition, self.axes, self.job.device)
            self.solution.run(*args, *outs)
            return outs[0] if len(outs) == 1 else tuple(outs)
        return self.solution.run(*args)

    def solution_failure(self, exc: Exception, when: str) -> dict[str, Any]:
        verdict = status.COMPILE_ERROR if is_compile_error(exc) else status.RUNTIME_ERROR
        text = describe_exception(exc, self.solution.source_file)
        if isinstance(exc, torch.cuda.OutOfMemoryError):
            text = "out of GPU memory"
        return {"status": verdict, "message": f"{when}: {text}"}

    def sync(self) -> None:
        if self.job.device.type == "cuda":
            torch.cuda.synchronize(self.job.device)


def _release(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
