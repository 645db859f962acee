"""The home page: every category x hardware board's leader, the latest scored submissions, and how
many problems, participants and agents there are. The boards themselves: board_views.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse

from evaluator.counting import counted
from evaluator.models import Evaluation
from evaluator.rankings import on_boards
from leaderboard import boards
from leaderboard.models import Category

from . import page_queries
from .board_views import BadRequest, bad_request, page_url, task_type_of
from .page_cache import public_page

RECENT = 10


@dataclass(frozen=True)
class OverviewCell:
    url: str
    leader: boards.Leader | None


@public_page(params=("task_type",))
def home(request: HttpRequest) -> HttpResponse:
    try:
        task_type = task_type_of(request)
    except BadRequest as exc:
        return bad_request(request, str(exc))
    content = render_to_string("pages/_home.html", _content(task_type))
    return render(request, "pages/home.html", {"content": content})


def _content(task_type: str | None) -> dict[str, Any]:
    overview = boards.overview(task_type)
    suffix = f"?task_type={task_type}" if task_type else ""
    grid: list[tuple[Category, list[OverviewCell]]] = [
        (category, [OverviewCell(reverse("category-board", args=[category.slug, hw.slug]) + suffix,
                                 overview.leader(category, hw)) for hw in overview.hardware])
        for category in overview.categories]
    led = [hw.slug for hw in overview.hardware if any(overview.leader(c, hw) for c in overview.categories)]
    # newest first along the evaluations_by_finish index (every scored evaluation has finished_at)
    recent = list(counted().filter(on_boards("submission__"), state=Evaluation.SCORED, reward_hack=False,
                                   finished_at__isnull=False)
                  .select_related("submission__problem", "submission__owner", "hardware")
                  .only("score", "finished_at", "hardware__slug", "submission__problem__name",
                        "submission__problem__slug", "submission__problem__version",
                        "submission__problem__is_current",
                        "submission__owner__username")  # not the sources, definitions, reports
                  .order_by("-finished_at", "-pk")[:RECENT])
    return {
        "overview": overview, "grid": grid, "task_type": task_type, "task_types": boards.TASK_TYPES,
        "recent": [(e, page_url("participant", e.submission.owner.username)) for e in recent],
        "agent_boards": [(hw, reverse("agent-board", args=[hw.slug]))
                                           for hw in overview.hardware],
        "anything": bool(recent) or Evaluation.objects.exists(),
        "timing_notes": page_queries.timing_notes([e.hardware.slug for e in recent] + led),
    }


def favicon(request: HttpRequest) -> HttpResponse:
    """/favicon.ico, which browsers and feed readers ask for whatever the page links: the icon."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))
