"""Threads a solution's libraries start in untimed calls (the CuTe DSL's compiler keeps an LLVM
worker pool, busy whenever a new shape is compiled) may stay if they idle through timed calls;
one that works through a timed call, or first appears in one, is REWARD_HACK. The threads here
are started with `_thread`, which Python's own thread list never sees: only the reporter's
reading of /proc does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from evaluator.harness import status
from evaluator.harness.processes import Task, _settle
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

COMPILER_POOL = PREAMBLE + '''
_done = _thread.allocate_lock()
_done.acquire()
_shapes = set()


def _compile_on_request():
    while True:
        _gate.acquire()
        sum(range(300000))  # compiling a new shape
        _done.release()


def run(x, bias):
    _calls[0] += 1
    if _calls[0] == 1:
        start(_compile_on_request)
    if x.shape not in _shapes:  # a shape's first call is a correctness round: untimed
        _shapes.add(x.shape)
        _gate.release()
        _done.acquire()
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


IDLE_CHILD = PREAMBLE + '''
import os


def run(x, bias):
    _calls[0] += 1
    if _calls[0] == 1 and os.fork() == 0:  # a process started by the first call, asleep from then on
        time.sleep(120)
        os._exit(0)
    return x * 2.0 + bias[None, :]
'''


def statuses(tmp_path: Path, source: str) -> tuple[set[str], str]:
    evaluated = evaluate_source(tmp_path, source, options=CALLS)
    rows = evaluated.outcome.results.values()
    return {r["status"] for r in rows}, " ".join(r.get("message", "") for r in rows)


def test_an_idle_pool_started_by_the_first_call_may_stay(tmp_path: Path) -> None:
    found, messages = statuses(tmp_path, IDLE_POOL)
    assert found == {status.PASSED}, messages


def test_a_pool_that_works_only_when_a_new_shape_first_comes_may_stay(tmp_path: Path) -> None:
    found, messages = statuses(tmp_path, COMPILER_POOL)
    assert found == {status.PASSED}, messages


def test_a_helper_that_keeps_working_after_it_appeared_is_caught(tmp_path: Path) -> None:
    found, messages = statuses(tmp_path, BUSY_HELPER)
    assert status.REWARD_HACK in found, messages
    assert "thread(s) or process(es) the harness did not start" in messages


def test_a_thread_first_seen_after_a_timed_call_is_caught_even_idle(tmp_path: Path) -> None:
    found, messages = statuses(tmp_path, LATE_HELPER)
    assert status.REWARD_HACK in found, messages
    assert "the harness did not start" in messages


def test_a_process_started_by_the_first_call_is_caught_even_idle(tmp_path: Path) -> None:
    found, messages = statuses(tmp_path, IDLE_CHILD)
    assert status.REWARD_HACK in found, messages
    assert "process(es) the harness did not start" in messages


def test_a_check_waits_for_each_new_thread_to_take_its_own_stop() -> None:
    """The leader stopped does not mean every thread has (one may still wait for a CPU): a thread's
    counters are read once it is stopped itself, so its stop is not counted at the next check."""
    child = subprocess.Popen([sys.executable, "-c", WAITING_THREAD], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline()
        tid = max(int(t) for t in os.listdir(f"/proc/{child.pid}/task"))
        helper = Task(child.pid, tid, "waiting")
        started = time.monotonic()
        _settle(helper, deadline=started + 0.3)  # running: waited for, up to the deadline
        assert time.monotonic() - started >= 0.3
        os.kill(child.pid, signal.SIGSTOP)
        _settle(helper, deadline=time.monotonic() + 5)
        with open(f"/proc/{child.pid}/task/{tid}/stat", "rb") as fh:
            assert fh.read().rsplit(b")", 1)[1].split()[0] == b"T"
    finally:
        child.kill()
        child.wait()


WAITING_THREAD = '''
import threading, time
threading.Thread(target=threading.Event().wait, daemon=True).start()
print("ready", flush=True)
time.sleep(60)
'''
