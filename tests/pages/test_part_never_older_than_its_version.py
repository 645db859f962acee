"""A submission's evaluations part is kept under the version read before its rows, so a result
committed while a poll is being answered can never be kept under the newer version with the older
rows (which would show "running" and keep polling until the next change, up to 5 minutes)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.test import Client

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions import views
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("signed_in", [True, False])
def test_a_result_committed_during_a_poll_shows_at_the_next(client: Client, problem: Problem, cpu: Hardware,
                                                            signed_in: bool) -> None:
    owner = factories.make_participant("ada")
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    assert evaluations.claim(evaluation.pk, "worker-1") is not None
    if signed_in:
        client.force_login(owner)
    live = f"/submissions/{evaluation.submission_id}/live/"
    real_can_view = views.can_view

    def scored_meanwhile(*args: Any) -> bool:  # runs once the rows are read
        evaluation.state, evaluation.score = Evaluation.SCORED, 0.5
        evaluation.save(update_fields=["state", "score"])
        return real_can_view(*args)

    with mock.patch.object(views, "can_view", scored_meanwhile):
        assert "hx-get" in client.get(live).content.decode(), "this poll answered from the rows it read"
    part = client.get(live).content.decode()
    assert "hx-get" not in part and "scored" in part, "the next poll shows the result and stops polling"
