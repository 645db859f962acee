"""The reporter's handle on the solution's process (evaluator.harness.executor), trusted side.

The solution's process is a plain child (subprocess, not multiprocessing: no pickles, no shared
authentication key, no resource tracker or resource-sharing listener in the reporter), started
with the reporter's own safe interpreter flags and given exactly two descriptors: its end of the
channel (channel.py) and the host arena of shared buffers (buffers.py). Messages go both ways as
JSON; every message up is validated, and anything that is not a well-formed message of a known
kind is a forgery. Between messages the reporter pauses the whole solution's side
(processes.py): it is resumed only to be sent a message.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from typing import Any

from . import executor
from .buffers import HostArena
from .channel import ChannelClosed, FrameTooLarge, pair
from .freezer import Freezer
from .processes import SolutionSide, Task, become_subreaper

MAX_REPLY = executor.MAX_REPLY
KINDS = ("ready", "done", "reply")
SAFE_PATH_FLAGS = ("-P", "-s")


class SolutionDied(Exception):
    """The solution's process ended or broke the protocol; the message says how."""


class ChannelTampered(SolutionDied):
    """Messages no honest solution's process sends: someone else wrote on the channel."""


class SolutionProcess:
    def __init__(self, freezer: Freezer | None = None) -> None:
        become_subreaper()
        self.channel, theirs = pair()
        self.arena = HostArena()
        os.set_inheritable(self.arena.fd, True)
        try:
            self.process = subprocess.Popen(
                [sys.executable, *SAFE_PATH_FLAGS, "-m", "evaluator.harness.solution_main",
                 str(theirs.fileno()), str(self.arena.fd)],
                pass_fds=(theirs.fileno(), self.arena.fd), stdin=subprocess.DEVNULL, cwd=os.getcwd())
        finally:
            theirs.close()
            os.set_inheritable(self.arena.fd, False)
        if freezer is not None:
            freezer.adopt(self.process.pid)  # before it runs anything of the solution's
        self._nonces = itertools.count(1)
        self.side = SolutionSide(freezer=freezer)

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
            self.channel.send({"op": op, "nonce": nonce, **fields})
        except ChannelClosed:
            raise SolutionDied(self._how_it_ended()) from None
        return nonce

    def pause(self) -> list[int]:
        """Pause the solution's side; returns its processes."""
        pids = self.side.pause()
        self.side.reap(pids, keep=self.process.pid)
        return pids

    def tasks(self, pids: list[int] | None = None, known: list[Task] = ()) -> list[Task]:
        return self.side.tasks(pids, known)

    def receive(self) -> dict[str, Any]:
        """The next message from the solution's process: a JSON object with a known kind."""
        try:
            raw = self.channel.receive_bytes(MAX_REPLY)
        except ChannelClosed:
            raise SolutionDied(self._how_it_ended()) from None
        except FrameTooLarge:
            raise ChannelTampered("something wrote an oversized message on the harness's channel") from None
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
        if self.process.poll() is None:
            try:
                self.channel.send({"op": "exit"})
            except ChannelClosed:
                pass
            self._wait(2.0)
        if self.process.poll() is None:
            self.process.kill()
            self._wait(5.0)
        left = self.side.pids()
        for pid in left:  # whatever the solution's side left behind
            _kill(pid)
        self.side.reap(left, keep=None)
        self.channel.close()
        self.arena.close()

    def _wait(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while self.process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)

    def _how_it_ended(self) -> str:
        self._wait(2.0)
        code = self.process.poll()
        if code is None:
            return "the solution's process closed the harness's channel"
        if code < 0:
            return f"the solution's process was killed by signal {-code}"
        if code == executor.OUT_OF_MEMORY_EXIT:
            return "the solution's process ran out of memory in the middle of a call (MemoryError)"
        return f"the solution's process exited with code {code} in the middle of a call"


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except (ProcessLookupError, PermissionError):
        pass
