"""Participants' profiles and the API tokens their scripts and the CLI sign in with."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Profile(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    team = models.CharField(max_length=100, blank=True, help_text="shown next to the name on boards")

    def __str__(self) -> str:
        return f"profile of {self.user}"


class ApiToken(models.Model):
    """A bearer token. Only the SHA-256 of the secret is stored: a leaked table signs nobody in."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="what the owner uses it for")
    prefix = models.CharField(max_length=16, help_text="the secret's first characters, to recognise it")
    key_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None
