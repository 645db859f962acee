"""The browser side of submitting: the form, the participant's submissions, one submission's page.

Writes go through submissions.services and hidden workloads are redacted by the rows the API
shows too (evaluator.hidden_results.visible_rows), so the pages and the API cannot disagree on
what a submitter sees."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.db.models import Prefetch, QuerySet, prefetch_related_objects
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from evaluator import hidden_results, workers
from evaluator.models import Evaluation, ReviewDecision, WorkerHeartbeat, WorkloadResult
from leaderboard.models import Problem
from pages import page_cache, page_queries
from pages.page_cache import public_page
from solarena import page_stamps

from . import detail_page, services
from .forms import SubmissionForm
from .models import Submission
from .visibility import can_view, can_view_source

# What the page shows of each evaluation, so what its rendering is cached under (the results come
# once, when it is scored; progress moves while it runs).
SHOWN = ("pk", "state", "attempts", "score", "reward_hack", "hack_marked_at", "error", "progress")


@login_required
def submit(request: HttpRequest) -> HttpResponse:
    # ?problem=<slug> (the problem page's link) chooses the problem; the form still lists them all.
    form = SubmissionForm(request.POST or None, request.FILES or None,
                          initial={"problem": request.GET.get("problem", "")})
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            hardware = list(data["hardware"])
            try:
                if data["agent"] is None:
                    submission = services.create_submission(request.user, data["problem"], data["files"],
                                                            data["language"], hardware, mode=data["mode"],
                                                            workload=data["workload"])
                else:
                    submission = services.create_agent_solution(request.user, data["agent"], data["problem"],
                                                                data["files"], data["language"], hardware,
                                                                private=data["agent_private"])
            except (services.QuotaExceeded, services.UnsupportedLanguage, services.NoWorkerOnline,
                    services.VersionTaken, services.WorkloadRefused, services.SolutionRefused) as exc:
                form.add_error(None, str(exc))
            else:
                return redirect("submission", submission_id=submission.pk)
        return render(request, "submissions/submit.html", {"form": form}, status=400)
    return render(request, "submissions/submit.html", {"form": form})


@login_required
def submission_list(request: HttpRequest) -> HttpResponse:
    evaluations = (Evaluation.objects.select_related("hardware").order_by("hardware__slug")
                   .prefetch_related(hidden_results.verdicts()))
    submissions = list(Submission.objects.filter(owner=request.user).select_related("problem")
                       .prefetch_related(Prefetch("evaluations", queryset=evaluations))
                       .order_by("-created", "-pk"))
    shown = [e.hardware.slug for submission in submissions for e in submission.evaluations.all()]
    return render(request, "submissions/list.html", {"submissions": submissions,
                                                     "timing_notes": page_queries.timing_notes(shown)})


def _shown(submission_id: int) -> tuple[str | None, bool]:
    """The version of a submission's page: what it shows of each evaluation (SHOWN; a queued one's
    place in line and whether a worker serves its hardware), whether the source is public and
    whether the problem's solutions are revealed; None for a missing submission. Plain SQL: this
    runs on every view and every poll of the page. Settled unless one waits in a queue: what moves
    its place and its worker's liveness is written by no writer of this submission. The ids of the
    hardware with a worker online, for the line every page ends with: a settled page follows it
    within page_stamps.SETTLED."""
    columns = ", ".join(f"e.{'id' if name == 'pk' else name}" for name in SHOWN)
    evaluations, heartbeats = Evaluation._meta.db_table, WorkerHeartbeat._meta.db_table
    reviews = ReviewDecision._meta.db_table  # its review log shows too
    live = workers.live_since()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {columns}, (SELECT count(*) FROM {reviews} r WHERE r.evaluation_id = e.id), "
            "s.published, p.solutions_revealed, CASE WHEN e.state = %s THEN "
            f"(SELECT count(*) FROM {evaluations} q WHERE q.hardware_id = e.hardware_id AND q.state = %s "
            f"AND q.id < e.id) END, CASE WHEN e.state = %s THEN (SELECT count(*) FROM {heartbeats} h "
            "WHERE h.hardware_id = e.hardware_id AND h.last_seen >= %s) > 0 END, "
            f"(SELECT {_joined('o.hid')} FROM (SELECT DISTINCT hardware_id AS hid FROM {heartbeats} "
            "WHERE last_seen >= %s ORDER BY hid) o) "
            f"FROM {evaluations} e JOIN {Submission._meta.db_table} s ON s.id = e.submission_id "
            f"JOIN {Problem._meta.db_table} p ON p.id = s.problem_id "
            "WHERE e.submission_id = %s ORDER BY e.id",
            [Evaluation.QUEUED, Evaluation.QUEUED, Evaluation.QUEUED, live, live, submission_id])
        rows = cursor.fetchall()
    return (repr(rows) if rows else None), not any(row[-3] is not None for row in rows)


def _joined(column: str) -> str:
    """SQL for the column's values joined by commas, in order where the backend keeps one (SQLite
    may not: another order of the same ids only makes the page again)."""
    if connection.vendor == "postgresql":
        return f"string_agg(CAST({column} AS TEXT), ',' ORDER BY {column})"
    return f"group_concat({column}, ',')"


def _version(submission_id: int) -> str | None:
    """_shown, measured at most once a second between the writes that drop it (solarena.page_stamps)."""
    return page_stamps.read(page_stamps.submission(submission_id), lambda: _shown(submission_id))


@public_page(version=lambda request, submission_id: _version(submission_id))
def submission_detail(request: HttpRequest, submission_id: int) -> HttpResponse:
    """Anyone may read a submission's page; the source and the messages that may quote it only
    where can_view_source allows, hidden workloads by verdict and score only."""
    return _detail(request, submission_id, "submissions/detail.html")


@public_page(version=lambda request, submission_id: _version(submission_id))
def submission_live(request: HttpRequest, submission_id: int) -> HttpResponse:
    """The evaluations part of the page, which the page polls (htmx) while one is queued or running."""
    return _detail(request, submission_id, "submissions/_evaluations.html")


def _detail(request: HttpRequest, submission_id: int, template: str) -> HttpResponse:
    # The version before the rows: a part made from rows older than its key (a result committed
    # between the two reads) would be served under the newer version until the next change.
    version = _version(submission_id)
    submission = _page_rows().filter(pk=submission_id).first()
    if submission is None or not can_view(request.user, submission):  # a private run reads as missing
        missing = {"title": "Not found", "message": f"No submission #{submission_id}."}
        return render(request, "pages/error.html", missing, status=404)
    details_visible = can_view_source(request.user, submission)
    evaluations = list(submission.evaluations.all())
    context: dict[str, Any] = {
        "submission": submission, "details_visible": details_visible,
        "live": detail_page.any_live(evaluations),
        "cancellable": submission.owner_id == request.user.pk
        and any(e.state == Evaluation.QUEUED for e in evaluations),
    }

    def prepared() -> list[Evaluation]:
        prefetch_related_objects(evaluations, Prefetch("results", queryset=_results()))
        return [detail_page.prepare(e, details_visible) for e in evaluations]

    if context["cancellable"]:  # the owner's cancel button holds this request's CSRF token
        context["evaluations"] = prepared()
    else:
        # Rendered once per change of what it shows of each evaluation (its results come once, when
        # it is scored): not at every view and every poll of a watched submission.
        key = f"submission-part:{submission.pk}:{details_visible}:{version}"
        part = page_cache.cached(key,
                                 lambda: render_to_string("submissions/_evaluations.html",
                                                          {**context, "evaluations": prepared()}))
        if template == "submissions/_evaluations.html":
            return HttpResponse(part)
        context["evaluations_part"] = part
    if template == "submissions/detail.html":
        context["description"] = page_cache.markdown(submission.problem.description)
    return render(request, template, context)


@login_required
@require_POST
def cancel(request: HttpRequest, submission_id: int) -> HttpResponse:
    submission = get_object_or_404(Submission, pk=submission_id, owner=request.user)
    try:
        cancelled = services.cancel_submission(submission)
    except services.NotCancellable as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Cancelled {cancelled} queued evaluation{'s' if cancelled != 1 else ''}.")
    return redirect("submission", submission_id=submission.pk)


@login_required
@require_POST
def publish(request: HttpRequest, submission_id: int) -> HttpResponse:
    return _set_published(request, submission_id, True)


@login_required
@require_POST
def unpublish(request: HttpRequest, submission_id: int) -> HttpResponse:
    return _set_published(request, submission_id, False)


def _set_published(request: HttpRequest, submission_id: int, published: bool) -> HttpResponse:
    """The owner's publish and unpublish buttons (anyone else: 404)."""
    submission = get_object_or_404(Submission, pk=submission_id, owner=request.user)
    services.set_published(submission, published)
    messages.success(request, "The source is public now: anyone may read it." if published
                     else "The source is private again: only you and the admins may read it.")
    return redirect("submission", submission_id=submission.pk)


def _page_rows() -> QuerySet[Submission]:
    """Submissions with what their page shows of them and their evaluations (not the problem's
    definition or the agent's logs); results come with prepared()."""
    evaluations = (Evaluation.objects.select_related("hardware")
                   .prefetch_related("reviews", "rescore_of__reviews").order_by("hardware__slug"))
    return (Submission.objects.select_related("problem", "owner", "agent_submission")
            .defer("problem__definition", "agent_submission__logs")
            .prefetch_related(Prefetch("evaluations", queryset=evaluations)))


def _results() -> QuerySet[WorkloadResult]:
    return WorkloadResult.objects.select_related("workload").order_by("workload__position")
