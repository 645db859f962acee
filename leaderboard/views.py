"""Public pages."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evaluator.models import Evaluation


def home(request: HttpRequest) -> HttpResponse:
    evaluations = (
        Evaluation.objects.select_related("submission__problem", "submission__owner", "hardware")
        .order_by("-created")[:50]
    )
    pending = any(e.state not in Evaluation.TERMINAL for e in evaluations)
    return render(request, "leaderboard/home.html", {"evaluations": evaluations, "pending": pending})
