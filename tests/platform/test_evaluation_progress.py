"""A running evaluation's progress: the worker stores each workload's verdict in run order (visible
first) as the harness reports it, renewing its lease; only the claim's holder writes it, and the next
claim starts it afresh."""

from __future__ import annotations

import pytest

from evaluator import services, tasks
from evaluator.models import Evaluation
from leaderboard.models import Workload
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_the_worker_records_each_verdict_in_run_order(settings) -> None:
    settings.SOLARENA_SANDBOX, settings.SOLARENA_TRUSTED_WORKER = "none", True
    evaluation = factories.make_evaluation()
    claimed = services.claim(evaluation.pk, "worker-a")
    assert claimed is not None
    report = tasks.measure(claimed, "worker-a")
    evaluation.refresh_from_db()
    smoke = evaluation.submission.problem.workloads.filter(smoke=True)
    visible = smoke.filter(visibility=Workload.VISIBLE).count()
    assert evaluation.progress["visible"] == visible and 0 < visible < smoke.count()
    assert evaluation.progress["statuses"] == [row["status"] for row in report["workloads"]]
    assert set(evaluation.progress["statuses"]) == {"PASSED"}
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
