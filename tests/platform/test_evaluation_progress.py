"""A running evaluation's progress: the worker stores each visible workload's verdict in run order
as the harness reports it, and of the hidden ones only that they started, renewing its lease; only
the claim's holder writes it, and the next claim starts it afresh."""

from __future__ import annotations

from unittest import mock

import pytest

from evaluator import services, tasks
from evaluator.models import Evaluation
from leaderboard.models import Workload
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_the_worker_records_visible_verdicts_and_of_hidden_ones_only_a_start(settings) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", True
    evaluation = factories.make_evaluation()
    claimed = services.claim(evaluation.pk, "worker-a")
    assert claimed is not None
    stored: list[dict] = []
    renew = services.renew_lease

    def spy(evaluation_id: int, worker: str, progress: dict | None = None) -> bool:
        stored.append(dict(progress or {}))
        return renew(evaluation_id, worker, progress)

    with mock.patch.object(services, "renew_lease", spy):
        report = tasks.measure(claimed, "worker-a")
    evaluation.refresh_from_db()
    smoke = evaluation.submission.problem.workloads.filter(smoke=True)
    visible = smoke.filter(visibility=Workload.VISIBLE).count()
    hidden = smoke.count() - visible
    assert 0 < visible < smoke.count()
    assert evaluation.progress == {"visible": visible, "hidden": hidden, "hidden_started": True,
                                   "statuses": [row["status"] for row in report["workloads"][:visible]]}
    # Once the hidden workloads start, nothing stored changes until the end: no count, no verdict.
    after_start = [snapshot for snapshot in stored if snapshot["hidden_started"]]
    assert len(after_start) == 2 * hidden and all(s == evaluation.progress for s in after_start)
    assert all(len(snapshot["statuses"]) == visible for snapshot in stored)
    assert evaluation.state == Evaluation.RUNNING and evaluation.lease_until is not None


def test_only_the_holder_writes_and_a_new_claim_starts_afresh() -> None:
    evaluation = factories.make_evaluation()
    services.claim(evaluation.pk, "worker-a")
    progress = {"visible": 1, "statuses": ["PASSED", "running"]}
    assert services.renew_lease(evaluation.pk, "worker-b", progress) is False
    evaluation.refresh_from_db()
    assert evaluation.progress == {}
    assert services.renew_lease(evaluation.pk, "worker-a", progress) is True
    evaluation.refresh_from_db()
    assert evaluation.progress == progress
    Evaluation.objects.filter(pk=evaluation.pk).update(state=Evaluation.QUEUED)  # as the reaper does
    assert services.claim(evaluation.pk, "worker-c").progress == {}
