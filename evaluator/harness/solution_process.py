"""The reporter's handle on the solution's process (evaluator.harness.executor).

Requests go down pickled (the solution's process trusts the reporter); replies come up as JSON
only, never pickles, so nothing the solution says can run code in the reporter.
"""

from __future__ import annotations

import itertools
import json
import multiprocessing
from typing import Any

import torch.multiprocessing  # noqa: F401  (registers tensor sharing for the requests)

from . import executor

MAX_REPLY = executor.MAX_REPLY


class SolutionDied(Exception):
    """The solution's process ended or broke the protocol; the message says how."""


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
        nonce = next(self._nonces)
        try:
            self.conn.send({"op": op, "nonce": nonce, **fields})
            raw = self.conn.recv_bytes(MAX_REPLY)
        except (EOFError, OSError):
            raise SolutionDied(self._how_it_ended()) from None
        try:
            reply = json.loads(raw)
        except ValueError:
            raise SolutionDied("the solution's process wrote garbage on the harness's channel") from None
        if not isinstance(reply, dict) or reply.get("nonce") != nonce:
            raise SolutionDied("the solution's process answered out of turn (a forked or forged reply)")
        return reply

    def close(self) -> None:
        if self.process.is_alive():
            try:
                self.conn.send({"op": "exit"})
            except OSError:
                pass
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5)
        self.conn.close()

    def _how_it_ended(self) -> str:
        self.process.join(timeout=5)
        code = self.process.exitcode
        if code is None:
            return "the solution's process closed the harness's channel"
        if code < 0:
            return f"the solution's process was killed by signal {-code}"
        return f"the solution's process exited with code {code} in the middle of a call"
