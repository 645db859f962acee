"""Class 13, fallback: forwarding every call to the problem's reference (imported from the job
directory, or found among loaded modules and on disk) must be caught and named (REWARD_HACK).

The fixture problem (tests/fixtures/problems/scale_shift) lists no forbidden functions: running
the problem's own reference instead of a kernel is refused for every problem, not by a rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.anticheat.conftest import assert_reward_hack, evaluate_cheat


@pytest.mark.parametrize("name", ["import_job_reference", "search_reference"])
def test_calling_the_reference_is_caught_and_named(tmp_path: Path, name: str) -> None:
    assert_reward_hack(evaluate_cheat(tmp_path, name), "reference", "fallback")
