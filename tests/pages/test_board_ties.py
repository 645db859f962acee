"""A problem board shows each score with its 95% half-width, and entries whose intervals overlap,
going down the board, share a band of ranks ("2–3": tied), on the page and in the API; correct and
incorrect entries never share one, and the stable order is unchanged."""

from __future__ import annotations

import pytest
from django.test import Client

from leaderboard.models import Hardware, Problem
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
BOARD = "/boards/problems/scale_shift/cpu/"


def test_overlapping_intervals_share_a_band(problem: Problem, cpu: Hardware) -> None:
    total = len(factories.workloads_for(problem, smoke=True))
    entries = [("lead", 0.9, 0.01, 0), ("near", 0.5, 0.05, 0), ("close", 0.46, 0.02, 0),
               ("apart", 0.2, 0.01, 0), ("wrong", 0.19, 0.05, 1)]
    for name, score, ci95, failed in entries:
        factories.make_scored(factories.make_participant(name), problem, cpu, score, score_ci95=ci95,
                              passed=total - failed)

    body = client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/").json()
    assert [(e["user"], e["rank"], e["band"], e["score_ci95"]) for e in body["entries"]] == [
        ("lead", 1, None, 0.01), ("near", 2, "2–3", 0.05), ("close", 3, "2–3", 0.02),
        ("apart", 4, None, 0.01), ("wrong", 5, None, 0.05)]  # 0.2 and 0.19 overlap, but one is incorrect
    assert "GPU" in body["timing_note"]  # the cpu's: its times are no GPU timing

    page = Client().get(BOARD).content.decode()
    assert page.count('<td class="num tied">2–3</td>') == 2
    assert "0.900 ± 0.01" in page and "0.500 ± 0.05" in page
    assert '<td class="num">1</td>' in page and '<td class="num">4</td>' in page


def test_no_interval_means_only_equal_scores_tie(problem: Problem, cpu: Hardware) -> None:
    for name, score in [("a", 0.5), ("b", 0.5), ("c", 0.4)]:
        factories.make_scored(factories.make_participant(name), problem, cpu, score)
    body = client_for(None).get("/api/v1/leaderboards/scale_shift/cpu/").json()
    assert [(e["user"], e["band"], e["score_ci95"]) for e in body["entries"]] == [
        ("a", "1–2", None), ("b", "1–2", None), ("c", None, None)]


def test_scores_closer_than_the_hardwares_noise_tie(problem: Problem) -> None:
    h200 = factories.make_hardware("h200")  # score_noise: ±3.0% (docs/benchmarks)
    for name, score in [("a", 0.800), ("b", 0.781), ("c", 0.755)]:
        factories.make_scored(factories.make_participant(name), problem, h200, score)
    body = client_for(None).get("/api/v1/leaderboards/scale_shift/h200/").json()
    assert [(e["user"], e["band"]) for e in body["entries"]] == [("a", "1–2"), ("b", "1–2"), ("c", None)]
    assert body["timing_note"] == ""  # a GPU's times are GPU timings
