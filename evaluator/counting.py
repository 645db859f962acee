"""The evaluation that counts for a submission on a hardware.

A submission is evaluated once on each hardware it is sent to, and the platform may run it again
there: a rescore under a newer harness (evaluator/rescore.py), which replaces the old evaluation once
it is scored, and a confirmation run of a top-3 entry (evaluator/confirmations.py), which replaces
nothing. Of these rows exactly one counts: the one the boards, the submission counts, compare, the
API, the pages and the probing flag all read as the submission's evaluation on that hardware.

`counting()` selects it in the database; `counts()` says the same of one row in Python."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from .models import Evaluation


def counting(prefix: str = "") -> Q:
    """The evaluations that count: not a confirmation run, not replaced by a scored rescore, and not
    a rescore that is not scored (pending or failed: the evaluation it would replace still counts).
    `prefix` is the path to the evaluations from the model queried (`"submissions__evaluations__"`)."""
    return (Q(**{f"{prefix}confirms__isnull": True, f"{prefix}superseded": False})
            & (Q(**{f"{prefix}rescore_of__isnull": True}) | Q(**{f"{prefix}state": Evaluation.SCORED})))


COUNTING = counting()


def counted() -> QuerySet[Evaluation]:
    """The evaluations that count, one per submission and hardware."""
    return Evaluation.objects.filter(COUNTING)


def counts(evaluation: Evaluation) -> bool:
    """Whether this evaluation is the one that counts for its submission on its hardware (COUNTING)."""
    return (evaluation.confirms_id is None and not evaluation.superseded
            and (evaluation.rescore_of_id is None or evaluation.state == Evaluation.SCORED))
