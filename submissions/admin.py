"""Admin for submissions: read-only, since they are created through the submission service."""

from __future__ import annotations

from django.contrib import admin

from leaderboard.admin import ReadOnlyMixin

from .models import AgentSubmission, Submission


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "owner", "problem", "language", "entry", "agent_submission", "published", "created"]
    list_filter = ["language", "published", "problem__category"]
    search_fields = ["owner__username", "problem__name"]
    list_select_related = ["owner", "problem"]
    date_hierarchy = "created"


@admin.register(AgentSubmission)
class AgentSubmissionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "owner", "name", "version", "model", "mode", "private", "cost_usd", "created"]
    list_filter = ["mode", "private"]
    search_fields = ["owner__username", "name", "model"]
    list_select_related = ["owner"]
    date_hierarchy = "created"
