"""Class 8, input mutation: a solution that overwrites its inputs so that the reference, run on
the same tensors afterwards, agrees with its wrong output must never be scored: the reference
computes on pristine copies."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.anticheat.conftest import assert_never_scores, evaluate_cheat


@pytest.mark.parametrize("name", ["zero_inputs", "rewrite_inputs"])
def test_overwriting_the_inputs_never_scores(tmp_path: Path, name: str) -> None:
    assert_never_scores(evaluate_cheat(tmp_path, name))
