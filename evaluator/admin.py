"""Admin for evaluations and their per-workload results: read-only, since their states change
only through the evaluator's services."""

from __future__ import annotations

from django.contrib import admin

from leaderboard.admin import ReadOnlyMixin

from .models import Evaluation, WorkloadResult


class WorkloadResultInline(ReadOnlyMixin, admin.TabularInline):
    model = WorkloadResult
    fields = ["workload", "status", "latency_ms", "baseline_latency_ms", "sol_ms", "score",
              "below_sol", "message"]
    ordering = ["workload__position"]


@admin.register(Evaluation)
class EvaluationAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "submission", "hardware", "state", "attempts", "score", "worker", "created"]
    list_filter = ["state", "hardware", "reward_hack"]
    search_fields = ["worker", "submission__owner__username", "submission__problem__name"]
    list_select_related = ["submission__owner", "submission__problem", "hardware"]
    date_hierarchy = "created"
    inlines = [WorkloadResultInline]
