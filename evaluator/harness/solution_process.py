"""The reporter's handle on the solution's process (evaluator.harness.executor).

Requests go down pickled (the solution's process trusts the reporter); replies come up as JSON
only, never pickles, so nothing the solution says can run code in the reporter.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
import time
from typing import Any

import torch.multiprocessing  # noqa: F401  (registers tensor sharing for the requests)

from . import executor

MAX_REPLY = executor.MAX_REPLY


class SolutionDied(Exception):
    """The solution's process ended or broke the protocol; the message says how."""


class ChannelTampered(SolutionDied):
    """Messages no honest solution's process sends: someone else wrote on the channel."""


class SolutionProcess:
    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child_end = context.Pipe(duplex=True)
        self.process = context.Process(target=executor.main, args=(child_end,), name="solution",
                                       daemon=True)
        self.process.start()
        child_end.close()
        self._nonces = itertools.count(1)

    def request(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send a request and wait for its reply (no gated calls in between)."""
        nonce = self.send(op, **fields)
        return self.reply_to(nonce, self.receive())

    def send(self, op: str, **fields: Any) -> int:
        nonce = next(self._nonces)
        try:
            self.conn.send({"op": op, "nonce": nonce, **fields})
        except OSError:
            raise SolutionDied(self._how_it_ended()) from None
        return nonce

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
        except ValueError:
            raise ChannelTampered("something wrote garbage on the harness's channel") from None
        if not isinstance(message, dict) or message.get("kind") not in ("ready", "done", "reply"):
            raise ChannelTampered("something wrote a message of no known kind on the harness's channel")
        return message

    def reply_to(self, nonce: int, message: dict[str, Any]) -> dict[str, Any]:
        if message.get("kind") != "reply" or message.get("nonce") != nonce:
            raise ChannelTampered("a message came out of turn on the harness's channel "
                                  "(a forked process or a forged reply)")
        return message

    def close(self) -> None:
        if self.process.is_alive():
            try:
                self.conn.send({"op": "exit"})
            except OSError:
                pass
            self._wait(2.0)
        if self.process.exitcode is None:
            self.process.kill()
            self._wait(5.0)
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
        return f"the solution's process exited with code {code} in the middle of a call"
