"""Confirmed leaders: an evaluation that enters the first TOP places of its board (problem x hardware)
is run again before the board shows it as confirmed: the same submission and hardware, a fresh
input seed, the reference and the baseline timed again in that run, on another worker of the
hardware where one is free (pass_on).

- request(): after each change of a board (an ingest, a review), each of its first TOP ranked
  entries whose evaluation has no verdict and no run queued or running gets one (a partial unique
  constraint keeps it to one at a time), MAX_RUNS at most per evaluation.
- settle(): a scored run agrees when neither it nor the evaluation is a reward hack, both passed the
  same number of workloads, and their scores are closer than the measurements can tell apart (the
  rule the boards tie ranks by: evaluator.scoring.uncertainty.indistinguishable). Then the
  evaluation is CONFIRMED; otherwise DISPUTED, with the evidence in its review history, for a
  reviewer (the admin's evaluations filtered by confirmation), who marks it a reward hack or
  confirms it after review.
- A run that fails on the platform settles nothing: the entry stays provisional, the submission page
  shows the failed run, and the board's next change asks again.

A confirmation run counts for nothing itself (evaluator.counting): it is no entry, no submission of
the board, no score record, and never the score of the evaluation it confirms."""

from __future__ import annotations

import secrets
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F, OuterRef, QuerySet, Subquery
from django.utils import timezone

from evaluator.scoring import numbers
from evaluator.scoring.hardware import HARDWARE
from evaluator.scoring.uncertainty import indistinguishable
from leaderboard.models import LeaderboardEntry
from solarena import changes

from . import services, workers
from .models import Evaluation
from .rankings import RANK_ORDER, failed_workloads, is_on_boards, is_valid

TOP = 3  # the places of a board whose evaluations are confirmed
MAX_RUNS = 3  # confirmation runs of one evaluation the platform starts by itself
MAX_DECLINES = 3  # times a run is passed on before the worker that measured the evaluation runs it
PROVISIONAL, UNCONFIRMED = "provisional", "unconfirmed"
STATES = (Evaluation.CONFIRMED, Evaluation.DISPUTED, UNCONFIRMED)  # status()'s, besides None
LABELS = (Evaluation.CONFIRMED, Evaluation.DISPUTED, PROVISIONAL)  # label()'s


def request(problem_id: int, hardware_id: int) -> list[Evaluation]:
    """Start a confirmation run of each of the board's first TOP ranked evaluations that needs one,
    sent once the transaction commits; the runs started. Call inside the transaction that changed the
    board. The problem's older versions are left alone."""
    leaders = (LeaderboardEntry.objects.filter(problem_id=problem_id, hardware_id=hardware_id,
                                               problem__is_current=True, score__isnull=False)
               .select_related("evaluation__submission", "evaluation__hardware")
               .order_by(*RANK_ORDER)[:TOP])
    started = []
    for evaluation in sorted((entry.evaluation for entry in leaders), key=lambda e: e.pk):  # one lock order
        run = _start(evaluation) if _needs_run(evaluation) else None
        if run is not None:
            services.enqueue_on_commit(run)
            started.append(run)
    return started


def _needs_run(evaluation: Evaluation) -> bool:
    """On the boards (ranked, not a private agent upload's: those are never entries, checked here
    too), valid (so no reward hack and no confirmation run), no verdict yet, no run pending, fewer
    than MAX_RUNS runs so far (the others failed on the platform)."""
    if evaluation.confirmation or not is_valid(evaluation) or not is_on_boards(evaluation.submission):
        return False
    states = list(evaluation.confirmation_runs.values_list("state", flat=True))
    return len(states) < MAX_RUNS and not any(state in Evaluation.PENDING for state in states)


def _start(evaluation: Evaluation) -> Evaluation | None:
    try:
        with transaction.atomic():  # a savepoint: a concurrent request may have started one first
            return Evaluation.objects.create(submission=evaluation.submission, hardware=evaluation.hardware,
                                             seed=secrets.randbits(48), confirms=evaluation)
    except IntegrityError:
        return None


def settle(run: Evaluation) -> Evaluation:
    """What a scored confirmation run says of the evaluation it ran again: CONFIRMED or DISPUTED.
    Call in the transaction that ingests the run (which holds the run's lock; this takes the
    evaluation's, as a review does, and no owner's lock: no entry changes but its version)."""
    evaluation = (Evaluation.objects.select_for_update(of=("self",)).select_related("hardware")
                  .get(pk=run.confirms_id))
    why = disagreement(evaluation, run)
    evaluation.confirmation = Evaluation.DISPUTED if why else Evaluation.CONFIRMED
    fields = ["confirmation"]
    if why:
        evaluation.hack_reason = services.noted(evaluation.hack_reason, "confirmation",
                                                f"disputed by confirmation run #{run.pk}: {why}")
        fields.append("hack_reason")
    evaluation.save(update_fields=fields)
    _show(evaluation)
    return evaluation


def disagreement(evaluation: Evaluation, run: Evaluation) -> str | None:
    """Why a scored run does not confirm the evaluation, or None when it does."""
    if run.reward_hack:
        return "the run was flagged as a reward hack"
    if evaluation.reward_hack:
        return "the evaluation is a reward hack"
    failed, total = failed_workloads(evaluation)
    failed_again, total_again = failed_workloads(run)
    if (failed, total) != (failed_again, total_again):
        return (f"the run passed {total_again - failed_again} of {total_again} workloads, the evaluation "
                f"{total - failed} of {total}")
    if evaluation.score is None or run.score is None:
        return "one of the two has no score"
    spec = HARDWARE.get(evaluation.hardware.slug)
    noise = spec.score_noise if spec is not None else 0.0
    ci, ci_again = _ci95(evaluation), _ci95(run)
    if indistinguishable(evaluation.score, ci, run.score, ci_again, noise):
        return None
    return (f"the run scored {numbers.with_interval(run.score, ci_again)}, the evaluation "
            f"{numbers.with_interval(evaluation.score, ci)}: further apart than their 95% intervals "
            f"together and than the hardware's run-to-run noise ({noise:.2%} of the higher score)")


def _ci95(evaluation: Evaluation) -> float | None:
    value = (evaluation.aggregates or {}).get("score_ci95")
    return float(value) if isinstance(value, int | float) else None


def confirm_after_review(evaluation: Evaluation, by_user: AbstractBaseUser, reason: str) -> Evaluation:
    """A reviewer found a disputed evaluation sound (the runs differ for a reason that is not the
    solution's): it is confirmed, and the review kept in its history."""
    with transaction.atomic():
        evaluation = Evaluation.objects.select_for_update(of=("self",)).get(pk=evaluation.pk)
        if evaluation.confirmation != Evaluation.DISPUTED:
            return evaluation
        now = timezone.now()
        evaluation.confirmation = Evaluation.CONFIRMED
        evaluation.hack_reason = services.noted(evaluation.hack_reason, by_user.get_username(),
                                                f"confirmed after review: {reason}", now)
        evaluation.hack_marked_by, evaluation.hack_marked_at = by_user, now
        evaluation.save(update_fields=["confirmation", "hack_reason", "hack_marked_by", "hack_marked_at"])
        _show(evaluation, now)
    return evaluation


def _show(evaluation: Evaluation, now: datetime | None = None) -> None:
    """The entry the evaluation is the best of gets a new version, so its board is read again."""
    entries = LeaderboardEntry.objects.filter(evaluation=evaluation)
    boards = list(entries.values_list("problem_id", "hardware_id"))
    entries.update(updated=now or timezone.now())
    changes.changed(*(changes.board(problem, hardware) for problem, hardware in boards))


def pass_on(evaluation_id: int, worker: str) -> bool:
    """For the task, before it claims: when the evaluation is a queued confirmation run whose
    evaluation this worker's node measured, and a worker of another node serves the hardware and
    runs nothing now, send it again for that one to take (MAX_DECLINES times at most; then whoever
    takes it runs it). With the other workers all busy this one runs it at once: the queue is
    shared, so it would only take it back. True when it was passed on: this worker leaves it."""
    run = (Evaluation.objects.select_related("confirms", "hardware", "submission")
           .filter(pk=evaluation_id, state=Evaluation.QUEUED, confirms__isnull=False).first())
    if run is None or run.declines >= MAX_DECLINES:
        return False
    node = workers.node_of(worker)
    if not node or workers.node_of(run.confirms.worker) != node:
        return False
    if not workers.free_besides(run.hardware_id, node):
        return False
    # unset enqueued_at: should the message not leave, the dispatcher sends it at its next sweep
    if Evaluation.objects.filter(pk=run.pk, state=Evaluation.QUEUED, declines=run.declines).update(
            declines=F("declines") + 1, enqueued_at=None) != 1:
        return False
    services.enqueue(run)
    return True


def with_status(evaluations: QuerySet[Evaluation]) -> QuerySet[Evaluation]:
    """The evaluations with the state of their latest confirmation run (`last_run`), for status()."""
    last = Evaluation.objects.filter(confirms=OuterRef("pk")).order_by("-pk").values("state")[:1]
    return evaluations.annotate(last_run=Subquery(last))


def status(evaluation: Evaluation) -> str | None:
    """What the evaluation's confirmation runs have said: CONFIRMED, DISPUTED, UNCONFIRMED (the last
    one did not finish: the platform failed it), or None (none was asked for, or it has not
    finished). A run queued or running shows nowhere but in the admin: the pages and the API of a
    submission read the same whether or not it is the participant's leading one (issue 17). One query
    unless the evaluation comes from with_status()."""
    if evaluation.confirmation:
        return evaluation.confirmation
    if hasattr(evaluation, "last_run"):
        last = evaluation.last_run
    else:
        last = evaluation.confirmation_runs.order_by("-pk").values_list("state", flat=True).first()
    return UNCONFIRMED if last in (Evaluation.FAILED, Evaluation.CANCELLED) else None


def label(confirmation: str) -> str:
    """A board's word for an entry's evaluation: confirmed, disputed, or provisional (not confirmed)."""
    return confirmation or PROVISIONAL
