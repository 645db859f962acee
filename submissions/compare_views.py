"""/compare/?a=ID&b=ID[&hardware=SLUG]: two submissions of one problem side by side on one hardware,
the page of submissions/compare.py (as GET /api/v1/compare/ and `solarena compare` are). What it
shows is what compare() returns for this viewer: the visible workloads both ran, row by row, and
each side's hidden workloads as one aggregate."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evaluator.harness.names import slug_of
from evaluator.scoring.hardware import timing_note
from leaderboard.models import Hardware

from . import compare, compare_chart
from .models import Submission

ASKED = ("a", "b", "hardware")


class NotAnId(ValueError):
    """A or b missing, or not a submission id; the message names which."""


def compare_page(request: HttpRequest) -> HttpResponse:
    asked = {name: request.GET.get(name, "").strip() for name in ASKED}
    context: dict[str, Any] = {"asked": asked,
                               "hardware_slugs": list(Hardware.objects.values_list("slug", flat=True))}
    if not any(asked.values()):  # the bare page: the form alone
        return render(request, "submissions/compare.html", context)
    try:
        found = compare.compare(_id(asked, "a"), _id(asked, "b"), asked["hardware"] or None, request.user)
    except (NotAnId, compare.CannotCompare) as exc:
        return _refused(request, context, str(exc), 400)
    except Submission.DoesNotExist as exc:  # unknown, or a private run of someone else's
        return _refused(request, context, str(exc), 404)
    context.update(comparison=found, sides=(found.a, found.b), problem_slug=slug_of(found.problem),
                   chart=compare_chart.ratio_chart(found.workloads), timing_note=timing_note(found.hardware),
                   passed_both=sum(1 for pair in found.workloads if pair.latency_ratio is not None))
    return render(request, "submissions/compare.html", context)


def _id(asked: dict[str, str], name: str) -> int:
    value = asked[name]
    if not value:
        raise NotAnId(f"{name} is missing: give the id of a submission")
    if not (value.isascii() and value.isdigit()):  # isdigit alone lets "²" through, which int() refuses
        raise NotAnId(f"{name} must be a submission id (a number), not {value!r}")
    return int(value)


def _refused(request: HttpRequest, context: dict[str, Any], message: str, status: int) -> HttpResponse:
    context.update(error=message[:1].upper() + message[1:], status=status)
    return render(request, "submissions/compare.html", context, status=status)
