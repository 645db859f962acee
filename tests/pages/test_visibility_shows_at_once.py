"""Publishing, unpublishing, and an admin's reveal or hide of a problem's solutions show on the
pages that show sources or logs, though anonymous visitors get whole pages from the cache
(pages.page_cache.public_page): at once on a submission's page (its version holds them),
within page_cache.STALE seconds on an agent's page (its logs)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from submissions.services import set_published
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = pytest.mark.django_db
AGENT_PAGE = "/agents/ada/bot/"
LOG_LINE = "the agent thought hard about scale_shift"


@pytest.fixture
def agent(problem: Problem, cpu: Hardware) -> AgentSubmission:
    agent = factories.make_agent_run(factories.make_participant("ada"), "bot", {problem: 0.25}, cpu)
    AgentSubmission.objects.filter(pk=agent.pk).update(logs={"run.log": LOG_LINE})
    return agent


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_unpublishing_hides_an_agents_logs(client: Client, page_clock: PageClock,
                                           agent: AgentSubmission) -> None:
    solution = agent.submissions.get()
    assert LOG_LINE not in page(client, AGENT_PAGE)
    set_published(solution, True)
    page_clock.later()
    assert LOG_LINE in page(client, AGENT_PAGE)
    assert LOG_LINE in page(client, AGENT_PAGE)  # served from the cache
    set_published(solution, False)
    page_clock.later()
    assert LOG_LINE not in page(client, AGENT_PAGE)


def test_an_admins_reveal_and_hide_show(client: Client, admin_client: Client, page_clock: PageClock,
                                         problem: Problem, agent: AgentSubmission) -> None:
    solution: Submission = agent.submissions.get()
    source_page = f"/submissions/{solution.pk}/"
    marker = "def run("  # in the solution's source
    assert LOG_LINE not in page(client, AGENT_PAGE) and marker not in page(client, source_page)
    changelist = reverse("admin:leaderboard_problem_changelist")
    for action, shown in (("reveal_solutions", True), ("hide_solutions", False)):
        admin_client.post(changelist, {"action": action, "_selected_action": [problem.pk]})
        assert (marker in page(client, source_page)) is shown, f"{action}, at once"
        page_clock.later()
        assert (LOG_LINE in page(client, AGENT_PAGE)) is shown, action
        assert (marker in page(client, source_page)) is shown, action


def test_publishing_shows_an_agents_logs(client: Client, page_clock: PageClock,
                                         agent: AgentSubmission) -> None:
    assert LOG_LINE not in page(client, AGENT_PAGE)
    set_published(agent.submissions.get(), True)
    page_clock.later()
    assert LOG_LINE in page(client, AGENT_PAGE)

