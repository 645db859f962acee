"""The control for the whole suite: an honest solution passes, and scores, under every option set
the cheats are run with. A cheat that fails under options the harness rejects proves nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluator.harness import status
from tests.anticheat.conftest import BATCHED, MANY_CALLS, scored
from tests.conftest import evaluate_source

HONEST = "import torch\n\n\ndef run(x, bias):\n    return x * 2.0 + bias[None, :]\n"


@pytest.mark.parametrize("options", [None, MANY_CALLS, BATCHED], ids=["fast", "many_calls", "batched"])
def test_an_honest_solution_passes_and_scores(tmp_path: Path, options: dict[str, Any] | None) -> None:
    run = scored(evaluate_source(tmp_path, HONEST, options=options), tmp_path / "job" / "solution", "cpu")
    assert {r["status"] for r in run.rows} == {status.PASSED}, run.describe()
    assert run.score > 0
