"""The reporter's own GPU clock of each call of the solution's (trusted side).

Before the solution's process is told to go, the reporter queues on a stream of its own, in one
go, everything around the call, and the GPU runs it without the host in between:

    wait(ready >= n)      the solution's stream says it is about to queue the call
    A  copy the inputs into the shared buffers, flush the L2   (the prelude)
    G  write(go = n)      the solution's stream was waiting for this before its first launch
       wait(done >= n)    the solution's stream writes it after copying its outputs
    B  copy the shared outputs into buffers of the reporter's own          (the freeze)
    C

A, G, B, C are CUDA events of the reporter's stream: GPU timestamps that nothing in the
solution's process can move. Contexts of two processes never run on the GPU at once (they take
turns, in time slices of about 1.5 ms on the H100), so whatever GPU work the solution's side
does with a call's inputs lies between G and B, on any stream, in any of its processes: the
inputs exist only from A on, and the reporter's stream holds the GPU from A to G, unless a
prelude longer than a time slice lets another context in (which `prelude` shows, and which is
charged). The outputs are what the shared buffers held at B: work the solution leaves queued
past its done either runs before B (and is inside the bracket) or after the freeze (and is not
in what is checked). The freeze itself, from B to C, copies the very bytes the solution's
process copied into the shared buffers before its done: the reporter's measure of that copy.

So each call has a bound that the solution's process cannot lower, only raise:

    bound = (B - G) + max(0, (G - A) - prelude_ref) - (C - B)

the GPU time from the inputs being ready to the outputs being handed over, less the hand-over.
The solution's reported activity span must fit inside B - G, and the scored time of the call
never falls more than the allowance below `bound - overhead` (calibration.py: the overhead is
the same bound's excess over the reported span on the harness's own null problem, measured
before the solution is imported).

If the solution's process never writes its done word, the reporter writes it itself after a
deadline (the reporter's stream must not stay blocked) and the call fails.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import torch

from . import stream_ops
from .buffers import share_cuda
from .l2 import reset_persisting_l2
from .timing import flush_l2

# Words of the shared signal buffer, 64 bytes apart (one cache line each): written by the
# solution's stream (ready, done) or by the reporter's (go).
READY, GO, DONE = 0, 16, 32
WORDS = 48
SETTLE_SECONDS = 10.0  # the most the reporter waits for a call's freeze once the process said done
IDLE_PROBES = 3
IDLE_LIMIT_MS = 0.5  # a tiny operation that waits longer had to wait for another context's slice


@dataclass(frozen=True)
class CallBracket:
    """One call's figures from the reporter's stream, in ms."""

    prelude_ms: float  # A to G: inputs copied, L2 flushed
    bracket_ms: float  # G to B: the solution's side held the GPU
    freeze_ms: float  # B to C: the reporter copied the outputs out

    def bound_ms(self, prelude_ref_ms: float) -> float:
        """The GPU time of the call, handing its outputs over left out: what the solution's side
        can make longer, never shorter."""
        return self.bracket_ms + max(0.0, self.prelude_ms - prelude_ref_ms) - self.freeze_ms


@dataclass
class Pending:
    ticket: int
    events: dict[str, torch.cuda.Event]


class SolutionDidNotFinish(Exception):
    """The solution's stream did not write its done word in time."""


class GpuBracket:
    def __init__(self, device: torch.device, pool: torch.cuda.MemPool) -> None:
        self.device = device
        self.stream = torch.cuda.Stream(device)
        self.release = torch.cuda.Stream(device)
        with torch.cuda.use_mem_pool(pool):
            self.words = torch.zeros(WORDS, dtype=torch.int32, device=device)
        self.gate = torch.zeros(16, dtype=torch.int32, device=device)  # the reporter's own
        self.ticket = 0
        self.prelude_ref_ms = 0.0
        torch.cuda.synchronize(device)

    def describe(self) -> dict[str, Any]:
        """How the solution's process finds the words: the buffer, and each word's index."""
        return {"words": share_cuda(self.words), "ready": READY, "go": GO, "done": DONE}

    def _address(self, word: int) -> int:
        return self.words.data_ptr() + 4 * word

    def arm(self, inputs: list[tuple[torch.Tensor, torch.Tensor]],
            outputs: list[tuple[torch.Tensor, torch.Tensor]]) -> Pending:
        """Queue the bracket of the next call: copy each (source, shared) input pair, and once
        the solution's side is done each (shared, frozen) output pair. Returns the call's ticket
        (what the solution's process writes as ready and done) and its events."""
        self.ticket += 1
        ticket = self.ticket
        events = {name: torch.cuda.Event(enable_timing=True) for name in "AGBC"}
        stream, handle = self.stream, self.stream.cuda_stream
        stream.wait_stream(torch.cuda.current_stream(self.device))  # the inputs were drawn there
        reset_persisting_l2()
        try:
            self._queue(stream, handle, ticket, events, inputs, outputs)
        except Exception:
            self.unblock(ticket)  # what was queued must not wait for good
            raise
        return Pending(ticket, events)

    def _queue(self, stream: torch.cuda.Stream, handle: int, ticket: int, events: dict[str, torch.cuda.Event],
               inputs: list[tuple[torch.Tensor, torch.Tensor]],
               outputs: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
        with torch.cuda.stream(stream):
            stream_ops.wait_value(handle, self._address(READY), ticket)
            events["A"].record(stream)
            for source, shared in inputs:
                shared.copy_(source)
            flush_l2(self.device, wait=False, reset=False)
            events["G"].record(stream)
            stream_ops.write_value(handle, self._address(GO), ticket)
            stream_ops.wait_value(handle, self._address(DONE), ticket)
            events["B"].record(stream)
            for shared, frozen in outputs:
                frozen.copy_(shared)
            events["C"].record(stream)

    def settle(self, pending: Pending, deadline_s: float = SETTLE_SECONDS) -> CallBracket:
        """Wait until the call's freeze is over; SolutionDidNotFinish where the solution's side
        never wrote its words (they are written here instead, so the stream goes on)."""
        end = pending.events["C"]
        limit = time.monotonic() + deadline_s
        while not end.query():
            if time.monotonic() > limit:
                self.unblock(pending.ticket)
                end.synchronize()
                raise SolutionDidNotFinish(
                    "the solution's process did not hand its outputs over on the GPU within "
                    f"{deadline_s:g} s of saying it was done")
            time.sleep(0)
        events = pending.events
        return CallBracket(events["A"].elapsed_time(events["G"]), events["G"].elapsed_time(events["B"]),
                           events["B"].elapsed_time(events["C"]))

    def unblock(self, ticket: int) -> None:
        """Write the words the solution's side should have written, from a stream of ours."""
        for word in (READY, DONE):
            stream_ops.write_value(self.release.cuda_stream, self._address(word), ticket)

    def calibrate_prelude(self, inputs: list[tuple[torch.Tensor, torch.Tensor]], repeats: int = 3) -> float:
        """The prelude's time on an otherwise idle GPU (the solution's side paused, and checked
        idle before each): copies of the same sizes into buffers of the reporter's own."""
        scratch = [(source, torch.empty_like(shared)) for source, shared in inputs]
        times = []
        for _ in range(repeats):
            gpu_idle_or_raise(self.device)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            self.stream.wait_stream(torch.cuda.current_stream(self.device))
            with torch.cuda.stream(self.stream):
                start.record(self.stream)
                for source, target in scratch:
                    target.copy_(source)
                flush_l2(self.device, wait=False, reset=False)
                end.record(self.stream)
            end.synchronize()
            times.append(start.elapsed_time(end))
        self.prelude_ref_ms = sorted(times)[len(times) // 2]
        return self.prelude_ref_ms


class GpuBusy(Exception):
    """Another context held the GPU while the solution's side was paused."""


def gpu_idle_or_raise(device: torch.device) -> None:
    """GpuBusy where a tiny operation of ours waits as only another context's time slice makes
    it wait. Each probe is timed from the host; after one runs, a context with work takes the
    GPU back for a fresh slice, which the next probe then waits for."""
    waits = []
    probe = torch.ones(16, device=device)
    for _ in range(IDLE_PROBES):
        torch.cuda.synchronize(device)
        started = time.perf_counter()
        probe.add_(1)
        torch.cuda.synchronize(device)
        waits.append((time.perf_counter() - started) * 1e3)
        time.sleep(0.0002)
    if min(waits[1:]) > IDLE_LIMIT_MS:
        raise GpuBusy(f"GPU work of the solution's side was still running while its side was paused "
                      f"(a tiny operation of the harness's waited {min(waits[1:]):.2f} ms for the GPU)")
