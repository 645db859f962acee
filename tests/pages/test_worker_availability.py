"""Which hardware has a live worker shows where a submitter chooses: on the hardware list and
each hardware's page, and beside each hardware of the submission form, from the workers'
heartbeats (evaluator/workers.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from evaluator import workers
from leaderboard.models import Hardware
from tests.platform import factories

pytestmark = pytest.mark.django_db
REFUSED = "no worker online: submissions are refused"


def test_the_pages_and_the_form_say_whether_a_worker_serves_each_hardware(client: Client,
                                                                         settings: Any) -> None:
    settings.SOLARENA_EXPECTED_HARDWARE = ""  # the operator promises no worker
    factories.make_problem()
    factories.make_hardware("cpu")
    factories.make_hardware("h200")
    Hardware.objects.filter(slug__in=["cpu", "h200"]).update(active=True)
    workers.beat("cpu-worker", ["cpu"])
    page = client.get("/hardware/h200/").content.decode()
    assert REFUSED in page and "accepts evaluations" not in page, "one word on whether it takes them"
    assert "accepts evaluations" in client.get("/hardware/cpu/").content.decode()
    listing = client.get("/hardware/").content.decode()
    assert "accepted; 1 worker online" in listing and f"<td>{REFUSED}</td>" in listing
    assert f"accepted; {REFUSED}" not in listing

    client.force_login(factories.make_user())
    form = client.get("/submit/").content.decode()
    assert "(cpu): 1 worker online" in form and f"(h200): {REFUSED}" in form
    workers.beat("gpu-worker", ["h200"])
    workers.beat("gpu-worker-2", ["h200"])
    assert "(h200): 2 workers online" in client.get("/submit/").content.decode()
    assert "accepted; 2 workers online" in client.get("/hardware/").content.decode()  # signed in: not kept


def test_hardware_the_operator_expects_workers_for_says_so(client: Client, settings: Any) -> None:
    settings.SOLARENA_EXPECTED_HARDWARE = "h200"
    factories.make_hardware("h200")
    Hardware.objects.filter(slug="h200").update(active=True)
    page = client.get("/hardware/h200/").content.decode()
    assert "accepts evaluations" in page and "no worker online yet, workers expected" in page


def test_the_form_disables_hardware_no_worker_serves(client: Client, settings: Any) -> None:
    """Shown so the submitter knows it exists, but not a checkbox to tick and be refused for."""
    settings.SOLARENA_EXPECTED_HARDWARE = "b200"
    factories.make_problem()
    for slug in ("cpu", "h200", "b200"):
        factories.make_hardware(slug)
    Hardware.objects.update(active=True)
    workers.beat("cpu-worker", ["cpu"])
    client.force_login(factories.make_user())
    form = client.get("/submit/").content.decode()
    inputs = [chunk.split(">")[0] for chunk in form.split("<input")[1:]]
    tags = [tag for tag in inputs if 'name="hardware"' in tag]
    boxes = {tag.split('value="')[1].split('"')[0]: "disabled" in tag for tag in tags}
    assert boxes == {"b200": False, "cpu": False, "h200": True}
    assert f"(h200): {REFUSED}" in form
