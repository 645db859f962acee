"""The evaluation lifecycle: sending, claiming, leases, ingestion, reaping and re-dispatching; and
reviews of reward hacks.

The database is the source of truth. A message on the broker only says "look at evaluation N";
claim() admits one worker per attempt, so a duplicated or re-sent message is harmless, and a lost
one is sent again by dispatch_stale().
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from evaluator.harness import status
from evaluator.rankings import recompute_entry, update_entry
from leaderboard.models import Workload

from . import modes, profile_reports
from .models import Evaluation, WorkloadResult, public_environment
from .page_changes import submissions_changed

log = logging.getLogger(__name__)
TASK = "evaluator.tasks.evaluate"


def send(evaluation_id: int, queue: str, priority: int | None = None) -> None:
    """The one place a message leaves for the broker."""
    from .tasks import evaluate  # the task module imports this one

    evaluate.apply_async(args=[evaluation_id], queue=queue, priority=priority)


def enqueue(evaluation: Evaluation) -> None:
    send(evaluation.pk, evaluation.hardware.queue, modes.priority(evaluation.submission.mode))
    Evaluation.objects.filter(pk=evaluation.pk).update(enqueued_at=timezone.now())


def enqueue_on_commit(evaluation: Evaluation) -> None:
    """Send once the current transaction commits. robust: a broker outage must not fail a request
    whose data is already committed; the dispatcher sends what is left with enqueued_at unset."""
    transaction.on_commit(lambda: enqueue(evaluation), robust=True)


def claim(evaluation_id: int, worker: str) -> Evaluation | None:
    """Take a queued evaluation for this worker, or None when someone else has it (or it is done)."""
    now = timezone.now()
    changed = Evaluation.objects.filter(pk=evaluation_id, state=Evaluation.QUEUED).update(
        state=Evaluation.RUNNING,
        attempts=F("attempts") + 1,
        lease_until=now + timedelta(seconds=settings.EVALUATION_LEASE_SECONDS),
        worker=worker,
        started_at=now,
        progress={},
    )
    if changed != 1:
        return None
    evaluation = Evaluation.objects.select_related("hardware", "submission__problem").get(pk=evaluation_id)
    submissions_changed(evaluation.submission_id,
                        agents=evaluation.submission.agent_submission_id is not None)
    return evaluation


def renew_lease(evaluation_id: int, worker: str, progress: Mapping[str, Any] | None = None) -> bool:
    """Extend this worker's lease, storing the run's progress (Evaluation.progress) when given."""
    until = timezone.now() + timedelta(seconds=settings.EVALUATION_LEASE_SECONDS)
    fields: dict[str, Any] = {"lease_until": until}
    if progress is not None:
        fields["progress"] = dict(progress)
    held = Evaluation.objects.filter(pk=evaluation_id, state=Evaluation.RUNNING, worker=worker)
    if held.update(**fields) != 1:
        return False
    if progress is not None:  # the watched page shows it
        _drop_stamp(evaluation_id)
    return True


def ingest(evaluation_id: int, worker: str, report: Mapping[str, Any],
           ncu_reports: Mapping[str, bytes] | None = None) -> bool:
    """Store a scored report, and a profile run's Nsight Compute reports by workload uuid
    (profile_reports.keep); False (and nothing written) unless this worker still holds the claim."""
    with transaction.atomic():
        evaluation = (Evaluation.objects.select_for_update(of=("self",))
                      .select_related("submission__problem", "submission__owner", "hardware")
                      .filter(pk=evaluation_id).first())
        if evaluation is None or evaluation.state != Evaluation.RUNNING or evaluation.worker != worker:
            return False
        workloads = {w.uuid: w for w in evaluation.submission.problem.workloads.all()}
        rows = []
        for row in report["workloads"]:
            workload = workloads.get(row["uuid"])
            if workload is None:
                raise ValueError(f"the report names workload {row['uuid']!r}, which the problem lacks")
            rows.append(_result(evaluation, workload, row))
        WorkloadResult.objects.bulk_create(rows)
        profile_reports.store(evaluation, ncu_reports or {})
        mode = evaluation.submission.mode
        evaluation.state = Evaluation.SCORED
        # A test run times nothing: its verdicts are its result, it has no score.
        evaluation.score = float(report["aggregates"]["score"]) if modes.timed(mode) else None
        aggregates = dict(report["aggregates"])
        evaluation.aggregates = aggregates if modes.timed(mode) else untimed(aggregates)
        evaluation.environment = public_environment(report.get("environment"))
        hacks = [row for row in report["workloads"] if row["status"] == status.REWARD_HACK]
        if hacks:  # a mark made by hand before a retry stays
            evaluation.reward_hack = True
            evaluation.hack_reason = noted(evaluation.hack_reason, "harness",
                                           _hack_evidence(hacks, workloads))
        evaluation.error = ""
        evaluation.harness_version = str(report.get("harness_version") or "")[:40]
        evaluation.finished_at = timezone.now()
        evaluation.lease_until = None
        evaluation.save()
        if evaluation.confirms_id is not None:  # it counts for nothing: it settles the one it ran again
            from . import confirmations  # it imports this module

            confirmations.settle(evaluation)
            return True
        _serialize_owner(evaluation.submission.owner_id)
        if evaluation.rescore_of_id is not None:  # the earlier measurement stops counting
            Evaluation.objects.filter(pk=evaluation.rescore_of_id).update(superseded=True)
            recompute_entry(evaluation.submission.problem_id, evaluation.hardware_id,
                            evaluation.submission.owner_id)
        elif modes.is_ranked(mode):  # the other modes are never on a board
            update_entry(evaluation)
        if modes.is_ranked(mode):
            _confirm_leaders(evaluation.submission.problem_id, evaluation.hardware_id)
    return True


# The aggregates a run that times nothing cannot have: a score of 0 there would read as a failure.
TIMED_AGGREGATES = ("score", "score_ci95", "visible_score", "visible_score_ci95", "hidden_score",
                    "hidden_score_ci95", "generalization_gap", "geomean_speedup")


def untimed(aggregates: dict[str, Any]) -> dict[str, Any]:
    """A test or profile run's aggregates: its pass counts as reported, its scores null."""
    return {**aggregates, **{key: None for key in TIMED_AGGREGATES if key in aggregates}}


def mark_reward_hack(evaluation: Evaluation, by_user: AbstractBaseUser, reason: str) -> Evaluation:
    """After a review: the evaluation is a reward hack, so it stops counting for its owner."""
    return _review_reward_hack(evaluation.pk, by_user, True, f"marked as a reward hack: {reason}")


def clear_reward_hack(evaluation: Evaluation, by_user: AbstractBaseUser, reason: str) -> Evaluation:
    """After a review: a false alarm, so the evaluation counts again. The evidence is kept."""
    return _review_reward_hack(evaluation.pk, by_user, False, f"cleared the reward-hack mark: {reason}")


def _review_reward_hack(evaluation_id: int, by_user: AbstractBaseUser, hack: bool, note: str) -> Evaluation:
    with transaction.atomic():
        evaluation = (Evaluation.objects.select_for_update(of=("self",)).select_related("submission")
                      .get(pk=evaluation_id))
        now = timezone.now()
        evaluation.reward_hack = hack
        evaluation.hack_reason = noted(evaluation.hack_reason, by_user.get_username(), note, now)
        evaluation.hack_marked_by, evaluation.hack_marked_at = by_user, now
        evaluation.save(update_fields=["reward_hack", "hack_reason", "hack_marked_by", "hack_marked_at"])
        submission = evaluation.submission
        _serialize_owner(submission.owner_id)
        recompute_entry(submission.problem_id, evaluation.hardware_id, submission.owner_id)
        _confirm_leaders(submission.problem_id, evaluation.hardware_id)
    return evaluation


def _confirm_leaders(problem_id: int, hardware_id: int) -> None:
    """A board changed: its leaders not confirmed yet are run again (evaluator/confirmations.py)."""
    from . import confirmations  # it imports this module

    confirmations.request(problem_id, hardware_id)


def _serialize_owner(user_id: int) -> None:
    """Entries of one user change one transaction at a time (no lost counts, no duplicate rows).
    Callers lock the evaluation first, as ingest does, so the two can never deadlock."""
    get_user_model().objects.select_for_update().filter(pk=user_id).first()


def _hack_evidence(rows: list[Mapping[str, Any]], workloads: Mapping[str, Workload]) -> str:
    """What the harness said about each REWARD_HACK workload, hidden ones unredacted (admins only)."""
    lines = [f"- {row['uuid']} ({workloads[row['uuid']].visibility}): {row.get('message') or 'no message'}"
             for row in rows]
    return "\n".join([f"REWARD_HACK on {len(rows)} workload(s):", *lines])


def noted(history: str, who: str, note: str, when: datetime | None = None) -> str:
    """The review history with one more dated entry at its end."""
    stamp = (when or timezone.now()).strftime("%Y-%m-%d %H:%M:%S UTC")
    return "\n\n".join(filter(None, [history, f"[{stamp}] {who}: {note}"]))


def hidden_message(verdict: str) -> str:
    """What a submitter reads about a hidden workload: the verdict, never its shapes or values."""
    if verdict == status.PASSED:
        return ""
    return f"hidden workload: {verdict} (details of hidden workloads are not shown)"


def _result(evaluation: Evaluation, workload: Workload, row: Mapping[str, Any]) -> WorkloadResult:
    hidden = workload.visibility == Workload.HIDDEN
    raw = {k: v for k, v in row.items() if k not in ("uuid", "axes", "visibility", "smoke")}
    if hidden:
        # Error messages, correctness details and timing samples can all quote shapes.
        raw = {"status": row["status"], "redacted": True}
    return WorkloadResult(
        evaluation=evaluation,
        workload=workload,
        status=row["status"],
        message=hidden_message(row["status"]) if hidden else str(row.get("message") or ""),
        latency_ms=row.get("latency_ms"),
        reference_latency_ms=row.get("reference_latency_ms"),
        baseline_latency_ms=row.get("baseline_latency_ms"),
        sol_ms=float(row["sol_ms"]),
        score=float(row["score"]),
        below_sol=bool(row.get("below_sol")),
        raw=raw,
        shared_timing_id=_shared_timing(row),
    )


def _shared_timing(row: Mapping[str, Any]) -> int | None:
    """The stored times the row was scored against (evaluator/baselines.py), kept for hidden rows too."""
    shared = row.get("shared_baseline")
    found = shared.get("id") if isinstance(shared, Mapping) else None
    return found if isinstance(found, int) else None


def fail(evaluation_id: int, reason: str, worker: str | None = None) -> bool:
    """Close an unfinished evaluation as failed; with worker, only while that worker holds it."""
    pending = Evaluation.objects.filter(pk=evaluation_id).exclude(state__in=Evaluation.TERMINAL)
    if worker is not None:
        pending = pending.filter(state=Evaluation.RUNNING, worker=worker)
    if pending.update(state=Evaluation.FAILED, error=reason[:4000], finished_at=timezone.now(),
                      lease_until=None) != 1:
        return False
    _drop_stamp(evaluation_id)
    return True


def _drop_stamp(evaluation_id: int) -> None:
    """The evaluation's submission page shows a change (written by an update, which sends no signal)."""
    found = (Evaluation.objects.filter(pk=evaluation_id)
             .values_list("submission_id", "submission__agent_submission_id").first())
    if found is not None:
        submissions_changed(found[0], agents=found[1] is not None)


def reap_expired(now: datetime | None = None) -> tuple[int, int]:
    """Running evaluations whose lease ran out: queue them again, or fail them after the last attempt."""
    now = now or timezone.now()
    requeued = failed = 0
    with transaction.atomic():
        expired = (Evaluation.objects.select_for_update(skip_locked=True, of=("self",))
                   .select_related("hardware")
                   .filter(state=Evaluation.RUNNING, lease_until__lt=now))
        for evaluation in expired:
            if evaluation.attempts < settings.EVALUATION_MAX_ATTEMPTS:
                evaluation.state, evaluation.worker = Evaluation.QUEUED, ""
                evaluation.lease_until = evaluation.enqueued_at = None
                evaluation.save(update_fields=["state", "worker", "lease_until", "enqueued_at"])
                enqueue_on_commit(evaluation)
                requeued += 1
            else:
                times = "once" if evaluation.attempts == 1 else f"{evaluation.attempts} times"
                evaluation.state, evaluation.finished_at, evaluation.lease_until = (
                    Evaluation.FAILED, now, None)
                evaluation.error = (f"the evaluator stopped answering {times}; "
                                    "the evaluation was given up")
                evaluation.save(update_fields=["state", "finished_at", "lease_until", "error"])
                failed += 1
    if requeued or failed:
        log.info("reaper: %d evaluation(s) queued again, %d failed", requeued, failed)
    return requeued, failed


def dispatch_stale(now: datetime | None = None) -> int:
    """Send again every queued evaluation whose message was never sent or has gone unanswered."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.DISPATCH_RESEND_SECONDS)
    stale = Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=cutoff)
    sent = 0
    for evaluation in (Evaluation.objects.filter(stale, state=Evaluation.QUEUED)
                       .select_related("hardware", "submission")):
        # Conditional, so two sweepers running at once send each evaluation once.
        if Evaluation.objects.filter(stale, pk=evaluation.pk, state=Evaluation.QUEUED).update(
                enqueued_at=now) != 1:
            continue
        try:
            send(evaluation.pk, evaluation.hardware.queue, modes.priority(evaluation.submission.mode))
        except Exception:
            log.exception("could not send evaluation #%d; it stays queued", evaluation.pk)
            Evaluation.objects.filter(pk=evaluation.pk).update(enqueued_at=None)
            continue
        sent += 1
    if sent:
        log.info("dispatcher: %d queued evaluation(s) sent again", sent)
    return sent
