"""Admin for evaluations and their per-workload results: read-only, since their states change
only through the evaluator's services. Reviewers work the review queue (evaluator/review.py:
the filter "needs review", with why each one is there) with three actions: confirm, disqualify and
re-run, each on an intermediate page that takes a public reason (disqualify needs one); each is logged
(ReviewDecision)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from leaderboard.admin import ReadOnlyMixin

from . import modes, review
from .counting import counts
from .models import BaselineCalibration, Evaluation, ReviewDecision, SharedTiming, WorkloadResult
from .probing import MIN_PROBES, WINDOW, suspected_probes


def _probes(request: HttpRequest) -> set[int]:
    """suspected_probes(), once per request (the filter and the column both read it)."""
    if not hasattr(request, "_suspected_probes"):
        request._suspected_probes = suspected_probes()  # type: ignore[attr-defined]
    return request._suspected_probes  # type: ignore[attr-defined]


class WorkloadResultInline(ReadOnlyMixin, admin.TabularInline):
    model = WorkloadResult
    fields = ["workload", "status", "latency_ms", "baseline_latency_ms", "sol_ms", "score",
              "below_sol", "message"]
    ordering = ["workload__position"]


class HiddenProbingFilter(admin.SimpleListFilter):
    """evaluator.probing: visible results the same, hidden passed counts not."""

    title = "probing hidden workloads"
    parameter_name = "probing"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("suspected", f"suspected ({MIN_PROBES}+ alike, last {WINDOW.days} days)")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> QuerySet[Evaluation]:
        if self.value() == "suspected":
            return queryset.filter(pk__in=_probes(request))
        return queryset


class NeedsReviewFilter(admin.SimpleListFilter):
    """evaluator.review: the review queue, whatever put each one there or by one reason."""

    title = "needs review"
    parameter_name = "review"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("queue", "needs review (any reason)"), *review.SOURCES.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> QuerySet[Evaluation]:
        value = self.value()
        if value == "queue":
            return review.queue(queryset, probes=_probes(request))
        if value in review.SOURCES:
            return review.queue(queryset, value, probes=_probes(request))
        return queryset


class ReviewForm(forms.Form):
    public_reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 80}), max_length=2000,
                                    help_text="shown to everyone on the submission's page and the boards: "
                                    "nothing of a hidden workload")

    def __init__(self, *args: Any, reason_required: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["public_reason"].required = reason_required


# What each review action does, as its intermediate page says it; and whether it needs a reason.
REVIEW_ACTIONS: dict[str, tuple[str, str, bool]] = {
    "confirm": ("Confirm after review", "Each evaluation below stands as measured: a reward-hack flag or a "
                "disqualification is cleared and it counts again; a dispute is settled.", False),
    "disqualify": ("Disqualify after review", "Each evaluation below becomes a reward hack by review: it "
                   "leaves the boards and its owner's entry is rebuilt.", True),
    "rerun": ("Re-run after review", "Each evaluation below is run again on the same hardware with a fresh "
              "input seed; the new run replaces it on the boards once scored.", False),
}


class ReviewDecisionInline(ReadOnlyMixin, admin.TabularInline):
    model = ReviewDecision
    fk_name = "evaluation"
    verbose_name, verbose_name_plural = "review decision", "review log"
    fields = ["created", "action", "public_reason", "reasons", "rerun", "by"]
    readonly_fields = fields


class ConfirmationRunFilter(admin.SimpleListFilter):
    """evaluator.confirmations: the platform's second runs of top-3 entries are listed apart (each is
    also inline on the evaluation it confirms)."""

    title = "confirmation runs"
    parameter_name = "runs"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("only", "only confirmation runs")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> QuerySet[Evaluation]:
        return queryset.filter(confirms__isnull=self.value() != "only")


class ConfirmationRunInline(ReadOnlyMixin, admin.TabularInline):
    model = Evaluation
    fk_name = "confirms"
    verbose_name, verbose_name_plural = "confirmation run", "confirmation runs"
    fields = ["id", "state", "score", "reward_hack", "worker", "seed", "finished_at", "error"]
    readonly_fields = fields
    show_change_link = True


@admin.register(Evaluation)
class EvaluationAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "submission", "hardware", "state", "attempts", "score", "reward_hack",
                    "confirmation", "confirms", "harness_version", "worker", "created", "review_reasons"]
    # confirmation "disputed": a top-3 entry whose confirmation run disagreed, for review
    list_filter = [NeedsReviewFilter, "state", "hardware", "reward_hack", "confirmation", HiddenProbingFilter,
                   ConfirmationRunFilter]
    search_fields = ["worker", "submission__owner__username", "submission__problem__name"]
    list_select_related = ["submission__owner", "submission__problem", "hardware"]
    date_hierarchy = "created"
    inlines = [WorkloadResultInline, ConfirmationRunInline, ReviewDecisionInline]
    actions = ["confirm", "disqualify", "rerun"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Evaluation]:
        return review.annotated(super().get_queryset(request), _probes(request))

    @admin.display(description="needs review because")
    def review_reasons(self, evaluation: Evaluation) -> str:
        """The queue's reasons (evaluator.review), for a row the queue would list; else empty."""
        if evaluation.state != Evaluation.SCORED or evaluation.rerun_pending or not counts(evaluation) \
                or evaluation.submission.mode != modes.RANKED \
                or (evaluation.reward_hack and evaluation.hack_marked_by_id):
            return ""
        return review.describe(evaluation, review.reasons(evaluation))

    def has_review_permission(self, request: HttpRequest) -> bool:
        # The model's change permission, which the read-only pages never grant in the admin itself.
        return request.user.has_perm("evaluator.change_evaluation")

    @admin.action(description="Review: confirm (it stands as measured; clears a reward-hack flag)",
                  permissions=["review"])
    def confirm(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> TemplateResponse | None:
        return self._decide(request, queryset, "confirm", review.confirm, "confirmed")

    @admin.action(description="Review: disqualify, with a public reason", permissions=["review"])
    def disqualify(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> TemplateResponse | None:
        return self._decide(request, queryset, "disqualify", review.disqualify, "disqualified")

    @admin.action(description="Review: re-run on the same hardware (replaces it once scored)",
                  permissions=["review"])
    def rerun(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> TemplateResponse | None:
        return self._decide(request, queryset, "rerun", review.rerun, "queued again")

    def _decide(self, request: HttpRequest, queryset: QuerySet[Evaluation], action: str,
                decide: Callable[..., ReviewDecision], done: str) -> TemplateResponse | None:
        """The action's page, which takes the public reason (optional but for disqualify); then the
        decision on each evaluation."""
        title, what, required = REVIEW_ACTIONS[action]
        form = ReviewForm(request.POST if "apply" in request.POST else None, reason_required=required)
        if form.is_valid():
            reason = form.cleaned_data["public_reason"]
            self._review(request, queryset, lambda e, user: decide(e, user, reason), done)
            return None
        context = {**self.admin_site.each_context(request), "title": title, "what": what,
                   "evaluations": queryset, "form": form, "opts": self.model._meta,
                   "action_checkbox_name": ACTION_CHECKBOX_NAME, "action": action}
        return TemplateResponse(request, "admin/evaluator/evaluation/review.html", context)

    def _review(self, request: HttpRequest, queryset: QuerySet[Evaluation],
                decide: Callable[..., ReviewDecision], done: str) -> None:
        count = 0
        for evaluation in queryset:
            try:
                decision = decide(evaluation, request.user)
            except review.ReviewError as exc:
                self.message_user(request, str(exc), messages.WARNING)
                continue
            self.log_change(request, evaluation, f"review: {decision.get_action_display()}"
                            + (f": {decision.public_reason}" if decision.public_reason else ""))
            count += 1
        self.message_user(request, f"{count} evaluation(s) {done}; their owners' entries were recomputed",
                          messages.SUCCESS if count else messages.WARNING)


class SharedTimingInline(ReadOnlyMixin, admin.TabularInline):
    model = SharedTiming
    fields = ["workload", "reference_ms", "reference_rse", "reference_kept", "reference_rejected",
              "baseline_ms", "baseline_rse", "baseline_kept", "baseline_rejected", "baseline_error"]


@admin.register(BaselineCalibration)
class BaselineCalibrationAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Shared baselines (evaluator/baselines.py): `manage.py calibrate_baselines`, or on request."""

    list_display = ["id", "problem", "hardware", "harness_version", "hardware_calibration", "state", "runs",
                    "finished_at"]
    list_filter = ["state", "hardware", "harness_version"]
    list_select_related = ["problem", "hardware"]
    inlines = [SharedTimingInline]
