"""Threads a solution's libraries start and leave idle (the CuTe DSL's compiler leaves an LLVM
worker pool after its first call) may stay; a thread that works after it first appears, or one
that first appears after a timed call, is REWARD_HACK. The threads here are started with
`_thread`, which Python's own thread list never sees: only the reporter's reading of /proc does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evaluator.harness import status
from tests.conftest import evaluate_source

CALLS: dict[str, Any] = {
    "correctness_rounds": 2,
    "timing": {"warmup": 2, "min_iterations": 12, "max_iterations": 12, "budget_seconds": 20},
}

PREAMBLE = '''
import _thread
import time

import torch

_calls = [0]
_gate = _thread.allocate_lock()
_gate.acquire()


def start(work):
    _thread.start_new_thread(work, ())
'''

IDLE_POOL = PREAMBLE + '''

def run(x, bias):
    _calls[0] += 1
    if _calls[0] == 1:  # a compiler's worker pool: started by the first call, then waits forever
        for _ in range(2):
            start(_gate.acquire)
    return x * 2.0 + bias[None, :]
'''

BUSY_HELPER = PREAMBLE + '''

def _poll():
    total = 0
    while True:
        total += sum(range(20000))
        time.sleep(0.0005)


def run(x, bias):
    _calls[0] += 1
    if _calls[0] == 1:
        start(_poll)
    return x * 2.0 + bias[None, :]
'''

LATE_HELPER = PREAMBLE + '''

def run(x, bias):
    _calls[0] += 1
    if _calls[0] == 6:  # after two correctness rounds and two warm-ups: a timed call
        start(_gate.acquire)
    return x * 2.0 + bias[None, :]
'''


def statuses(tmp_path: Path, source: str) -> tuple[set[str], str]:
    evaluated = evaluate_source(tmp_path, source, options=CALLS)
    rows = evaluated.outcome.results.values()
    return {r["status"] for r in rows}, " ".join(r.get("message", "") for r in rows)


def test_an_idle_pool_started_by_the_first_call_may_stay(tmp_path: Path) -> None:
    found, messages = statuses(tmp_path, IDLE_POOL)
    assert found == {status.PASSED}, messages


def test_a_helper_that_keeps_working_after_it_appeared_is_caught(tmp_path: Path) -> None:
    found, messages = statuses(tmp_path, BUSY_HELPER)
    assert status.REWARD_HACK in found, messages
    assert "thread(s) or process(es) the harness did not start" in messages


def test_a_thread_first_seen_after_a_timed_call_is_caught_even_idle(tmp_path: Path) -> None:
    found, messages = statuses(tmp_path, LATE_HELPER)
    assert status.REWARD_HACK in found, messages
    assert "the harness did not start" in messages
