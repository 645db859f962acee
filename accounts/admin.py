"""Admin for profiles and API tokens (token secrets are never stored, so never shown)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import ApiToken, Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "team"]
    search_fields = ["user__username", "team"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["prefix", "name", "user", "created", "last_used", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["user__username", "name", "prefix"]
    readonly_fields = ["user", "prefix", "key_hash", "created", "last_used"]
    fields = ["user", "name", "prefix", "key_hash", "created", "last_used", "revoked_at"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # tokens are created on the profile page, where the secret is shown once
