"""`{% load evaluations %}` then `{% for e in submission.evaluations.all|counting %}`: of a
submission's evaluations, those that count (evaluator.counting, one per hardware), where a view
lists every one (the platform's runs again included); `|any_queued` says whether one is queued."""

from __future__ import annotations

from collections.abc import Iterable

from django import template

from evaluator.counting import counts
from evaluator.models import Evaluation

register = template.Library()


@register.filter
def counting(evaluations: Iterable[Evaluation]) -> list[Evaluation]:
    return [evaluation for evaluation in evaluations if counts(evaluation)]


@register.filter
def any_queued(evaluations: Iterable[Evaluation]) -> bool:
    return any(evaluation.state == Evaluation.QUEUED for evaluation in evaluations)
