"""Admin for evaluations and their per-workload results: read-only, since their states change
only through the evaluator's services; reviewers mark or clear reward hacks with actions."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from leaderboard.admin import ReadOnlyMixin

from . import confirmations, services
from .models import BaselineCalibration, Evaluation, SharedTiming, WorkloadResult
from .probing import MIN_PROBES, WINDOW, suspected_probes

REVIEW_REASON = "after review in the admin"


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
            return queryset.filter(pk__in=suspected_probes())
        return queryset


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
                    "confirmation", "confirms", "harness_version", "worker", "created"]
    # confirmation "disputed": a top-3 entry whose confirmation run disagreed, for review
    list_filter = ["state", "hardware", "reward_hack", "confirmation", HiddenProbingFilter,
                   ConfirmationRunFilter]
    search_fields = ["worker", "submission__owner__username", "submission__problem__name"]
    list_select_related = ["submission__owner", "submission__problem", "hardware"]
    date_hierarchy = "created"
    inlines = [WorkloadResultInline, ConfirmationRunInline]
    actions = ["mark_reward_hack", "clear_reward_hack", "confirm_after_review"]

    def has_review_permission(self, request: HttpRequest) -> bool:
        # The model's change permission, which the read-only pages never grant in the admin itself.
        return request.user.has_perm("evaluator.change_evaluation")

    @admin.action(description="Mark as reward hack", permissions=["review"])
    def mark_reward_hack(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> None:
        self._review(request, queryset.filter(reward_hack=False), services.mark_reward_hack,
                     "marked as a reward hack")

    @admin.action(description="Clear reward-hack mark", permissions=["review"])
    def clear_reward_hack(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> None:
        self._review(request, queryset.filter(reward_hack=True), services.clear_reward_hack,
                     "cleared of the reward-hack mark")

    @admin.action(description="Confirm a disputed evaluation after review", permissions=["review"])
    def confirm_after_review(self, request: HttpRequest, queryset: QuerySet[Evaluation]) -> None:
        self._review(request, queryset.filter(confirmation=Evaluation.DISPUTED),
                     confirmations.confirm_after_review, "confirmed after review")

    def _review(self, request: HttpRequest, queryset: QuerySet[Evaluation],
                review: Callable[..., Evaluation], done: str) -> None:
        count = 0
        for evaluation in queryset:
            review(evaluation, request.user, REVIEW_REASON)
            self.log_change(request, evaluation, f"{done} {REVIEW_REASON}")
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
