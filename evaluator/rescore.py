"""Rescoring under a newer harness: the leading entries of every current board whose best
evaluation another harness version measured are evaluated again (same submission and hardware, a
fresh input seed). Once the new evaluation is scored it replaces the old one on the boards
(services.ingest marks the old one superseded and rebuilds the entry), whatever it scores: a leader
that fails the new harness loses the place that harness would not give it."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.db import transaction
from django.db.models import F, Window
from django.db.models.functions import RowNumber

from evaluator.harness import HARNESS_VERSION
from leaderboard.models import LeaderboardEntry

from . import services
from .models import Evaluation
from .rankings import RANK_ORDER

PENDING = (Evaluation.QUEUED, Evaluation.RUNNING)


@dataclass(frozen=True)
class Rescore:
    entry: LeaderboardEntry
    old: Evaluation
    new: Evaluation | None  # None: a rescore of it is already queued or running, or a dry run


def stale_leaders(top: int) -> list[LeaderboardEntry]:
    """The first `top` ranked entries of each current board, where another harness measured them."""
    place = Window(RowNumber(), partition_by=[F("problem_id"), F("hardware_id")], order_by=list(RANK_ORDER))
    leaders = (LeaderboardEntry.objects.filter(problem__is_current=True, score__isnull=False)
               .annotate(place=place).filter(place__lte=top)
               .select_related("evaluation__submission", "evaluation__hardware", "problem", "hardware",
                               "user")
               .order_by("problem_id", "hardware_id", "place"))
    return [entry for entry in leaders if entry.evaluation.harness_version != HARNESS_VERSION]


def rescore_top(top: int, dry_run: bool = False) -> list[Rescore]:
    """Queue a rescore of every stale leader (stale_leaders) that has none queued or running."""
    if top < 1:
        raise ValueError(f"--top must be at least 1, not {top}")
    done = []
    with transaction.atomic():
        for entry in stale_leaders(top):
            old = entry.evaluation
            if dry_run or old.rescores.filter(state__in=PENDING).exists():
                done.append(Rescore(entry, old, None))
                continue
            new = Evaluation.objects.create(submission=old.submission, hardware=old.hardware,
                                            seed=secrets.randbits(48), rescore_of=old)
            services.enqueue_on_commit(new)
            done.append(Rescore(entry, old, new))
    return done
