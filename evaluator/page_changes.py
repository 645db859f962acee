"""Writers' word to the pages about submissions, for writes that Django's signals do not carry
(an update()) as much as for those they do (submissions.signals): a submission's own pages go by
its stamp (solarena.page_stamps), and every agent page (boards, profiles, frontiers, comparisons)
by the agents' generation (solarena.changes.AGENTS), which moves when a changed submission is an
agent's solution."""

from __future__ import annotations

from solarena import changes, page_stamps

from .models import Evaluation


def submissions_changed(*submission_ids: int, agents: bool | None = None) -> None:
    """What these submissions' pages show has changed (or will when the transaction commits).
    `agents`: whether one of them is an agent's solution, where the caller knows (else a query)."""
    page_stamps.drop(*(page_stamps.submission(pk) for pk in submission_ids))
    if agents is None:
        submissions = Evaluation._meta.get_field("submission").related_model._default_manager
        agents = submissions.filter(pk__in=submission_ids, agent_submission__isnull=False).exists()
    if agents:
        changes.changed(changes.AGENTS)


def agents_changed() -> None:
    """An agent upload itself changed (made, listed, published, deleted)."""
    changes.changed(changes.AGENTS)
