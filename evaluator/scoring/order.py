"""Correct first: the one order of the boards (docs/scoring.md, "Boards"). An entry that failed any
workload, visible or hidden, ranks below every entry that passed them all, whatever the scores;
within each standing the higher score wins, and an entry without a valid score comes last. The
problem boards order their entries by it (evaluator.rankings: in SQL as STANDING, in Python
through rank_key), the agent board its uploads and the agent compare two uploads, problem by
problem and over the suite."""

from __future__ import annotations

from typing import Any

CORRECT, INCORRECT, NO_SCORE = 0, 1, 2


def standing(failed: int, score: float | None) -> int:
    """CORRECT where nothing failed, INCORRECT where something did, NO_SCORE without a valid score."""
    if score is None:
        return NO_SCORE
    return INCORRECT if failed > 0 else CORRECT


def rank_key(failed: int, score: float | None, *ties: Any) -> tuple[Any, ...]:
    """The sort key of an entry, best first: its standing, the higher score, then `ties` (earlier
    submission, lower id, ...) in order."""
    return (standing(failed, score), -(score or 0.0), *ties)
