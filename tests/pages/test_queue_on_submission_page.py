"""A queued evaluation's page says where it stands: its place in line on its hardware, and that no
worker serves that hardware when none is online; both follow the queue and the workers within
page_stamps.LIFETIME, for signed-in owners and anonymous visitors (whose page is kept under its
version) alike."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from evaluator import workers
from evaluator.models import Evaluation
from solarena import page_stamps
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = pytest.mark.django_db


def status_of(client: Client, evaluation: Evaluation) -> str:
    page = client.get(f"/submissions/{evaluation.submission_id}/").content.decode()
    start = page.index('<section id="status">')
    return " ".join(page[start:page.index("</section>", start)].split())


def test_the_place_in_line_and_a_missing_worker_show_and_follow(client: Client,
                                                                page_clock: PageClock) -> None:
    problem, h200 = factories.make_problem(), factories.make_hardware("h200")
    owner = factories.make_participant("ada")
    first = factories.make_evaluation(owner=owner, problem=problem, hardware=h200)
    second = factories.make_evaluation(owner=owner, problem=problem, hardware=h200)
    shown = status_of(client, second)
    assert "number 2 in line" in shown and "No h200 worker is online" in shown

    workers.beat("worker-1", ["h200"])
    Evaluation.objects.filter(pk=first.pk).update(state=Evaluation.RUNNING)  # no writer tells `second`
    page_clock.advance(page_stamps.LIFETIME)
    shown = status_of(client, second)
    assert "number 1 in line" in shown and "No h200 worker is online" not in shown

    client.force_login(owner)  # the owner's page, made for the request
    assert "number 1 in line" in status_of(client, second)


def test_an_estimated_start_shows_once_finished_runs_give_one(client: Client) -> None:
    """One run of two minutes finished, one worker busy with nothing, one evaluation ahead: the next
    starts in about two minutes (evaluator.workers.queue_place)."""
    problem, h200 = factories.make_problem(), factories.make_hardware("h200")
    owner = factories.make_participant("ada")
    done = factories.make_evaluation(owner=owner, problem=problem, hardware=h200)
    finished = timezone.now()
    Evaluation.objects.filter(pk=done.pk).update(state=Evaluation.SCORED, finished_at=finished,
                                                 started_at=finished - timedelta(seconds=120))
    factories.make_evaluation(owner=owner, problem=problem, hardware=h200)
    second = factories.make_evaluation(owner=owner, problem=problem, hardware=h200)
    assert "starting in about" not in status_of(client, second)  # no worker: no estimate

    workers.beat("worker-1", ["h200"])
    client.force_login(owner)  # the owner's page, made for the request
    shown = status_of(client, second)
    assert "number 2 in line, starting in about 2 min." in shown
