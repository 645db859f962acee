"""Writers' word to the pages (solarena.changes): a board's entry saved or deleted moves that board's
generation; a problem, hardware or category saved moves the site's."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from solarena import changes

from .models import Category, Hardware, LeaderboardEntry, Problem


@receiver(post_save, sender=LeaderboardEntry)
@receiver(post_delete, sender=LeaderboardEntry)
def board_changed(sender: type, instance: LeaderboardEntry, **_: Any) -> None:
    changes.changed(changes.board(instance.problem_id, instance.hardware_id))


@receiver(post_save, sender=Problem)
@receiver(post_save, sender=Hardware)
@receiver(post_save, sender=Category)
def site_changed(sender: type, **_: Any) -> None:
    changes.changed(changes.SITE)
