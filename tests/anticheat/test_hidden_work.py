"""Class 3, hidden work (CPU part; streams are in tests/gpu/test_gpu_cheats.py): an output
filled by a thread after run() returns, whether the thread is started by the call or was waiting
since import, must be detected and named (REWARD_HACK)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.anticheat.conftest import assert_reward_hack, evaluate_cheat


@pytest.mark.parametrize("name", ["thread_fills_output", "pooled_worker_defers"])
def test_work_left_to_a_thread_is_caught_and_named(tmp_path: Path, name: str) -> None:
    assert_reward_hack(evaluate_cheat(tmp_path, name), "thread")
