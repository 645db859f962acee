"""Admin for hardware, categories, problems (kept by sync_problems, so read-only here) and
leaderboard entries."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from . import services
from .models import Category, Hardware, LeaderboardEntry, Problem, Workload


class ReadOnlyMixin:
    """For rows a service or a command owns: shown in the admin, never edited there."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Hardware)
class HardwareAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "vendor", "memory_gb", "active"]
    list_filter = ["vendor", "active"]
    search_fields = ["slug", "name"]
    # The datasheet columns come from evaluator/scoring/hardware.py through sync_problems.
    readonly_fields = ["slug", "name", "vendor", "memory_gb", "memory_bandwidth", "l2_bytes",
                       "peak_flops"]


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    list_display = ["slug", "name"]
    search_fields = ["slug", "name"]


class WorkloadInline(ReadOnlyMixin, admin.TabularInline):
    model = Workload
    fields = ["position", "uuid", "visibility", "smoke", "axes", "tolerance"]
    ordering = ["position"]


@admin.register(Problem)
class ProblemAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["name", "slug", "version", "is_current", "category", "task_type", "op_type",
                    "solutions_revealed", "created"]
    list_filter = ["is_current", "solutions_revealed", "category", "task_type"]
    search_fields = ["name", "slug", "op_type", "description"]
    list_select_related = ["category"]
    inlines = [WorkloadInline]
    actions = ["reveal_solutions", "hide_solutions"]

    def has_reveal_permission(self, request: HttpRequest) -> bool:
        """The rows stay read-only; revealing needs the change permission all the same."""
        return request.user.has_perm("leaderboard.change_problem")

    @admin.action(description="Reveal the solutions (every submission's source becomes public)",
                  permissions=["reveal"])
    def reveal_solutions(self, request: HttpRequest, queryset: QuerySet[Problem]) -> None:
        self._reveal(request, queryset, True)

    @admin.action(description="Hide the solutions (only published sources stay public)",
                  permissions=["reveal"])
    def hide_solutions(self, request: HttpRequest, queryset: QuerySet[Problem]) -> None:
        self._reveal(request, queryset, False)

    def _reveal(self, request: HttpRequest, queryset: QuerySet[Problem], revealed: bool) -> None:
        changed = services.set_solutions_revealed(queryset, revealed)
        what = "revealed" if revealed else "hidden"
        self.message_user(request, f"Solutions of {changed} problem version(s) {what}.", messages.SUCCESS)


@admin.register(LeaderboardEntry)
class LeaderboardEntryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["problem", "hardware", "user", "score", "submitted_at", "submissions", "updated"]
    list_filter = ["hardware", "problem__category"]
    search_fields = ["problem__name", "user__username"]
    list_select_related = ["problem", "hardware", "user"]
    ordering = ["problem__name", "hardware__slug", "-score"]
