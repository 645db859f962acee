"""The solution's process (untrusted once the solution is imported): it imports the solution and
runs it, one gated call at a time, on inputs the reporter puts in buffers it shares with this
process, times each call from inside, and copies every output into the reporter's output
buffers. It never sees the run's seed, the expected outputs, or the results channel, and it makes
no inputs of its own. It answers in JSON, and the reporter checks everything it says.

Started by the reporter as `python -P -s -m evaluator.harness.solution_main CHANNEL_FD ARENA_FD`.
Requests (JSON, from the reporter, which this process trusts): prepare, load, workload, call,
exit; a call is driven by go / next messages (see the package's docstring for the protocol).
Before the solution is imported this process installs the harness's seccomp filter on itself
(seccomp.py): nothing started from here on can trace, read or write another process.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch
from torch.autograd.profiler import profile

from . import seccomp, status, stream_ops
from .buffers import HostArena, attach_cuda
from .channel import Channel, ChannelClosed
from .checks import CheckResult, as_output_list, check_structure
from .fallback import Tripwires, named_in_source
from .inputs import empty_outputs, scrub
from .integrity import Guard, IntegrityViolation
from .l2 import reset_persisting_l2
from .modules import LoadedSolution, SolutionLoadError, describe_exception, is_compile_error, load_solution
from .problem import Definition, definition_from_json
from .profiling import TOOLS, Recorder
from .timing import StrayGpuWork, profiler_session, time_batch

MAX_REPLY = 1 << 20
MAX_REQUEST = 64 << 20
# The exit status of this process when it ran out of memory between the solution's calls.
OUT_OF_MEMORY_EXIT = 86


class Failure(Exception):
    def __init__(self, verdict: str, message: str) -> None:
        super().__init__(message)
        self.verdict, self.message = verdict, message


class Executor:
    def __init__(self, channel: Channel, arena: HostArena) -> None:
        self.channel = channel
        self.arena = arena
        self.guard: Guard | None = None
        self.solution: LoadedSolution | None = None
        self.definition: Definition | None = None
        self.device = torch.device("cpu")
        self.axes: dict[str, int] = {}
        self.inputs: list[torch.Tensor | None] = []
        self.buffers: list[list[torch.Tensor]] = []
        self.tripwires: Tripwires | None = None
        self.signals: dict[str, int] = {}  # on a GPU: the addresses of the ready, go and done words
        self._words: torch.Tensor | None = None
        self.ticket = 0  # the running call's, as the reporter numbered it

    def serve(self) -> None:
        while True:
            request = self.channel.receive(MAX_REQUEST)
            op = request.get("op")
            if op == "exit":
                return
            handler = {"prepare": self.prepare, "load": self.load, "workload": self.set_workload,
                       "call": self.call}[op]
            reply = handler(request)
            self.say({"kind": "reply", "nonce": request.get("nonce"), **reply})

    def say(self, message: dict[str, Any]) -> None:
        self.channel.send(message, default=str)

    def prepare(self, request: dict[str, Any]) -> dict[str, Any]:
        """Before any user code: start everything the harness needs (so that the threads it leaves
        are known), install the seccomp filter, take the integrity snapshot, and run the
        harness's own null problem."""
        self.device = torch.device(request["device"])
        _warm_up(self.device)
        self.definition = definition_from_json(request["definition"], "calibration")
        self.solution = LoadedSolution(_null_solution(self.device), False, "python", Path(__file__))
        try:
            seccomp.install()
            filtered: str | None = None
        except seccomp.SeccompUnavailable as exc:
            filtered = str(exc)
        self.guard = Guard(self, holders=(ReporterGate,))
        return {"ok": True, "seccomp_error": filtered}

    def load(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.guard is not None
        self.definition = definition_from_json(request["definition"], "job")
        self.solution = None
        solution_path = Path(request["solution"])
        named = named_in_source(solution_path.parent.rglob("*.py"), self.definition.forbidden)
        if named:
            return {"ok": False, "status": status.REWARD_HACK,
                    "message": f"the solution refers to {named}, which this problem forbids"}
        self.tripwires = Tripwires(Path(request["problem_dir"]), self.definition.forbidden)
        self.guard.settle(self, "definition", "solution", "tripwires")
        try:
            with self.user_code():
                loaded = load_solution(solution_path)
            self.check_tripwires("while importing")  # first: name the operation if one was reached
            self.guard.verify()  # the executor as the harness left it before the import
            self.solution = loaded
            self.guard.settle(self, "solution")
        except SolutionLoadError as exc:
            forbidden = self.tripwires.take()  # an import that failed on a forbidden operation
            if forbidden:
                return {"ok": False, "status": status.REWARD_HACK, "message": f"while importing: {forbidden}"}
            return {"ok": False, "status": status.COMPILE_ERROR, "message": str(exc)}
        except Failure as exc:
            return {"ok": False, "status": status.REWARD_HACK, "message": exc.message}
        except IntegrityViolation as exc:
            return {"ok": False, "status": status.REWARD_HACK, "message": f"while importing: {exc}"}
        return {"ok": True}

    @contextlib.contextmanager
    def user_code(self) -> Iterator[None]:
        if self.tripwires is None:
            yield
            return
        self.tripwires.active = True
        try:
            yield
        finally:
            self.tripwires.active = False

    def check_tripwires(self, when: str, thoroughly: bool = True) -> None:
        """Forbidden operations reached since the last check; thoroughly: also that the
        dispatcher still holds the tripwires (slower, so never on the reporter's clock)."""
        if self.tripwires is None:
            return
        violation = self.tripwires.take() or (self.tripwires.verify() if thoroughly else None)
        if violation:
            raise Failure(status.REWARD_HACK, f"{when}: {violation}")

    def set_workload(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.definition is not None
        self.axes = dict(request["axes"])
        self.inputs = [self.attach(d) if d is not None else None for d in request["inputs"]]
        self.buffers = [[self.attach(d) for d in slot] for slot in request["buffers"]]
        signals = request.get("signals")
        if signals is not None:  # the words the reporter's GPU bracket and this stream exchange
            words = attach_cuda(signals["words"])
            self.signals = {name: words.data_ptr() + 4 * int(signals[name])
                            for name in ("ready", "go", "done")}
            self._words = words  # keeps the mapping open
        else:
            self.signals, self._words = {}, None
        if self.guard is not None:
            self.guard.settle(self, "axes", "inputs", "buffers", "signals", "_words")
        return {"ok": True}

    def attach(self, description: dict[str, Any]) -> torch.Tensor:
        if self.device.type == "cuda":
            return attach_cuda(description)
        return self.arena.attach(description)

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """A batch of gated calls; each one's inputs arrive only once the reporter says go."""
        gate = ReporterGate(self)
        count = int(request["count"])
        tool = request.get("profile")
        recorder = Recorder(self.device, tool) if tool in TOOLS else None
        try:
            if recorder is not None:  # untimed calls, each inside the profiled range
                with recorder.session():
                    time_batch(recorder.wrap(self.invoke), self.keep, count, self.device, gate, timed=False)
                self.check_tripwires("between calls")
                return {"samples": [], "profile": recorder.report(count)}
            samples = time_batch(self.invoke, self.keep, count, self.device, gate,
                                 timed=bool(request["timed"]))
            self.check_tripwires("between calls")  # the dispatcher's tripwires still in place
        except Stopped:
            return {"stopped": True}
        except Failure as exc:
            return {"failure": {"status": exc.verdict, "message": exc.message}}
        except StrayGpuWork as exc:
            return {"failure": {"status": status.REWARD_HACK, "message": str(exc)}}
        except Exception as exc:
            forbidden = self.tripwires.take() if self.tripwires is not None else None
            if forbidden:  # it raised because the dispatcher refused a forbidden operation
                return {"failure": {"status": status.REWARD_HACK, "message": f"run(...): {forbidden}"}}
            return {"failure": self.describe_failure(exc)}
        return {"samples": [s.to_json() for s in samples]}

    def arguments(self, scalars: dict[str, Any]) -> list[Any]:
        return [tensor if tensor is not None else scalars[str(i)] for i, tensor in enumerate(self.inputs)]

    def destinations(self) -> list[torch.Tensor]:
        """A destination-passing solution's output buffers (poisoned), made before the call's
        window: filling them is the harness's work, not the call's."""
        assert self.solution is not None and self.definition is not None
        if not self.solution.destination_passing:
            return []
        outs = empty_outputs(self.definition, self.axes, self.device)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        return outs

    def invoke(self, args: list[Any]) -> Any:
        """args: the inputs, then for a destination-passing solution its output buffers."""
        assert self.solution is not None and self.definition is not None
        with self.user_code():
            result = self.solution.run(*args)
        if self.solution.destination_passing:
            outs = args[len(args) - len(self.definition.outputs):]
            return outs[0] if len(outs) == 1 else tuple(outs)
        return result

    def keep(self, position: int, result: Any) -> None:
        """After the call's window, still on the reporter's clock: check the output's form and
        copy it to the reporter's buffer."""
        assert self.guard is not None and self.definition is not None
        try:  # the device is synchronized: the window ends with a whole-device synchronization
            self.guard.verify_during_call()  # a thread or a mode left running could still act
        except IntegrityViolation as exc:
            raise Failure(status.REWARD_HACK, str(exc)) from None
        self.check_tripwires("run(...)", thoroughly=False)
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
            self.signal("done")  # the reporter's stream freezes the outputs once the copy is done
            torch.cuda.synchronize(self.device)
        scrub(outputs)

    def signal(self, word: str) -> None:
        """Write the call's ticket into a word of the GPU bracket, in this stream's order."""
        stream_ops.write_value(torch.cuda.current_stream(self.device).cuda_stream, self.signals[word],
                               self.ticket)

    def after_call(self, guard: Guard) -> None:
        """Once the reporter has the call's outputs: the full integrity check, before anything
        more runs (a violation fails the batch before its times are reported). `guard`: the
        gate's own reference to it, so that replacing the executor's is seen."""
        try:
            guard.verify_functions()
        except IntegrityViolation as exc:
            raise Failure(status.REWARD_HACK, str(exc)) from None
        self.check_tripwires("between calls", thoroughly=False)

    def describe_failure(self, exc: Exception) -> dict[str, str]:
        source = self.solution.source_file if self.solution is not None else None
        verdict = status.COMPILE_ERROR if is_compile_error(exc) else status.RUNTIME_ERROR
        text = describe_exception(exc, source)
        if isinstance(exc, torch.cuda.OutOfMemoryError):
            text = "out of GPU memory"
        return {"status": verdict, "message": text}


class Stopped(Exception):
    """The reporter ended the batch (it found a wrong output)."""


class ReporterGate:
    """Each call starts when the reporter says go (with the call's inputs in the shared buffers)
    and is over once its outputs are in the reporter's buffers: the reporter's own clock
    brackets it, and it checks them before the next call."""

    guard: Guard | None = None  # the executor's, as prepare() made it

    def __init__(self, executor: Executor) -> None:
        self.executor = executor

    def open(self, position: int) -> list[Any]:
        """The call's arguments, once the reporter says go. On a GPU this stream then says it is
        ready (the reporter's stream copies the inputs and flushes the L2 only then) and waits
        for the reporter's go before anything queued after it runs."""
        executor = self.executor
        outs = executor.destinations()
        if executor.device.type == "cuda":
            reset_persisting_l2()
        executor.say({"kind": "ready", "position": position})
        message = self._expect("go")
        if executor.device.type == "cuda":
            executor.ticket = int(message["ticket"])
            executor.signal("ready")
            stream_ops.wait_value(torch.cuda.current_stream(executor.device).cuda_stream,
                                  executor.signals["go"], executor.ticket)
        return [*executor.arguments(message.get("scalars") or {}), *outs]

    def close(self, position: int) -> None:
        self.executor.say({"kind": "done", "position": position})
        self._expect("next")
        assert self.guard is not None
        self.executor.after_call(self.guard)

    def _expect(self, op: str) -> dict[str, Any]:
        message = self.executor.channel.receive(MAX_REQUEST)
        if message.get("op") == "stop":
            raise Stopped
        if message.get("op") != op:
            raise RuntimeError(f"harness protocol: expected {op!r}, got {message.get('op')!r}")
        return message


def _null_solution(device: torch.device) -> Callable[[torch.Tensor], torch.Tensor]:
    """The harness's own solution of its null problem (calibration.py): on a GPU one small Triton
    kernel (null_kernel.py), elsewhere one small torch operation."""
    if device.type == "cuda":
        try:
            from . import null_kernel
        except ImportError:  # no Triton: a torch operation's launch is the yardstick
            pass
        else:
            null_kernel.compile_privately(device)
            return null_kernel.run
    return lambda x: x + 1.0


def _warm_up(device: torch.device) -> None:
    """Start what the harness and most solutions start on first use (CUDA, the profiler, torch's
    CPU thread pool, Triton), so the threads they leave belong to the harness's snapshot."""
    for name in ("numpy", "triton", "triton.language"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    torch.ones(1 << 16).mul_(2).sum()  # large enough for the intra-op thread pool
    if device.type != "cuda":  # the profiler's worker thread (profile mode; timing's on a GPU, below)
        with profile(use_cpu=True, use_kineto=True):
            torch.ones(16).add_(1)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        torch.cuda.init()
        with profiler_session():
            torch.ones(16, device=device).add_(1)
            torch.cuda.synchronize(device)


def main(argv: list[str]) -> None:
    """Entry point of the solution's process: its channel's and its arena's descriptors."""
    sys.path[:] = [p for p in sys.path if p]  # never the working directory
    channel = Channel(socket.socket(fileno=int(argv[0])))
    arena = HostArena(int(argv[1]))
    try:
        Executor(channel, arena).serve()
    except (ChannelClosed, EOFError, BrokenPipeError, KeyboardInterrupt):
        pass
    except MemoryError:  # outside a call of the solution's (receiving inputs, replying)
        os._exit(OUT_OF_MEMORY_EXIT)
    except OSError as exc:
        if exc.errno == errno.ENOMEM:
            os._exit(OUT_OF_MEMORY_EXIT)
        raise
    sys.exit(0)
