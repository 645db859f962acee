"""The submit form's optional workload to profile: a visible workload's uuid, with mode=profile
only, stored on the submission; a hidden and an unknown uuid are refused beside the field with one
message, another mode is refused, and nothing is stored."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from django.test import Client

from evaluator import services as evaluations
from leaderboard.models import Hardware, Problem, Workload
from submissions.models import Submission
from tests.pages.test_submit_form import field_errors, post
from tests.platform import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(client: Client) -> Client:
    client.force_login(factories.make_user())
    return client


@pytest.fixture(autouse=True)
def no_messages() -> Any:
    with mock.patch.object(evaluations, "send") as send:
        yield send


def test_the_form_offers_and_stores_a_workload(browser: Client, problem: Problem, cpu: Hardware) -> None:
    assert 'name="workload"' in browser.get("/submit/").content.decode()
    response = post(browser, mode="profile", workload=" rows1024_cols4096 ")
    assert response.status_code == 302
    submission = Submission.objects.get()
    assert submission.workload == "rows1024_cols4096"
    page = browser.get(f"/submissions/{submission.pk}/").content.decode()
    assert "a private profile run of workload <code>rows1024_cols4096</code>, never ranked" in page


def test_hidden_unknown_and_other_modes_are_refused(browser: Client, problem: Problem,
                                                    cpu: Hardware) -> None:
    hidden = problem.workloads.filter(visibility=Workload.HIDDEN)[0].uuid
    messages: dict[str, Any] = {}
    for uuid in (hidden, "no-such-workload"):
        response = post(browser, mode="profile", workload=uuid)
        assert response.status_code == 400
        [message] = field_errors(response, "workload")
        messages[uuid] = message.replace(repr(uuid), "UUID")
    assert messages[hidden] == messages["no-such-workload"] and "scale_shift" in messages[hidden]
    response = post(browser, mode="benchmark", workload="rows1024_cols4096")
    assert response.status_code == 400 and "profile mode only" in field_errors(response, "workload")[0]
    assert not Submission.objects.exists()
