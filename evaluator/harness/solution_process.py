"""The reporter's handle on the solution's process (evaluator.harness.executor), trusted side.

Requests go down pickled (the solution's process trusts the reporter); replies come up as JSON
only, never pickles, so nothing the solution says can run code in the reporter, and anything
that is not a well-formed message of a known kind is a forgery. Between messages the reporter
can pause the whole solution's side (processes.py): it is resumed only to be sent a message.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import time
from typing import Any

import torch.multiprocessing  # noqa: F401  (registers tensor sharing for the requests)

from . import executor
from .processes import SolutionSide, Task, become_subreaper, cpu_seconds

MAX_REPLY = executor.MAX_REPLY
KINDS = ("ready", "done", "reply")


class SolutionDied(Exception):
    """The solution's process ended or broke the protocol; the message says how."""


class ChannelTampered(SolutionDied):
    """Messages no honest solution's process sends: someone else wrote on the channel."""


class SolutionProcess:
    def __init__(self) -> None:
        become_subreaper()
        context = multiprocessing.get_context("spawn")
        self.conn, child_end = context.Pipe(duplex=True)
        self.process = context.Process(target=executor.main, args=(child_end,), name="solution",
                                       daemon=True)
        self.process.start()
        child_end.close()
        self._nonces = itertools.count(1)
        self.side = SolutionSide(exempt=_helpers_of_this_process())

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send a request and wait for its reply (no gated calls in between)."""
        nonce = self.send(op, **fields)
        return self.reply_to(nonce, self.receive())

    def send(self, op: str, **fields: Any) -> int:
        """Resume the solution's side if it is paused, and send it a message."""
        if self.side.paused:
            self.side.resume()
        nonce = next(self._nonces)
        try:
            self.conn.send({"op": op, "nonce": nonce, **fields})
        except OSError:
            raise SolutionDied(self._how_it_ended()) from None
        return nonce

    def pause(self) -> list[int]:
        """Pause the solution's side; returns its processes."""
        pids = self.side.pause()
        self.side.reap(pids, keep=self.process.pid)
        return pids

    def cpu_ms(self, pids: list[int]) -> float:
        """CPU time the processes `pids` of the solution's side have used so far, in ms."""
        return cpu_seconds(pids) * 1e3

    def tasks(self, pids: list[int] | None = None, known: list[Task] = ()) -> list[Task]:
        return self.side.tasks(pids, known)

    def receive(self) -> dict[str, Any]:
        """The next message from the solution's process: a JSON object with a known kind."""
        try:
            raw = self.conn.recv_bytes(MAX_REPLY)
        except EOFError:
            raise SolutionDied(self._how_it_ended()) from None
        except OSError as exc:
            if "bad message length" in str(exc):  # raw bytes where a framed message belongs
                raise ChannelTampered("something wrote raw bytes on the harness's channel") from None
            raise SolutionDied(self._how_it_ended()) from None
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):  # RecursionError: nested deeper than any message
            raise ChannelTampered("something wrote garbage on the harness's channel") from None
        if not isinstance(message, dict) or message.get("kind") not in KINDS:
            raise ChannelTampered("something wrote a message of no known kind on the harness's channel")
        return message

    def reply_to(self, nonce: int, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("kind") != "reply" or message.get("nonce") != nonce:
            raise ChannelTampered("a message came out of turn on the harness's channel "
                                  "(a forked process or a forged reply)")
        return message

    def close(self) -> None:
        if self.side.paused:
            self.side.resume()
        if self.process.is_alive():
            try:
                self.conn.send({"op": "exit"})
            except OSError:
                pass
            self._wait(2.0)
        if self.process.exitcode is None:
            self.process.kill()
            self._wait(5.0)
        left = self.side.pids()
        for pid in left:  # whatever the solution's side left behind
            _kill(pid)
        self.side.reap(left, keep=None)
        self.conn.close()

    def _wait(self, seconds: float) -> None:
        """Wait for the process to end by polling its status. Not Process.join: the solution can
        write into the sentinel pipe join watches, which then blocks for good."""
        deadline = time.monotonic() + seconds
        while self.process.exitcode is None and time.monotonic() < deadline:
            time.sleep(0.02)

    def _how_it_ended(self) -> str:
        self._wait(2.0)
        code = self.process.exitcode
        if code is None:
            return "the solution's process closed the harness's channel"
        if code < 0:
            return f"the solution's process was killed by signal {-code}"
        if code == executor.OUT_OF_MEMORY_EXIT:
            return "the solution's process ran out of memory in the middle of a call (MemoryError)"
        return f"the solution's process exited with code {code} in the middle of a call"


def _helpers_of_this_process() -> frozenset[int]:
    """multiprocessing's resource tracker: a child of the reporter that is not the solution's."""
    from multiprocessing import resource_tracker

    pid = getattr(resource_tracker._resource_tracker, "_pid", None)
    return frozenset([pid]) if pid else frozenset()


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except (ProcessLookupError, PermissionError):
        pass
