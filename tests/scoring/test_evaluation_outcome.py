"""evaluator/scoring/outcome.py: one wording of what happened to an evaluation, for the pages, the
API and the CLI, and the CSS class that colours it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evaluator.scoring.outcome import evaluation_outcome, outcome_of_text

NONE_PASSED = {"passed": 0, "total": 4}


@pytest.mark.parametrize(("state", "hack", "aggregates", "verdicts", "text", "css"), [
    ("queued", False, {}, [], "queued", "state-queued"),
    ("running", False, {}, [], "running", "state-running"),
    ("failed", False, {}, [], "failed on the platform", "state-failed"),
    ("cancelled", False, {}, [], "cancelled", "state-cancelled"),
    ("scored", False, NONE_PASSED, ["COMPILE_ERROR", "COMPILE_ERROR"], "did not compile", "state-failed"),
    ("scored", False, NONE_PASSED, ["COMPILE_ERROR", "TIMEOUT"], "incorrect on every workload",
     "state-failed"),
    ("scored", False, NONE_PASSED, [], "incorrect on every workload", "state-failed"),
    ("scored", True, {"passed": 4, "total": 4}, [], "flagged: reward hack", "state-failed"),
    ("scored", False, {"passed": 3, "total": 4}, [], "scored, 3 of 4 workloads passed", "state-partial"),
    ("scored", False, {"passed": 4, "total": 4}, [], "scored", "state-scored"),
    ("scored", False, {}, [], "scored", "state-scored"),  # stored before the counts were kept
])
def test_each_outcome_and_its_class(state: str, hack: bool, aggregates: dict[str, int], verdicts: list[str],
                                    text: str, css: str) -> None:
    found = evaluation_outcome(state, hack, aggregates, verdicts)
    assert (found.text, found.css, str(found)) == (text, css, text)
    assert outcome_of_text(text) == found  # the CLI colours the API's words alike


def test_the_verdicts_are_read_only_when_nothing_passed() -> None:
    def untouchable() -> Iterator[str]:
        raise AssertionError("read")
        yield "PASSED"

    found = evaluation_outcome("scored", False, {"passed": 1, "total": 2}, untouchable())
    assert found.text == "scored, 1 of 2 workloads passed"
