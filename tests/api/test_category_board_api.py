"""GET /api/v1/leaderboards/categories/{category}/{hardware}/: public; each participant's mean over
the category's current problems of their best score (a missing problem counts 0), best first, ties
to the earlier result; participants without a valid score apart."""

from __future__ import annotations

import pytest

from leaderboard.models import Hardware
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
URL = "/api/v1/leaderboards/categories/{}/{}/"


@pytest.fixture
def h200(db: object) -> Hardware:
    return factories.make_hardware("h200")


def test_mean_over_current_problems_with_missing_ones_counting_zero(cpu: Hardware, h200: Hardware) -> None:
    gemm, norm = factories.make_named_problem("gemm"), factories.make_named_problem("norm")
    quant = factories.make_named_problem("quant", category="quant")  # another category
    ada, grace, linus, cheat = (factories.make_participant(n) for n in ("ada", "grace", "linus", "cheat"))
    factories.make_scored(ada, gemm, cpu, 0.8, visible_score=0.9, hidden_score=0.7, geomean_speedup=4.0)
    factories.make_scored(ada, norm, cpu, 0.4, visible_score=0.5, hidden_score=0.3, geomean_speedup=1.0)
    factories.make_scored(grace, gemm, cpu, 1.0)  # norm missing: counts 0
    factories.make_scored(grace, quant, cpu, 1.0)
    factories.make_scored(linus, norm, h200, 0.9)  # another board
    factories.make_scored(cheat, gemm, cpu, 0.0, verdict="INCORRECT_NUMERICAL")

    response = client_for(None).get(URL.format("l1", "cpu"))
    assert response.status_code == 200
    body = response.json()
    assert (body["category"], body["hardware"], body["task_type"]) == ("l1", "cpu", None)
    assert body["problems"] == ["gemm", "norm"]
    rows = [(e["rank"], e["user"], round(e["score"], 6), e["solved"], e["submissions"])
            for e in body["entries"]]
    assert rows == [(1, "ada", 0.6, 2, 2), (2, "grace", 0.5, 1, 1)]
    first = body["entries"][0]
    assert (round(first["visible_score"], 6), round(first["hidden_score"], 6)) == (0.7, 0.5)
    assert round(first["generalization_gap"], 6) == 0.2 and round(first["geomean_speedup"], 6) == 2.0
    assert [(u["user"], u["submissions"]) for u in body["unranked"]] == [("cheat", 1)]


def test_equal_scores_go_to_the_participant_whose_result_came_in_earlier(cpu: Hardware) -> None:
    gemm, norm = factories.make_named_problem("gemm"), factories.make_named_problem("norm")
    late, early = factories.make_participant("late"), factories.make_participant("early")
    factories.make_scored(early, gemm, cpu, 0.5)
    factories.make_scored(late, norm, cpu, 0.5)
    factories.make_scored(early, norm, cpu, 0.25)  # improves early's mean after late's result came in
    factories.make_scored(late, gemm, cpu, 0.25)
    entries = client_for(None).get(URL.format("l1", "cpu")).json()["entries"]
    assert [(e["user"], e["score"]) for e in entries] == [("early", 0.375), ("late", 0.375)]


def test_task_type_limits_the_problems(cpu: Hardware) -> None:
    plain = factories.make_named_problem("plain")
    tuned = factories.make_named_problem("tuned", task_type="optimize_triton")
    ada = factories.make_participant("ada")
    factories.make_scored(ada, plain, cpu, 0.2)
    factories.make_scored(ada, tuned, cpu, 0.6)
    body = client_for(None).get(URL.format("l1", "cpu"), {"task_type": "optimize_triton"}).json()
    assert body["problems"] == ["tuned"] and body["task_type"] == "optimize_triton"
    assert [(e["user"], e["score"]) for e in body["entries"]] == [("ada", 0.6)]
    refused = client_for(None).get(URL.format("l1", "cpu"), {"task_type": "golf"})
    assert refused.status_code == 400 and "golf" in refused.json()["task_type"][0]


def test_only_current_versions_count(cpu: Hardware) -> None:
    old = factories.make_named_problem("gemm")
    factories.make_scored(factories.make_participant("ada"), old, cpu, 0.9)
    old.is_current = False
    old.save(update_fields=["is_current"])
    new = factories.make_problem()  # in category l1 too
    new.name, new.version = "gemm", 2
    new.save(update_fields=["name", "version"])
    body = client_for(None).get(URL.format("l1", "cpu")).json()
    assert body["problems"] == ["gemm"] and body["entries"] == [] and body["unranked"] == []


def test_unknown_category_or_hardware_is_404_and_an_empty_board_is_empty(cpu: Hardware) -> None:
    factories.make_named_problem("gemm")
    api = client_for(None)
    assert api.get(URL.format("nope", "cpu")).status_code == 404
    assert api.get(URL.format("l1", "tpu9")).status_code == 404
    assert api.get(URL.format("l1", "cpu")).json()["entries"] == []
