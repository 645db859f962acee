"""What happened to an evaluation, in the words every page, the API and the CLI use, with a CSS
class for its colour. A scored run whose every workload failed is no success: the state alone
("scored") does not say so."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from evaluator.harness import status

QUEUED, RUNNING, SCORED, FAILED, CANCELLED = "queued", "running", "scored", "failed", "cancelled"


@dataclass(frozen=True)
class EvaluationOutcome:
    text: str
    css: str  # state-scored (green), state-partial (amber), state-failed (red), state-<state>

    def __str__(self) -> str:
        return self.text


_BEFORE_SCORING = {
    QUEUED: EvaluationOutcome("queued", "state-queued"),
    RUNNING: EvaluationOutcome("running", "state-running"),
    FAILED: EvaluationOutcome("failed on the platform", "state-failed"),
    CANCELLED: EvaluationOutcome("cancelled", "state-cancelled"),
}
_FLAGGED = EvaluationOutcome("flagged: reward hack", "state-failed")
_NOT_COMPILED = EvaluationOutcome("did not compile", "state-failed")
_ALL_WRONG = EvaluationOutcome("incorrect on every workload", "state-failed")
_FAILED = (_FLAGGED, _NOT_COMPILED, _ALL_WRONG)
_SCORED = EvaluationOutcome("scored", "state-scored")


def evaluation_outcome(state: str, reward_hack: bool, aggregates: Mapping[str, Any] | None,
                       verdicts: Iterable[str] = ()) -> EvaluationOutcome:
    """From the evaluation's state, its reward-hack flag, its aggregates (passed, total) and the
    verdicts of the workloads the reader may see (the visible ones: hidden ones show as counts only).
    `verdicts` is read only when nothing passed, so a caller may pass a lazy iterable."""
    if state != SCORED:
        return _BEFORE_SCORING.get(state, EvaluationOutcome(state, f"state-{state}"))
    if reward_hack:
        return _FLAGGED
    passed, total = (aggregates or {}).get("passed"), (aggregates or {}).get("total")
    if not isinstance(passed, int) or not isinstance(total, int) or not total:
        return _SCORED
    if passed == 0:
        seen = list(verdicts)
        if seen and all(verdict == status.COMPILE_ERROR for verdict in seen):
            return _NOT_COMPILED
        return _ALL_WRONG
    if passed < total:
        return EvaluationOutcome(f"scored, {passed} of {total} workloads passed", "state-partial")
    return _SCORED


def outcome_of_text(text: str) -> EvaluationOutcome:
    """The outcome one of evaluation_outcome's texts stands for (the API gives the text only)."""
    known = {o.text: o for o in (*_BEFORE_SCORING.values(), *_FAILED, _SCORED)}
    if text in known:
        return known[text]
    return EvaluationOutcome(text, "state-partial" if text.startswith("scored, ") else f"state-{text}")
