"""A participant's name or team, shown on every board they are on, changed: the boards' pages are
behind (solarena.changes). A sign-in, which saves only last_login, changes nothing shown."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from solarena import changes

from .models import Profile


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
@receiver(post_delete, sender=settings.AUTH_USER_MODEL)
@receiver(post_save, sender=Profile)
def names_changed(sender: type, update_fields: frozenset[str] | None = None, **_: Any) -> None:
    if update_fields is not None and set(update_fields) <= {"last_login", "password"}:
        return
    changes.changed(changes.NAMES)
