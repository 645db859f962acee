"""Class 12, trivial outputs: the input itself, zeros, ones or uninitialised memory must never
be scored, whatever the allocator happens to hand back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.anticheat.conftest import assert_never_scores, evaluate_cheat


@pytest.mark.parametrize("name", ["return_input", "zeros", "ones", "empty_like"])
def test_a_trivial_output_never_scores(tmp_path: Path, name: str) -> None:
    assert_never_scores(evaluate_cheat(tmp_path, name))
