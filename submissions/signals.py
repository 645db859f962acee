"""A submission's page shows its evaluations: any save or delete of either drops the page's stamp
(solarena.page_stamps), whichever code made it (services, the admin, a management command)."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from evaluator.models import Evaluation
from solarena import page_stamps

from .models import Submission


@receiver((post_save, post_delete), sender=Evaluation, dispatch_uid="stamp-evaluation")
def _evaluation_changed(sender: type, instance: Evaluation, **kwargs: Any) -> None:
    page_stamps.drop(page_stamps.submission(instance.submission_id))


@receiver((post_save, post_delete), sender=Submission, dispatch_uid="stamp-submission")
def _submission_changed(sender: type, instance: Submission, **kwargs: Any) -> None:
    page_stamps.drop(page_stamps.submission(instance.pk))
