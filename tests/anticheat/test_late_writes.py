"""Class 24, late writes: a thread started outside run() (by a finalizer the harness triggers
when it drops an output) computes each answer after its call has returned and writes it into the
harness's shared output buffer. Threads are compared with one snapshot taken before the solution
is imported, and the solution's side is paused while its outputs are checked: the thread is
caught and named, and no output it writes late is ever read."""

from __future__ import annotations

from pathlib import Path

from tests.anticheat.conftest import MANY_CALLS, assert_reward_hack, evaluate_cheat


def test_a_thread_writing_after_the_call_is_caught_and_named(tmp_path: Path) -> None:
    assert_reward_hack(evaluate_cheat(tmp_path, "late_write_thread", options=MANY_CALLS), "thread")
