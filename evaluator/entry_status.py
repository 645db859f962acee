"""Why a board's row has no rank, or what is in question about it: one short public text per row,
the same on the pages, the CSV and the API (docs/scoring.md, "Why a row has no rank").

A participant without a valid score is explained by their latest evaluation that counts on the board
(scored, on the boards: ranked and not a private agent upload's, not replaced by a rescore, not a
confirmation run; the ones rankings.update_entry counts, every one of them invalid, or they would
have a score). The text is made only of what the submission's public page shows: the
reward-hack flag and whether a reviewer set it, the public reason of a disqualification in the
review queue (evaluator/review.py), the aggregates, the verdict of a visible workload, and, for a
rescore (evaluator/rescore.py), the harness version that measured it (an entry that fails a new
harness says so).
Never the review notes (`hack_reason`: admins only, it quotes hidden workloads), a workload's message
(it follows the source's visibility) or anything of a hidden workload but the aggregate."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import F, OuterRef, Subquery, Window
from django.db.models.functions import RowNumber

from leaderboard.models import Workload

from .counting import COUNTING
from .harness import status
from .models import Evaluation, ReviewDecision, WorkloadResult
from .rankings import on_boards

REWARD_HACK, DISQUALIFIED = "reward_hack", "disqualified"
NO_WORKLOAD_PASSED, SCORED_ZERO, NO_VALID_SCORE = "no_workload_passed", "scored_zero", "no_valid_score"
DISPUTED = "disputed"
CODES = (REWARD_HACK, DISQUALIFIED, NO_WORKLOAD_PASSED, SCORED_ZERO, NO_VALID_SCORE, DISPUTED)
BROKE_RULES = (REWARD_HACK, DISQUALIFIED)  # the ones the problem's rules (its page's #rules) explain


@dataclass(frozen=True)
class EntryStatus:
    code: str  # one of CODES
    text: str  # what the boards show
    submission_id: int | None  # the submission it is about (ranked: its page is public)

    @property
    def broke_rules(self) -> bool:
        return self.code in BROKE_RULES


UNEXPLAINED = EntryStatus(NO_VALID_SCORE, "no valid score", None)  # no counting evaluation found


def why_excluded(submission_id: int | None, reward_hack: bool, reviewed: bool,
                 aggregates: Mapping[str, Any] | None, score: float | None,
                 visible_failure: str | None, public_reason: str = "") -> EntryStatus:
    """Why an evaluation does not count for the board: `reviewed` when a reviewer marked the reward
    hack (the reviewer is not named), `public_reason` what they wrote for everyone when they did it
    in the review queue; `visible_failure` the verdict of its first visible workload that did not
    pass, if any."""
    aggregates = aggregates or {}
    if reward_hack:
        if reviewed:
            text = f"disqualified by review: {public_reason}" if public_reason else "disqualified by review"
            return EntryStatus(DISQUALIFIED, text, submission_id)
        return EntryStatus(REWARD_HACK, "reward hack: flagged by the harness", submission_id)
    if aggregates.get("passed") == 0:
        text = "no workload passed"
        if visible_failure:
            text += ": " + visible_failure.lower().replace("_", " ")
        return EntryStatus(NO_WORKLOAD_PASSED, text, submission_id)
    if score is not None and score <= 0:
        below = aggregates.get("below_sol_count")
        faster = isinstance(below, int) and below > 0
        text = "scored 0: faster than the SOL bound allows" if faster else "scored 0"
        return EntryStatus(SCORED_ZERO, text, submission_id)
    return EntryStatus(NO_VALID_SCORE, "no valid score", submission_id)


def disputed(submission_id: int | None) -> EntryStatus:
    """A ranked entry whose confirmation run disagreed (evaluator.confirmations): a reviewer decides."""
    return EntryStatus(DISPUTED, "disputed: under review", submission_id)


def excluded(unscored: Collection[tuple[int, int]], hardware_id: int) -> dict[tuple[int, int], EntryStatus]:
    """Why each participant without a valid score on a board of the hardware has none, for the
    (problem id, user id) pairs given (the board's entries without a score): two queries at most,
    each over those participants' evaluations only, whatever the size of the board."""
    if not unscored:
        return {}
    pairs = set(unscored)
    last_decision = ReviewDecision.objects.filter(evaluation=OuterRef("pk")).order_by("-created", "-pk")
    latest = Window(RowNumber(), partition_by=[F("submission__problem_id"), F("submission__owner_id")],
                    order_by=[F("submission__created").desc(), F("pk").desc()])
    found = [row for row in (
        Evaluation.objects.filter(COUNTING, on_boards("submission__"), state=Evaluation.SCORED,
                                  hardware_id=hardware_id,
                                  submission__problem_id__in={problem for problem, _ in pairs},
                                  submission__owner_id__in={user for _, user in pairs})
        .annotate(place=latest, decision=Subquery(last_decision.values("action")[:1]),
                  public_reason=Subquery(last_decision.values("public_reason")[:1])).filter(place=1)
        .values_list("pk", "submission__problem_id", "submission__owner_id", "submission_id", "reward_hack",
                     "hack_marked_by_id", "aggregates", "score", "decision", "public_reason",
                     "rescore_of_id", "harness_version"))
        if (row[1], row[2]) in pairs]
    if not found:
        return {}
    first_failure = dict(WorkloadResult.objects.filter(evaluation_id__in=[row[0] for row in found],
                                                       workload__visibility=Workload.VISIBLE)
                         .exclude(status=status.PASSED).order_by("evaluation_id", "workload__position")
                         .distinct("evaluation_id").values_list("evaluation_id", "status"))
    # the public reason of the last decision, when it was the disqualification the flag comes from
    return {(problem, owner): _rescored(why_excluded(submission, hack, marked is not None, aggregates, score,
                                                     first_failure.get(pk),
                                                     reason if decision == ReviewDecision.DISQUALIFY else ""),
                                        harness if rescore_of is not None else None)
            for (pk, problem, owner, submission, hack, marked, aggregates, score, decision, reason,
                 rescore_of, harness) in found}


def _rescored(status: EntryStatus, harness: str | None) -> EntryStatus:
    """The status of a rescore's evaluation says which harness measured it: the entry's earlier
    evaluation, under an older harness, counted."""
    if harness is None:
        return status
    return EntryStatus(status.code, f"{status.text} (rescored under harness {harness or 'unrecorded'})",
                       status.submission_id)
