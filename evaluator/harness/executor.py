"""The solution's process: it imports the solution and runs it on inputs it draws from the seeds
the reporter sends, times the calls, and copies every output into buffers the reporter shares
with it. It never sees the run's seed, the expected outputs, or the results channel; it answers
in JSON and the reporter checks everything it says.

Requests (pickled by the reporter, which this process trusts): load, workload, call, exit.
Replies: one JSON document per request, echoing its nonce.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch

from . import status
from .checks import CheckResult, as_output_list, check_structure
from .fallback import Tripwires, named_in_source
from .inputs import InputError, empty_outputs, make_inputs, scrub
from .integrity import Guard, IntegrityViolation
from .modules import (
    LoadedSolution,
    SolutionLoadError,
    describe_exception,
    import_file,
    is_compile_error,
    load_solution,
)
from .problem import Definition, Workload, definition_from_json, workload_from_json
from .timing import time_batch

MAX_REPLY = 1 << 20


class Failure(Exception):
    def __init__(self, verdict: str, message: str) -> None:
        super().__init__(message)
        self.verdict, self.message = verdict, message


class Executor:
    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.guard: Guard | None = None
        self.solution: LoadedSolution | None = None
        self.definition: Definition | None = None
        self.device = torch.device("cpu")
        self.problem_dir = Path(".")
        self.custom: Callable[..., Any] | None = None
        self.workload: Workload | None = None
        self.axes: dict[str, int] = {}
        self.buffers: list[list[torch.Tensor]] = []
        self.tripwires = Tripwires(Path("."), ())

    def serve(self) -> None:
        while True:
            request = self.conn.recv()
            op = request.get("op")
            if op == "exit":
                return
            handler = {"load": self.load, "workload": self.set_workload, "call": self.call,
                       "ping": lambda request: {}}[op]
            reply = handler(request)
            self.say({"kind": "reply", "nonce": request.get("nonce"), **reply})

    def say(self, message: dict[str, Any]) -> None:
        self.conn.send_bytes(json.dumps(message, allow_nan=False, default=str).encode()[:MAX_REPLY])

    def load(self, request: dict[str, Any]) -> dict[str, Any]:
        self.definition = definition_from_json(request["definition"], "job")
        self.device = torch.device(request["device"])
        self.problem_dir = Path(request["problem_dir"])
        self.custom = self.custom_inputs()
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
            torch.cuda.init()
        _preload_libraries()
        solution_path = Path(request["solution"])
        named = named_in_source(solution_path.parent.rglob("*.py"), self.definition.forbidden)
        if named:
            return {"ok": False, "status": status.REWARD_HACK,
                    "message": f"the solution refers to {named}, which this problem forbids"}
        self.tripwires = Tripwires(self.problem_dir, self.definition.forbidden)
        self.guard = Guard()
        try:
            self.guard.before_call()
            with self.user_code():
                self.solution = load_solution(solution_path)
            self.guard.verify()
            self.check_tripwires("while importing")
        except SolutionLoadError as exc:
            return {"ok": False, "status": status.COMPILE_ERROR, "message": str(exc)}
        except (IntegrityViolation, Failure) as exc:
            return {"ok": False, "status": status.REWARD_HACK, "message": f"while importing: {exc}"}
        return {"ok": True}

    def custom_inputs(self) -> Callable[..., Any] | None:
        """The problem's custom input maker, without leaving the reference's run reachable."""
        assert self.definition is not None
        entry = self.definition.custom_inputs_entrypoint
        if not entry:
            return None
        reference = import_file(self.problem_dir / "reference.py", "solarena_problem_inputs")
        del sys.modules["solarena_problem_inputs"]
        reference.run = _reference_is_off_limits
        return getattr(reference, entry)

    @contextlib.contextmanager
    def user_code(self) -> Iterator[None]:
        self.tripwires.active = True
        try:
            yield
        finally:
            self.tripwires.active = False

    def check_tripwires(self, when: str) -> None:
        violation = self.tripwires.take()
        if violation:
            raise Failure(status.REWARD_HACK, f"{when}: {violation}")

    def set_workload(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.definition is not None
        self.workload = workload_from_json(request["workload"], self.definition, "job",
                                           base_dir=self.problem_dir)
        self.axes = dict(self.definition.resolve_axes(self.workload.axes))
        self.buffers = request["buffers"]
        return {"ok": True}

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """A batch of calls; each one's seed arrives only once the previous call is over, so no
        call can be prepared ahead."""
        gate = ReporterGate(self, int(request["seed"]))
        try:
            samples = time_batch(lambda j: self.make_args(gate.seed), self.invoke, self.keep,
                                 int(request["count"]), self.device, timed=bool(request["timed"]),
                                 gate=gate)
        except Stopped:
            return {"stopped": True}
        except Failure as exc:
            return {"failure": {"status": exc.verdict, "message": exc.message}}
        except InputError as exc:
            return {"failure": {"status": status.INVALID_REFERENCE, "message": f"input generation: {exc}"}}
        except Exception as exc:
            return {"failure": self.describe_failure(exc)}
        return {"samples": [s.to_json() for s in samples]}

    def make_args(self, seed: int) -> list[Any]:
        assert self.definition is not None and self.workload is not None
        return make_inputs(self.definition, self.workload, self.axes, seed, self.device, self.problem_dir,
                           self.custom)

    def invoke(self, args: list[Any]) -> Any:
        assert self.solution is not None and self.definition is not None and self.guard is not None
        self.guard.before_call()
        if self.solution.destination_passing:
            outs = empty_outputs(self.definition, self.axes, self.device)
            with self.user_code():
                self.solution.run(*args, *outs)
            return outs[0] if len(outs) == 1 else tuple(outs)
        with self.user_code():
            return self.solution.run(*args)

    def keep(self, position: int, result: Any) -> None:
        """After the call's window: check the output's form, copy it to the reporter's buffer."""
        assert self.guard is not None and self.definition is not None
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        try:
            self.guard.verify_threads()  # now: a thread left running could still write later
        except IntegrityViolation as exc:
            raise Failure(status.REWARD_HACK, str(exc)) from None
        self.check_tripwires("run(...)")
        specs = list(self.definition.outputs.values())
        outputs = as_output_list(result, len(specs))
        if isinstance(outputs, CheckResult):
            raise Failure(outputs.status, outputs.message)
        for out, spec, buffer in zip(outputs, specs, self.buffers[position], strict=True):
            form = check_structure(out, spec, tuple(buffer.shape), self.device)
            if not form.ok:
                raise Failure(form.status, form.message)
            buffer.copy_(out)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        scrub(outputs)

    def after_call(self) -> None:
        """Once the reporter's clock of the call has stopped: the full integrity check, before
        anything more runs (a violation fails the batch before its times are reported)."""
        assert self.guard is not None
        try:
            self.guard.verify_functions()
        except IntegrityViolation as exc:
            raise Failure(status.REWARD_HACK, str(exc)) from None

    def describe_failure(self, exc: Exception) -> dict[str, str]:
        assert self.solution is not None
        verdict = status.COMPILE_ERROR if is_compile_error(exc) else status.RUNTIME_ERROR
        text = describe_exception(exc, self.solution.source_file)
        if isinstance(exc, torch.cuda.OutOfMemoryError):
            text = "out of GPU memory"
        return {"status": verdict, "message": text}


class Stopped(Exception):
    """The reporter ended the batch (it found a wrong output)."""


class ReporterGate:
    """Each call runs only when the reporter says go, and is over once the reporter has its
    outputs: the reporter's own clock brackets it, and it checks them before the next call."""

    def __init__(self, executor: Executor, seed: int) -> None:
        self.executor, self.seed = executor, seed

    def open(self, position: int) -> None:
        self.executor.say({"kind": "ready", "position": position})
        self._expect("go")

    def close(self, position: int) -> None:
        self.executor.say({"kind": "done", "position": position})
        message = self._expect("next")
        self.executor.after_call()
        if message.get("seed") is not None:
            self.seed = int(message["seed"])

    def _expect(self, op: str) -> dict[str, Any]:
        message = self.executor.conn.recv()
        if message.get("op") == "stop":
            raise Stopped
        if message.get("op") != op:
            raise RuntimeError(f"harness protocol: expected {op!r}, got {message.get('op')!r}")
        return message


def _reference_is_off_limits(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the problem's reference is not available to solutions")


def _preload_libraries() -> None:
    """Import what solutions use before the solution's directory goes on sys.path, so a solution
    file named triton.py does not shadow Triton."""
    for name in ("triton", "triton.language", "numpy"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def main(conn: Any) -> None:
    """Entry point of the spawned process."""
    try:
        Executor(conn).serve()
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        pass
    sys.exit(0)
