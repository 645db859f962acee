"""Every page ends with the hardware that has a worker online now, linking the hardware list
(templates/base.html, evaluator.workers.online_slugs); a page kept for anonymous visitors follows
the workers within its cache's bound (docs/pages.md)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client

from evaluator import workers
from evaluator.models import WorkerHeartbeat
from leaderboard.models import Hardware, Problem
from pages import page_cache
from solarena import page_stamps
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = pytest.mark.django_db


def online_line(client: Client, url: str) -> str:
    page = client.get(url).content.decode()
    found = re.search(r'<footer id="workers-online">(.*?)</footer>', page, re.S)
    assert found, f"no workers line on {url}"
    return " ".join(found.group(1).split())


def test_the_home_page_and_a_board_name_the_hardware_with_a_worker(client: Client, page_clock: PageClock,
                                                                  problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.5)
    factories.make_hardware("h200")
    pages = ("/", f"/boards/problems/{problem.slug}/cpu/", f"/submissions/{evaluation.submission_id}/",
             "/problems/", "/docs/")
    for url in pages:
        assert online_line(client, url) == '<a href="/hardware/">Workers online now</a>: none', url

    workers.beat("cpu-worker", ["cpu"])
    workers.beat("gpu-worker", ["h200"])
    page_clock.advance(page_cache.MAX_AGE + page_cache.STALE + page_stamps.SETTLED)  # each kept copy's bound
    for url in pages:
        assert online_line(client, url).endswith("Workers online now</a>: cpu, h200"), url

    client.force_login(factories.make_user())  # made for the request, as the form is
    workers.stop("gpu-worker")
    assert online_line(client, "/submit/").endswith(": cpu")
    assert online_line(client, "/").endswith(": cpu")


def test_a_worker_gone_quiet_leaves_the_line(client: Client, cpu: Hardware) -> None:
    workers.beat("cpu-worker", ["cpu"])
    client.force_login(factories.make_user())
    assert online_line(client, "/").endswith(": cpu")
    WorkerHeartbeat.objects.update(last_seen=workers.live_since() - timedelta(seconds=1))
    assert online_line(client, "/").endswith(": none")


def test_a_submissions_page_follows_which_hardware_is_online_not_how_many(
        client: Client, page_clock: PageClock, problem: Problem, cpu: Hardware) -> None:
    """Online sets alike in size and in the sum of their ids ({1st, 4th} and {2nd, 3rd})."""
    evaluation = factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.5)
    first, second, third, fourth = map(factories.make_hardware, ("a100", "b200", "h100", "h200"))
    assert first.pk + fourth.pk == second.pk + third.pk
    url = f"/submissions/{evaluation.submission_id}/"
    workers.beat("outer", ["a100", "h200"])
    page_clock.advance(page_stamps.SETTLED + 1)
    assert online_line(client, url).endswith(": a100, h200")
    workers.stop("outer")
    workers.beat("inner", ["b200", "h100"])
    page_clock.advance(page_stamps.SETTLED + 1)
    assert online_line(client, url).endswith(": b200, h100")
