"""A private agent upload on the pages: its owner sees it on the agent's page, marked private, with
its figures and a Publish button; anyone else meets a 404 there and on its solutions' pages, and it
is on no board, no CSV, no participant page and not among the home page's recent results. The
button (its owner's only: 404 for anyone else) publishes it, and the boards show it within the
pages' few seconds. The submission form keeps an agent's solution private when asked."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.platform import factories
from tests.platform.test_private_agent_boards import scored_solution

pytestmark = pytest.mark.django_db
AGENT_PAGE = "/agents/ada/forge/"
PUBLISH = "/agents/ada/forge/uploads/{}/publish/"


@pytest.fixture
def private(problem: Problem, cpu: Hardware) -> AgentSubmission:
    ada = factories.make_participant("ada")
    agent = AgentSubmission.objects.create(owner=ada, name="forge", version="9.9-secret", model="m",
                                           private=True)
    scored_solution(agent, problem, cpu, 0.9)
    return agent


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def public_pages(problem: Problem) -> dict[str, str]:
    anyone = Client()
    urls = {"agent board": "/boards/agents/cpu/", "agent csv": "/boards/agents/cpu/?format=csv&by=problem",
            "problem board": f"/boards/problems/{problem.slug}/cpu/", "participant": "/u/ada/", "home": "/"}
    return {name: anyone.get(url).content.decode() for name, url in urls.items()}


def test_the_owner_sees_a_private_upload_and_no_one_else(private: AgentSubmission, problem: Problem) -> None:
    owner = signed_in(private.owner).get(AGENT_PAGE)
    assert owner.status_code == 200
    body = owner.content.decode()
    assert "9.9-secret" in body and 'class="private"' in body and 'id="publish-upload"' in body
    assert PUBLISH.format(private.pk) in body
    solution = Submission.objects.get(agent_submission=private)
    assert signed_in(private.owner).get(f"/submissions/{solution.pk}/").status_code == 200

    for client in (Client(), signed_in(factories.make_participant("bob"))):
        assert client.get(AGENT_PAGE).status_code == 404
        assert client.get(f"{AGENT_PAGE}?upload={private.pk}").status_code == 404
        assert client.get(f"/submissions/{solution.pk}/").status_code == 404
        assert client.get(f"/agents/ada/forge/compare/?a={private.pk}&b={private.pk}").status_code == 404
    for name, body in public_pages(problem).items():
        assert "9.9-secret" not in body and "forge" not in body, name
    assert "ada" not in public_pages(problem)["problem board"]


def test_a_public_upload_beside_it_hides_only_the_private_one(private: AgentSubmission, problem: Problem,
                                                              cpu: Hardware) -> None:
    public = AgentSubmission.objects.create(owner=private.owner, name="forge", version="1.0", model="m")
    scored_solution(public, problem, cpu, 0.5)
    body = Client().get(AGENT_PAGE).content.decode()
    assert "1.0" in body and "9.9-secret" not in body and 'id="publish-upload"' not in body
    assert Client().get(f"{AGENT_PAGE}?upload={private.pk}").status_code == 404
    owner = signed_in(private.owner).get(f"{AGENT_PAGE}?upload={public.pk}").content.decode()
    assert 'id="publish-upload"' not in owner, "the button is on the private upload's part only"


def test_the_publish_button(private: AgentSubmission, problem: Problem, page_clock: Any) -> None:
    assert signed_in(factories.make_participant("bob")).post(PUBLISH.format(private.pk)).status_code == 404
    assert Client().post(PUBLISH.format(private.pk)).status_code == 302  # to the sign-in page
    assert signed_in(private.owner).get(PUBLISH.format(private.pk)).status_code == 405
    assert AgentSubmission.objects.get().private

    published = signed_in(private.owner).post(PUBLISH.format(private.pk), follow=True)
    assert published.status_code == 200
    body = published.content.decode()
    assert f"Upload #{private.pk} is public now" in body and 'id="publish-upload"' not in body
    assert not AgentSubmission.objects.get().private
    page_clock.later()
    pages = public_pages(problem)
    for name in ("agent board", "agent csv", "participant"):
        assert "9.9-secret" in pages[name] or "forge" in pages[name], name
    assert "ada" in pages["problem board"]
    assert Client().get(AGENT_PAGE).status_code == 200
    again = signed_in(private.owner).post(PUBLISH.format(private.pk), follow=True)
    assert f"Upload #{private.pk} was public already" in again.content.decode()


def test_the_submission_form_keeps_an_agents_solution_private(problem: Problem, cpu: Hardware,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from evaluator import services

    monkeypatch.setattr(services, "send", lambda *args, **kwargs: None)
    ada = factories.make_participant("ada")
    form = {"problem": problem.slug, "hardware": ["cpu"], "code": factories.CORRECT, "mode": "ranked",
            "agent_name": "forge", "agent_version": "2.0", "agent_model": "m", "agent_private": "on"}
    response = signed_in(ada).post("/submit/", form)
    assert response.status_code == 302, response.content.decode()
    assert AgentSubmission.objects.get().private
    no_agent = {"agent_name": "", "agent_version": "", "agent_model": ""}
    alone = signed_in(ada).post("/submit/", {**form, **no_agent})
    assert alone.status_code == 400
    assert "only a solution sent with an agent" in alone.content.decode()
