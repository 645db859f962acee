"""Admin for hardware, categories, problems (kept by sync_problems, so read-only here) and
leaderboard entries."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

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
    # The datasheet columns come from leaderboard/hardware.py through sync_problems.
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
    list_display = ["name", "version", "is_current", "category", "task_type", "op_type", "created"]
    list_filter = ["is_current", "category", "task_type"]
    search_fields = ["name", "op_type", "description"]
    list_select_related = ["category"]
    inlines = [WorkloadInline]


@admin.register(LeaderboardEntry)
class LeaderboardEntryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["problem", "hardware", "user", "score", "submitted_at", "submissions", "updated"]
    list_filter = ["hardware", "problem__category"]
    search_fields = ["problem__name", "user__username"]
    list_select_related = ["problem", "hardware", "user"]
    ordering = ["problem__name", "hardware__slug", "-score"]
