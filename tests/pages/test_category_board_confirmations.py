"""A category board says per participant how many of their counted entries (the problems they
solved) a second run confirmed, and how many it disputed: "2 of 3 confirmed, 1 disputed", on the
page, in the CSV and in the API (confirmation, confirmed, disputed)."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from evaluator.harness import status
from evaluator.models import Evaluation
from leaderboard.models import Hardware, LeaderboardEntry
from tests.api.support import client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db


def label(evaluation: Evaluation, confirmation: str) -> None:
    """What a confirmation run would have said of it (evaluator.confirmations.settle)."""
    Evaluation.objects.filter(pk=evaluation.pk).update(confirmation=confirmation)
    LeaderboardEntry.objects.filter(evaluation=evaluation).update(updated=timezone.now())


@pytest.fixture
def board(db: Any, cpu: Hardware) -> None:
    gemm, norm, scan, other = (factories.make_named_problem(name) for name in ("gemm", "norm", "scan", "x"))
    ada, bob, cal = (factories.make_participant(name) for name in ("ada", "bob", "cal"))
    label(factories.make_scored(ada, gemm, cpu, 0.9), Evaluation.CONFIRMED)
    label(factories.make_scored(ada, norm, cpu, 0.8), Evaluation.CONFIRMED)
    label(factories.make_scored(ada, scan, cpu, 0.7), Evaluation.DISPUTED)
    label(factories.make_scored(bob, gemm, cpu, 0.6), Evaluation.CONFIRMED)
    factories.make_scored(bob, norm, cpu, 0.5)  # provisional
    factories.make_scored(bob, scan, cpu, 0.0, verdict=status.RUNTIME_ERROR)  # not counted: no valid score
    factories.make_scored(cal, gemm, cpu, 0.0, verdict=status.RUNTIME_ERROR)
    other.category = factories.make_named_problem("y", category="l2").category
    other.save(update_fields=["category"])
    label(factories.make_scored(bob, other, cpu, 0.9), Evaluation.CONFIRMED)  # another category


def test_the_page_and_csv_count_confirmed_entries(client: Client, board: None) -> None:
    page = client.get("/boards/categories/l1/cpu/").content.decode()
    assert "<td>2 of 3 confirmed, 1 disputed</td>" in page
    assert "<td>1 of 2 confirmed</td>" in page
    assert 'title="of the solved problems' in page  # the column's header explains it
    rows = list(csv.DictReader(io.StringIO(client.get("/boards/categories/l1/cpu/?format=csv")
                                           .content.decode())))
    assert [(row["user"], row["solved"], row["confirmation"]) for row in rows] == [
        ("ada", "3", "2 of 3 confirmed, 1 disputed"), ("bob", "2", "1 of 2 confirmed"), ("cal", "0", "")]


def test_the_api_counts_them_too(board: None) -> None:
    body = client_for(None).get("/api/v1/leaderboards/categories/l1/cpu/").json()
    assert [(e["user"], e["confirmation"], e["confirmed"], e["disputed"]) for e in body["entries"]] == [
        ("ada", "2 of 3 confirmed, 1 disputed", 2, 1), ("bob", "1 of 2 confirmed", 1, 0)]
    assert [row["user"] for row in body["unranked"]] == ["cal"]
