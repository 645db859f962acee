"""A submission's page shows its evaluations, and agent pages show agent uploads with their
solutions' evaluations: any save or delete of one of these tells the pages
(evaluator.page_changes), whichever code made it (services, the admin, a management command)."""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from evaluator.models import Evaluation
from evaluator.page_changes import agents_changed, submissions_changed

from .models import AgentSubmission, Submission


@receiver((post_save, post_delete), sender=Evaluation, dispatch_uid="stamp-evaluation")
def _evaluation_changed(sender: type, instance: Evaluation, **kwargs: Any) -> None:
    known = Evaluation.submission.is_cached(instance)  # ingestion's and the claim's are
    submissions_changed(instance.submission_id,
                        agents=instance.submission.agent_submission_id is not None if known else None)


@receiver((post_save, post_delete), sender=Submission, dispatch_uid="stamp-submission")
def _submission_changed(sender: type, instance: Submission, **kwargs: Any) -> None:
    submissions_changed(instance.pk, agents=instance.agent_submission_id is not None)


@receiver((post_save, post_delete), sender=AgentSubmission, dispatch_uid="agents-upload")
def _upload_changed(sender: type, instance: AgentSubmission, **kwargs: Any) -> None:
    agents_changed()
