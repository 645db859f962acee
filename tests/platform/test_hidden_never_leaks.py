"""A hidden workload's shapes never reach the submitter: a solution that fails only on hidden shapes,
with an error quoting its input shape, is evaluated by the worker task in-process; the stored
results and the worker's log say what failed, never on which sizes."""

from __future__ import annotations

import logging
import re
from typing import Any
from unittest import mock

import pytest

from evaluator import services
from evaluator.models import Evaluation
from evaluator.tasks import evaluate
from leaderboard.models import Workload
from tests.platform import factories

SNOOP = """
import torch

VISIBLE = {(4, 256), (8, 128)}

def run(x, bias):
    if tuple(x.shape) not in VISIBLE:
        raise RuntimeError(f"cannot handle input shape {tuple(x.shape)}")
    return x * 2.0 + bias[None, :]
"""


def leaked(text: str, axes: dict[str, int]) -> list[str]:
    """The forms in which a shape would show up in a message or a log."""
    values = [str(v) for v in axes.values()]
    forms = [", ".join(values), ",".join(values), "x".join(values), str(dict(axes))]
    found = [f for f in forms if f in text]
    # Single small numbers are everywhere (ids, counts); larger ones would be a tell.
    found += [v for v in values if int(v) >= 10 and re.search(rf"\b{v}\b", text)]
    return found


@pytest.mark.django_db
def test_hidden_failures_are_reported_without_their_shapes(caplog: pytest.LogCaptureFixture) -> None:
    evaluation = factories.make_evaluation(source=SNOOP)
    hidden = {w.uuid: w.axes for w in Workload.objects.filter(
        problem=evaluation.submission.problem, visibility=Workload.HIDDEN, smoke=True)}
    assert hidden
    reports: list[dict[str, Any]] = []
    real_ingest = services.ingest

    def spy(evaluation_id: int, worker: str, report: dict[str, Any], *rest: Any) -> bool:
        reports.append(report)
        return real_ingest(evaluation_id, worker, report, *rest)

    caplog.set_level(logging.DEBUG)
    with mock.patch.object(services, "ingest", spy):
        evaluate(evaluation.pk)  # the task body, in this process, no broker

    # The harness did see the shape: without redaction it would have been stored.
    raw_rows = {r["uuid"]: r for r in reports[0]["workloads"]}
    assert any(leaked(raw_rows[uuid]["message"], axes) for uuid, axes in hidden.items())

    evaluation.refresh_from_db()
    assert evaluation.state == Evaluation.SCORED, evaluation.error
    for result in evaluation.results.select_related("workload"):
        if result.workload.visibility == Workload.VISIBLE:
            assert result.status == "PASSED"
            continue
        axes = hidden[result.workload.uuid]
        assert result.status == "RUNTIME_ERROR" and result.score == 0.0
        assert result.message == services.hidden_message("RUNTIME_ERROR")
        assert not leaked(result.message, axes)
        assert not leaked(str(result.raw), axes) and "axes" not in result.raw
    assert evaluation.aggregates["hidden_passed"] == 0
    assert evaluation.aggregates["visible_passed"] == evaluation.aggregates["visible_total"]
    for axes in hidden.values():
        assert not leaked(caplog.text, axes)
        assert not leaked(evaluation.error, axes)
