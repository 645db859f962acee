"""Each visible workload's roofline reaches the API as the evaluation recorded it; hidden
workloads keep showing as one aggregate only."""

from __future__ import annotations

from evaluator import services as evaluations
from leaderboard.models import Hardware, Problem
from tests.api.support import client_for
from tests.platform import factories

LINE = {"flops": 8.0e6, "bytes": 3.2e7, "peak_flops_per_s": 6.7e13, "peak_bytes_per_s": 4.8e12,
        "intensity": 0.25, "ridge": 13.96, "bound": "memory", "sol_ms": 0.00667,
        "achieved_flops_per_s": 8.0e9, "achieved_bytes_per_s": 3.2e10, "share_of_roof": 0.00667}


def test_visible_rows_carry_their_roofline(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    report = factories.fake_report(evaluation)
    for row in report["workloads"]:
        row["roofline"] = LINE
    assert evaluations.ingest(evaluation.pk, "worker-a", report)
    shown = client_for(evaluation.submission.owner).get(
        f"/api/v1/submissions/{evaluation.submission_id}/").json()["evaluations"][0]
    assert shown["results"] and all(row["roofline"] == LINE for row in shown["results"])
    assert "roofline" not in shown["hidden"]


def test_results_stored_before_it_show_null(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    assert evaluations.ingest(evaluation.pk, "worker-a", factories.fake_report(evaluation))
    shown = client_for(evaluation.submission.owner).get(
        f"/api/v1/submissions/{evaluation.submission_id}/").json()["evaluations"][0]
    assert [row["roofline"] for row in shown["results"]] == [None] * len(shown["results"])
