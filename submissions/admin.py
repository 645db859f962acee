"""Admin for submissions: read-only, since they are created through the submission service."""

from __future__ import annotations

from django.contrib import admin

from leaderboard.admin import ReadOnlyMixin

from .models import Submission


@admin.register(Submission)
class SubmissionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ["id", "owner", "problem", "language", "entry", "created"]
    list_filter = ["language", "problem__category"]
    search_fields = ["owner__username", "problem__name"]
    list_select_related = ["owner", "problem"]
    date_hierarchy = "created"
