"""Public pages other than the boards: problems, participants, agents and hardware (no sign-in
needed; nothing private shown: no sources, logs or hidden workloads)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from evaluator.harness.problem import TASK_TYPES
from submissions.visibility import can_view_source

from . import boards, charts, page_queries
from .highlight import css, highlight
from .markdown import render_markdown
from .models import Category, Hardware, Problem

BOARD_ROWS = 25  # the problem page shows the top of each board; the board page has them all
HISTORY_PAGE = 25


def problems(request: HttpRequest) -> HttpResponse:
    category, task_type = request.GET.get("category") or None, request.GET.get("task_type") or None
    categories = list(Category.objects.order_by("slug"))
    if category and category not in {c.slug for c in categories}:
        return _bad_filter(request, f"no category {category!r}; the categories are "
                           + ", ".join(c.slug for c in categories))
    if task_type and task_type not in TASK_TYPES:
        return _bad_filter(request, f"no task type {task_type!r}; the task types are "
                           + ", ".join(TASK_TYPES))
    return render(request, "pages/problems.html", {
        "problems": list(page_queries.current_problems(category, task_type)),
        "categories": categories, "task_types": TASK_TYPES, "category": category, "task_type": task_type,
    })


def problem(request: HttpRequest, name: str) -> HttpResponse:
    found = Problem.objects.filter(name=name, is_current=True).select_related("category").first()
    if found is None:
        return _not_found(request, f"No problem is named {name!r}.")
    tabs = page_queries.board_hardware(found)
    slug = request.GET.get("hardware")
    if slug:
        selected = next((hw for hw in tabs if hw.slug == slug), None)
    else:
        selected = page_queries.default_hardware(tabs)
    if slug and selected is None:
        return _not_found(request, f"Problem {name!r} has no board on hardware {slug!r}; its boards are "
                          + ", ".join(hw.slug for hw in tabs) + ".")
    definition = found.definition
    board = boards.problem_board(found, selected) if selected else None
    history = page_queries.score_history(found, selected) if selected else []
    workloads = page_queries.workload_bounds(found, tabs)
    context: dict[str, Any] = {
        "problem": found, "definition": definition, "tabs": tabs, "selected": selected,
        "rows": board.rows[:BOARD_ROWS] if board else [],
        "ranked": sum(row.score is not None for row in board.rows) if board else 0,
        "participants": len(board.rows) if board else 0,
        "history": charts.history_chart(history, timezone.now()), "records": history[-5:][::-1],
        "workloads": [w for w in workloads if not w.workload.smoke],
        "smoke_workloads": [w for w in workloads if w.workload.smoke],
        "description": render_markdown(found.description),
        "reference": highlight(definition.get("reference") or ""),
        "baseline": highlight(definition["baseline"]) if definition.get("baseline") else None,
        # CUDA starters are Python too: the kernel is a string given to load_inline.
        "starter": highlight(definition["starter"])
        if definition.get("starter") and found.task_type != "from_reference" else None,
        "highlight_css": css(),
    }
    return render(request, "pages/problem.html", context)


def participant(request: HttpRequest, username: str) -> HttpResponse:
    user = get_user_model().objects.filter(username=username).select_related("profile").first()
    if user is None or not user.is_active:
        return _not_found(request, f"No participant is named {username!r}.")
    history = Paginator(page_queries.submissions_of(user), HISTORY_PAGE).get_page(request.GET.get("page"))
    return render(request, "pages/participant.html", {
        "participant": user, "team": getattr(getattr(user, "profile", None), "team", ""),
        "entries": page_queries.entries_of(user), "agents": page_queries.agents_of(user),
        "history": history,
    })


def agent(request: HttpRequest, owner: str, name: str) -> HttpResponse:
    user = get_user_model().objects.filter(username=owner, is_active=True).first()
    uploads = page_queries.agent_uploads(user, name) if user else []
    if not uploads:
        return _not_found(request, f"No agent named {name!r} was uploaded by {owner!r}.")
    for upload in uploads:
        # Logs can quote the solutions: shown only to whoever may read every source of the upload.
        upload.logs_visible = all(can_view_source(request.user, s) for s in upload.agent.submissions.all())
    return render(request, "pages/agent.html", {
        "owner": user, "name": name, "latest": uploads[0].agent, "uploads": uploads,
        "best": page_queries.best_suites(uploads),
    })


def hardware_list(request: HttpRequest) -> HttpResponse:
    shown = ("memory_bandwidth", "bfloat16", "float32", "float8")
    rows = []
    for hw in Hardware.objects.order_by("-active", "slug"):
        peaks = {peak.name: peak for peak in page_queries.peaks(hw)}
        rows.append((hw, [peaks[name] for name in shown if name in peaks]))
    return render(request, "pages/hardware_list.html", {"rows": rows})


def hardware_detail(request: HttpRequest, slug: str) -> HttpResponse:
    hardware = Hardware.objects.filter(slug=slug).first()
    if hardware is None:
        return _not_found(request, f"No hardware {slug!r}; see the hardware list.")
    return render(request, "pages/hardware.html", {
        "hardware": hardware, "spec": page_queries.spec_of(hardware), "peaks": page_queries.peaks(hardware),
        "counts": page_queries.evaluation_counts(hardware),
        "problems": list(page_queries.problems_on(hardware)),
    })


def _not_found(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "pages/error.html", {"title": "Not found", "message": message}, status=404)


def _bad_filter(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "pages/error.html", {"title": "Bad filter", "message": message}, status=400)
