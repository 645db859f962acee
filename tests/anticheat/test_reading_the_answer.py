"""Class 9, reading the answer: the expected output must be out of the solution's reach, whether
it looks through gc, in freshly allocated (recycled) memory, or in the job's files for the seed
and the hidden workloads. (Importing the reference itself is the fallback of class 13.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.anticheat.conftest import assert_never_scores, evaluate_cheat

SEED = 90210417  # distinctive, so that a leak of it is easy to spot


@pytest.mark.parametrize("name", ["gc_expected", "freed_memory"])
def test_the_expected_output_is_out_of_reach(tmp_path: Path, name: str) -> None:
    assert_never_scores(evaluate_cheat(tmp_path, name))


def test_the_job_seed_and_hidden_workloads_are_not_readable(tmp_path: Path) -> None:
    # The cheat raises "LEAKED ..." with what it found; not finding anything, it returns a wrong answer.
    run = evaluate_cheat(tmp_path, "job_files", seed=SEED)
    seen = run.text_seen_by_submitter()
    assert "LEAKED" not in seen, f"the solution read the job's secrets:\n{seen[:3000]}"
    assert str(SEED) not in seen
    assert_never_scores(run)
