"""Public pages other than the boards and the agents' (agent_views.py): problems, participants and
hardware (no sign-in needed; nothing private shown: no sources, logs or hidden workloads)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString

from evaluator import workers
from evaluator.harness.problem import TASK_TYPES, Tolerance
from leaderboard.lookup import current_problem
from leaderboard.models import Category, Hardware, Problem
from solarena import changes
from submissions.models import LANGUAGES

from . import charts, page_cache, page_queries
from .highlight import css, highlight
from .page_cache import public_page

BOARD_ROWS = 25  # the problem page shows the top of each board; the board page has them all
HISTORY_PAGE = 25


@public_page(params=("category", "task_type"))
def problems(request: HttpRequest) -> HttpResponse:
    category, task_type = request.GET.get("category") or None, request.GET.get("task_type") or None
    categories = list(Category.objects.order_by("slug"))
    if category and category not in {c.slug for c in categories}:
        return _bad_filter(request, f"no category {category!r}; the categories are "
                           + ", ".join(c.slug for c in categories))
    if task_type and task_type not in TASK_TYPES:
        return _bad_filter(request, f"no task type {task_type!r}; the task types are "
                           + ", ".join(TASK_TYPES))
    table = render_to_string("pages/_problems_table.html",
                             {"problems": list(page_queries.current_problems(category, task_type))})
    return render(request, "pages/problems.html", {
        "table": table, "categories": categories, "task_types": TASK_TYPES, "category": category,
        "task_type": task_type,
    })


@public_page(params=("hardware",))
def problem(request: HttpRequest, problem: str) -> HttpResponse:
    """The problem named by its slug (or its name as written)."""
    found = current_problem(problem, Problem.objects.select_related("category"))
    if found is None:
        return _not_found(request, f"No problem is named {problem!r}.")
    tabs = page_queries.board_hardware(found)
    slug = request.GET.get("hardware")
    if slug:
        selected = next((hw for hw in tabs if hw.slug == slug), None)
    else:
        selected = page_queries.default_hardware(tabs)
    if slug and selected is None:
        return _not_found(request, f"Problem {found.name!r} has no board on hardware {slug!r}; its boards "
                          "are " + ", ".join(hw.slug for hw in tabs) + ".")
    page_cache.shows(request, changes.SITE, changes.NAMES,
                     *([changes.board(found.pk, selected.pk)] if selected else []))
    board_html = ""
    if selected:
        # the chart holds the best score level until the current hour
        board_html = render_to_string("pages/_problem_board.html", _board(found, selected, _hour()))
    # The details follow from the definition (a version's never changes) and the calibrated peaks.
    peaks = [(hw.slug, sorted((hw.calibrated or {}).items())) for hw in tabs]
    return render(request, "pages/problem.html", {
        "problem": found, "definition": found.definition, "tabs": tabs, "selected": selected,
        "board_html": board_html,
        "description": page_cache.markdown(found.description),
        "details_html": page_cache.cached(
            f"problem-details:{found.pk}:{json.dumps(found.definition, sort_keys=True)}:{peaks}",
            lambda: _details(found, tabs)),
    })


def highlight_css(request: HttpRequest) -> HttpResponse:
    """The source highlighting's colours as a stylesheet (no inline styles under the CSP)."""
    response = HttpResponse(css(), content_type="text/css; charset=utf-8")
    response["Cache-Control"] = "public, max-age=3600"
    return response


def _hour() -> datetime:
    return timezone.now().replace(minute=0, second=0, microsecond=0)


def _board(problem: Problem, hardware: Hardware, now: datetime) -> dict[str, Any]:
    """The top of the board, its counts, and the best score over time until `now`."""
    board = page_queries.board_top(problem, hardware, BOARD_ROWS)
    return {"problem": problem, "selected": hardware, "rows": board.rows, "ranked": board.ranked,
            "participants": board.participants, "history": charts.history_chart(board.history, now),
            "records": board.history[-5:][::-1], "timing_notes": page_queries.timing_notes([hardware.slug])}


def _details(problem: Problem, tabs: list[Hardware]) -> SafeString:
    """Interface, axes, workloads with their SOL bounds, and the sources, highlighted."""
    definition = problem.definition
    workloads = page_queries.workload_bounds(problem, tabs)
    return render_to_string("pages/_problem_details.html", {
        "problem": problem, "definition": definition, "tabs": tabs,
        "workloads": [w for w in workloads if not w.workload.smoke],
        "smoke_workloads": [w for w in workloads if w.workload.smoke],
        "bound_source": page_queries.bound_source(workloads),
        "tolerance": Tolerance().merged(definition.get("tolerance"), "definition"),
        "forbidden": definition.get("forbidden") or [],
        "languages": [label for _, label in LANGUAGES],
        "reference": highlight(definition.get("reference") or ""),
        "baseline": highlight(definition["baseline"]) if definition.get("baseline") else None,
        # CUDA starters are Python too: the kernel is a string given to load_inline.
        "starter": highlight(definition["starter"])
        if definition.get("starter") and problem.task_type != "from_reference" else None,
    })


@public_page(params=("page",))
def participant(request: HttpRequest, username: str) -> HttpResponse:
    user = get_user_model().objects.filter(username=username).select_related("profile").first()
    if user is None or not user.is_active:
        return _not_found(request, f"No participant is named {username!r}.")
    number = request.GET.get("page")
    content = render_to_string("pages/_participant.html", _participant(user, number))
    return render(request, "pages/participant.html", {
        "participant": user, "team": getattr(getattr(user, "profile", None), "team", ""), "content": content,
    })


def _participant(user: AbstractBaseUser, number: str | None) -> dict[str, Any]:
    history = Paginator(page_queries.submissions_of(user), HISTORY_PAGE).get_page(number)
    entries = page_queries.entries_of(user)
    shown = [e.hardware.slug for e in entries]
    shown += [e.hardware.slug for submission in history for e in submission.evaluations.all()]
    return {"participant": user, "entries": entries, "agents": page_queries.agents_of(user),
            "history": history, "timing_notes": page_queries.timing_notes(shown)}


@public_page()
def hardware_list(request: HttpRequest) -> HttpResponse:
    shown = ("memory_bandwidth", "bfloat16", "float32", "float8")
    rows = []
    hardware = list(Hardware.objects.order_by("-active", "slug"))
    states = workers.availability(hardware)
    for hw in hardware:
        peaks = {peak.name: peak for peak in page_queries.peaks(hw)}
        rows.append((hw, [peaks[name] for name in shown if name in peaks], states[hw.slug]))
    return render(request, "pages/hardware_list.html", {"rows": rows})


@public_page()
def hardware_detail(request: HttpRequest, slug: str) -> HttpResponse:
    hardware = Hardware.objects.filter(slug=slug).first()
    if hardware is None:
        return _not_found(request, f"No hardware {slug!r}; see the hardware list.")
    content = render_to_string("pages/_hardware.html", {
        "hardware": hardware, "spec": page_queries.spec_of(hardware), "peaks": page_queries.peaks(hardware),
        "counts": page_queries.evaluation_counts(hardware),
        "problems": list(page_queries.problems_on(hardware)),
        "workers": workers.availability([hardware])[hardware.slug],
    })
    return render(request, "pages/hardware.html", {"hardware": hardware, "content": content})


def _not_found(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "pages/error.html", {"title": "Not found", "message": message}, status=404)


def _bad_filter(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "pages/error.html", {"title": "Bad filter", "message": message}, status=400)
