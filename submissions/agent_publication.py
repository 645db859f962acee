"""Publishing a private agent upload (docs/agent-bundles.md, "Private uploads"): its owner's choice,
made once. The upload is listed from then on (submissions.agent_visibility), and its ranked results
enter the boards: the owner's entry on each board the upload ran on is computed again from all
their evaluations there, under the owner's lock as ingestion takes it, and the board's leaders are
confirmed as after any change of a board (evaluator/confirmations.py)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from evaluator import confirmations, modes
from evaluator.counting import counted
from evaluator.models import Evaluation
from evaluator.page_changes import submissions_changed
from evaluator.rankings import recompute_entry

from .models import AgentSubmission


class NotPublishable(Exception):
    """The upload is a test, benchmark or profile run: private whatever is asked, never on a board."""


def publish_agent_submission(agent: AgentSubmission) -> bool:
    """Make the owner's private upload public; True when it was private, False when it was public
    already (nothing changes: publishing twice is harmless). Raises NotPublishable for an upload
    that is not ranked. The caller checks that the one asking owns it."""
    if not modes.is_ranked(agent.mode):
        raise NotPublishable(f"agent submission #{agent.pk} is a {agent.mode} run: those are private to "
                             "you and never on a board, so there is nothing to publish (upload it again "
                             "in ranked mode to rank it)")
    with transaction.atomic():
        # The owner's lock, which submissions.services and evaluator.services.ingest take: an ingest
        # of one of the solutions either folds it in after this commits or is recomputed here.
        get_user_model().objects.select_for_update().filter(pk=agent.owner_id).first()
        if AgentSubmission.objects.filter(pk=agent.pk, private=True).update(private=False) != 1:
            agent.private = False
            return False
        boards = (counted().filter(submission__agent_submission=agent, state=Evaluation.SCORED).order_by()
                  .values_list("submission__problem_id", "hardware_id").distinct())
        for problem_id, hardware_id in sorted(boards):
            recompute_entry(problem_id, hardware_id, agent.owner_id)
            confirmations.request(problem_id, hardware_id)
        solutions = agent.submissions.values_list("pk", flat=True)
        submissions_changed(*solutions, agents=True)
    agent.private = False
    return True
