"""The review queue (docs/security.md, "Review queue"): the evaluations a reviewer should look at, why
each is there, and the reviewer's three decisions, each logged (models.ReviewDecision) and shown on
the submission's page and in the API with its public reason.

An evaluation is in the queue when it counts (evaluator.counting), is scored, is a ranked run's, is
not disqualified already, has no re-run queued or running, and one of these holds:

- REWARD_HACK: the harness flagged it and no reviewer has marked or cleared it;
- DISPUTED: a confirmation run disagreed with it (evaluator.confirmations);
- BELOW_SOL: a workload ran faster than its SOL bound allows (scored 0 there);
- HIDDEN_GAP: the share of visible workloads passed minus the share of hidden ones passed is over
  HIDDEN_GAP_OVER: correctness only, never speed (a hidden shape that passes slower is no gap);
- PROBING: one of a group evaluator.probing suspects of reading the hidden workloads back;

and, for the last three (which no state of the evaluation clears), no reviewer has confirmed or
disqualified it yet. The first two leave the queue by the decision's own effect.

- confirm(): the result stands as measured: a harness flag is cleared (it counts again), a dispute is
  confirmed after review.
- disqualify(): a reward hack by review, with a public reason the boards show.
- rerun(): the same submission on the same hardware again, with a fresh input seed, through the
  rescore machinery (Evaluation.rescore_of): once scored, the new evaluation replaces this one on the
  boards whatever it scores (services.ingest); until then, or should it fail, this one counts."""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import BooleanField, Case, Exists, FloatField, OuterRef, Q, QuerySet, Value, When
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, NullIf

from . import confirmations, modes, services
from .counting import COUNTING
from .models import Evaluation, ReviewDecision, WorkloadResult
from .page_changes import submissions_changed
from .probing import MIN_PROBES, suspected_probes

REWARD_HACK, DISPUTED, BELOW_SOL, HIDDEN_GAP, PROBING = (
    "reward_hack", "disputed", "below_sol", "hidden_gap", "probing")
SOURCES = {
    REWARD_HACK: "REWARD_HACK flagged by the harness",
    DISPUTED: "disputed by a confirmation run",
    BELOW_SOL: "faster than the SOL bound on some workload",
    HIDDEN_GAP: "passes far more visible workloads than hidden ones",
    PROBING: "the hidden-probing pattern",
}
HIDDEN_GAP_OVER = 0.5  # visible share passed - hidden share passed: queued over it (docs/security.md)
PENDING = (Evaluation.QUEUED, Evaluation.RUNNING)


class ReviewError(Exception):
    """A decision that cannot be made, with the reason for the reviewer."""


def _share(passed: str, total: str) -> Cast:
    return (Cast(KT(f"aggregates__{passed}"), FloatField())
            / NullIf(Cast(KT(f"aggregates__{total}"), FloatField()), 0.0))


def annotated(evaluations: QuerySet[Evaluation], probes: Iterable[int] | None = None) -> QuerySet[Evaluation]:
    """The evaluations with what the queue reads of each: below_sol_any, correctness_gap (null
    without both kinds of workload), probing (among `probes`, the ids suspected_probes() gives; read
    here when not given), decided (confirmed or disqualified by a reviewer), rerun_pending."""
    probes = set(suspected_probes() if probes is None else probes)
    return evaluations.annotate(
        probing=Case(When(pk__in=probes, then=Value(True)), default=Value(False),
                     output_field=BooleanField()),
        below_sol_any=Exists(WorkloadResult.objects.filter(evaluation=OuterRef("pk"), below_sol=True)),
        correctness_gap=(_share("visible_passed", "visible_total")
                         - _share("hidden_passed", "hidden_total")),
        decided=Exists(ReviewDecision.objects.filter(
            evaluation=OuterRef("pk"), action__in=(ReviewDecision.CONFIRM, ReviewDecision.DISQUALIFY))),
        rerun_pending=Exists(Evaluation.objects.filter(rescore_of=OuterRef("pk"), state__in=PENDING)))


def _conditions() -> dict[str, Q]:
    undecided = Q(decided=False)
    return {
        REWARD_HACK: Q(reward_hack=True, hack_marked_by__isnull=True),
        DISPUTED: Q(confirmation=Evaluation.DISPUTED),
        BELOW_SOL: undecided & Q(below_sol_any=True),
        HIDDEN_GAP: undecided & Q(correctness_gap__gt=HIDDEN_GAP_OVER),
        PROBING: undecided & Q(probing=True),
    }


def queue(evaluations: QuerySet[Evaluation] | None = None, source: str | None = None,
          probes: Iterable[int] | None = None) -> QuerySet[Evaluation]:
    """The evaluations (of those given) in the queue, for one source or any; `probes`: the ids
    suspected_probes() gives, when the caller has them already."""
    conditions = _conditions()
    if source is not None:
        flagged = conditions[source]
    else:
        flagged = Q()
        for condition in conditions.values():
            flagged |= condition
    base = evaluations if evaluations is not None else Evaluation.objects.all()
    return (annotated(base.filter(COUNTING, state=Evaluation.SCORED, submission__mode=modes.RANKED), probes)
            .exclude(reward_hack=True, hack_marked_by__isnull=False)
            .filter(flagged, rerun_pending=False))


def reasons(evaluation: Evaluation) -> list[str]:
    """The codes of what puts it in the queue, of an evaluation from queue() (or from annotated()
    that queue() would keep)."""
    decided = evaluation.decided
    found = []
    if evaluation.reward_hack and evaluation.hack_marked_by_id is None:
        found.append(REWARD_HACK)
    if evaluation.confirmation == Evaluation.DISPUTED:
        found.append(DISPUTED)
    if not decided and evaluation.below_sol_any:
        found.append(BELOW_SOL)
    gap = evaluation.correctness_gap
    if not decided and gap is not None and gap > HIDDEN_GAP_OVER:
        found.append(HIDDEN_GAP)
    if not decided and evaluation.probing:
        found.append(PROBING)
    return found


def describe(evaluation: Evaluation, codes: Iterable[str]) -> str:
    """The reasons in words, for reviewers (the admin): may count hidden workloads, never show them."""
    aggregates = evaluation.aggregates or {}
    words = []
    for code in codes:
        if code == BELOW_SOL:
            count = aggregates.get("below_sol_count")
            words.append(f"below the SOL bound on {count} workload(s)" if count else SOURCES[code])
        elif code == HIDDEN_GAP:
            words.append(f"visible {aggregates.get('visible_passed')}/{aggregates.get('visible_total')} "
                         f"passed, hidden {aggregates.get('hidden_passed')}/{aggregates.get('hidden_total')}")
        elif code == PROBING:
            words.append(f"probing: {MIN_PROBES}+ alike visible results, hidden counts differ")
        else:
            words.append(SOURCES[code])
    return "; ".join(words)


def _reasons_now(evaluation_id: int) -> list[str]:
    """What puts it in the queue now, kept with the decision."""
    return reasons(annotated(Evaluation.objects.filter(pk=evaluation_id)).get())


def _locked(evaluation: Evaluation) -> Evaluation:
    return (Evaluation.objects.select_for_update(of=("self",)).select_related("submission", "hardware")
            .get(pk=evaluation.pk))


def _log(evaluation: Evaluation, by_user: AbstractBaseUser, action: str, public_reason: str,
         codes: list[str], rerun: Evaluation | None = None) -> ReviewDecision:
    decision = ReviewDecision.objects.create(evaluation=evaluation, action=action, by=by_user,
                                             public_reason=public_reason, reasons=codes, rerun=rerun)
    submissions_changed(evaluation.submission_id)
    return decision


def confirm(evaluation: Evaluation, by_user: AbstractBaseUser, public_reason: str = "") -> ReviewDecision:
    """The evaluation stands as measured: a REWARD_HACK flag or a disqualification is cleared (it
    counts again), a dispute is confirmed after review, and it leaves the queue."""
    public_reason = public_reason.strip()
    note = f"in the review queue: {public_reason}" if public_reason else "in the review queue"
    with transaction.atomic():
        evaluation = _locked(evaluation)
        codes = _reasons_now(evaluation.pk)
        if evaluation.reward_hack:
            services.clear_reward_hack(evaluation, by_user, note)
        if evaluation.confirmation == Evaluation.DISPUTED:
            confirmations.confirm_after_review(evaluation, by_user, note)
        return _log(evaluation, by_user, ReviewDecision.CONFIRM, public_reason, codes)


def disqualify(evaluation: Evaluation, by_user: AbstractBaseUser, public_reason: str) -> ReviewDecision:
    """A reward hack by review: it leaves the boards (the owner's entry is rebuilt) and the board
    shows `public_reason` as why (evaluator.entry_status). Write nothing there of a hidden workload."""
    public_reason = public_reason.strip()
    if not public_reason:
        raise ReviewError("a disqualification needs a public reason")
    with transaction.atomic():
        evaluation = _locked(evaluation)
        codes = _reasons_now(evaluation.pk)
        services.mark_reward_hack(evaluation, by_user, f"disqualified: {public_reason}")
        return _log(evaluation, by_user, ReviewDecision.DISQUALIFY, public_reason, codes)


def rerun(evaluation: Evaluation, by_user: AbstractBaseUser, public_reason: str = "") -> ReviewDecision:
    """Queue the same submission on the same hardware again with a fresh input seed, as a rescore
    (which replaces this evaluation on the boards once scored; see the module's docstring)."""
    public_reason = public_reason.strip()
    with transaction.atomic():
        evaluation = _locked(evaluation)
        if evaluation.state != Evaluation.SCORED or evaluation.confirms_id is not None \
                or evaluation.superseded:
            raise ReviewError(f"evaluation #{evaluation.pk} is not a scored evaluation that counts")
        if evaluation.rescores.filter(state__in=PENDING).exists():
            raise ReviewError(f"evaluation #{evaluation.pk} has a re-run queued or running already")
        codes = _reasons_now(evaluation.pk)
        new = Evaluation.objects.create(submission=evaluation.submission, hardware=evaluation.hardware,
                                        seed=secrets.randbits(48), rescore_of=evaluation)
        services.enqueue_on_commit(new)
        return _log(evaluation, by_user, ReviewDecision.RERUN, public_reason, codes, rerun=new)


def public_log(evaluation: Evaluation) -> list[dict[str, object]]:
    """What the submission's page and the API show of its review, oldest first, never the reviewer:
    the decisions on it and on each evaluation it replaced (a re-run or a rescore takes the place of
    the one before, whose decisions the API would otherwise no longer show). Reads `reviews` and
    `rescore_of`, prefetched by the callers that list many."""
    decisions, seen, replaced = [], {evaluation.pk}, evaluation
    while replaced is not None:
        decisions.extend(replaced.reviews.all())
        replaced = replaced.rescore_of if replaced.rescore_of_id not in seen else None
        if replaced is not None:
            seen.add(replaced.pk)
    return [{"evaluation": d.evaluation_id, "action": d.action, "decision": d.get_action_display(),
             "public_reason": d.public_reason, "decided_at": d.created,
             "rerun": d.rerun_id} for d in sorted(decisions, key=lambda d: (d.created, d.pk))]
