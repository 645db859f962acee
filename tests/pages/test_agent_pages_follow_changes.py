"""Agent pages (the agent board and its CSV, the frontier, an agent's page) are kept with the
agents' generation (solarena.changes.AGENTS): served with no query while other boards change,
however old (up to MAX_AGE), and shown within STALE seconds of a change to an agent upload or to
one of its solutions' evaluations, whichever writer made it, an update() included."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from evaluator import services
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from leaderboard.services import set_solutions_revealed
from pages import page_cache
from solarena import changes
from submissions.agent_publication import publish_agent_submission
from submissions.models import AgentSubmission, Submission
from submissions.services import cancel_submission, set_published
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("shared_cache")]
PAGES = ["/boards/agents/cpu/", "/boards/agents/cpu/?format=csv&by=problem", "/boards/agents/cpu/frontier/",
         "/agents/ada/bot/"]


@pytest.fixture
def ada(problem: Problem, cpu: Hardware) -> AbstractBaseUser:
    ada = factories.make_participant("ada")
    factories.make_agent_run(ada, "bot", {problem: 0.3}, cpu)
    return ada


def page(client: Client, url: str) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode(), len(queries)


def agents_generation() -> int:
    changes.forget()
    return changes.generations([changes.AGENTS])[changes.AGENTS]


@pytest.mark.parametrize("url", PAGES)
def test_agent_pages_stand_while_other_boards_change(client: Client, page_clock: PageClock,
                                                     ada: AbstractBaseUser, problem: Problem, cpu: Hardware,
                                                     url: str) -> None:
    grace = factories.make_participant("grace")  # a new name moves the names: before the page is kept
    page(client, url)
    factories.make_scored(grace, problem, cpu, 0.9)  # a person's submission, on a board
    page_clock.advance(page_cache.MAX_AGE - 1)
    assert page(client, url)[1] == 0, "made again though no agent changed"


@pytest.mark.parametrize("url", PAGES)
def test_an_agent_solutions_new_score_shows_within_stale(client: Client, page_clock: PageClock,
                                                         ada: AbstractBaseUser, url: str) -> None:
    assert "0.917" not in page(client, url)[0]
    Evaluation.objects.filter(submission__agent_submission__owner=ada).update(score=0.917)  # no signal
    evaluation = Evaluation.objects.get(submission__agent_submission__owner=ada)
    evaluation.save()  # as ingestion saves it
    page_clock.later()
    assert "0.917" in page(client, url)[0]


def queued_agent_solution(owner: AbstractBaseUser, problem: Problem, cpu: Hardware,
                          private: bool = False) -> Evaluation:
    agent = AgentSubmission.objects.create(owner=owner, name="bot", version="2", model="m", private=private)
    submission = Submission.objects.create(owner=owner, problem=problem, language="python",
                                           sources={"solution.py": factories.CORRECT}, entry="solution.py",
                                           agent_submission=agent)
    return Evaluation.objects.create(submission=submission, hardware=cpu, seed=1, state=Evaluation.QUEUED)


def claimed(evaluation: Evaluation) -> None:
    assert services.claim(evaluation.pk, "w1") is not None


WRITERS: dict[str, Callable[[Evaluation], object]] = {
    "claimed (update)": claimed,
    "progress (update)": lambda e: (claimed(e), services.renew_lease(e.pk, "w1", {"done": 1})),
    "failed (update)": lambda e: (claimed(e), services.fail(e.pk, "boom", "w1")),
    "cancelled (update)": lambda e: cancel_submission(e.submission),
    "published (update)": lambda e: set_published(e.submission, True),
    "solutions revealed (update)": lambda e: set_solutions_revealed(
        type(e.submission.problem).objects.filter(pk=e.submission.problem_id), True),
    "upload saved": lambda e: e.submission.agent_submission.save(),
    "upload deleted": lambda e: e.submission.agent_submission.delete(),
}


@pytest.mark.parametrize("writer", WRITERS)
def test_every_writer_of_an_agents_solution_moves_the_agents(ada: AbstractBaseUser, problem: Problem,
                                                             cpu: Hardware, writer: str) -> None:
    evaluation = queued_agent_solution(ada, problem, cpu)
    before = agents_generation()
    WRITERS[writer](evaluation)
    assert agents_generation() > before


def test_publishing_an_upload_moves_the_agents(ada: AbstractBaseUser, problem: Problem,
                                               cpu: Hardware) -> None:
    evaluation = queued_agent_solution(ada, problem, cpu, private=True)
    before = agents_generation()
    assert publish_agent_submission(evaluation.submission.agent_submission)
    assert agents_generation() > before


@pytest.mark.parametrize("writer", ["claimed (update)", "failed (update)", "cancelled (update)",
                                    "published (update)"])
def test_a_persons_submission_leaves_the_agents(problem: Problem, cpu: Hardware, writer: str) -> None:
    evaluation = factories.make_evaluation(owner=factories.make_participant("grace"), problem=problem,
                                           hardware=cpu)
    before = agents_generation()
    WRITERS[writer](evaluation)
    assert agents_generation() == before
