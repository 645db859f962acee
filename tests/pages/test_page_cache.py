"""Pages follow what they show (pages/page_cache.py keeps a page for a second or two): a
new score, a review that takes one away, a new participant show on a board and in every
download, a new agent upload and an agent's evaluation that finishes on the agent board, a new
leader on the home page, a new best on a problem page's board and chart, a newly scored evaluation
in a hardware page's counts, a watched submission's progress and a finished one's review, a
participant's ranks and the states in their history, entries and new problems on the problems
index; a cache that does not answer slows the pages but does not break them."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from tests.pages.conftest import PageClock
from tests.platform import factories

pytestmark = pytest.mark.django_db
# The JSON download of a board is the API's board (the page's ?format=json redirects there).
PAGES = ("/boards/problems/scale_shift/cpu/", "/boards/problems/scale_shift/cpu/?format=csv",
         "/api/v1/leaderboards/scale_shift/cpu/", "/boards/categories/l1/cpu/",
         "/boards/categories/l1/cpu/?format=csv&task_type=from_reference")


def texts(client: Client, urls: tuple[str, ...] = PAGES) -> list[str]:
    pages = [client.get(url) for url in urls]
    assert all(page.status_code == 200 for page in pages), [page.status_code for page in pages]
    return [page.content.decode() for page in pages]


def shows(text: str, score: float) -> bool:
    """The score in a board's cell, CSV column or JSON field (not inside a timestamp)."""
    return any(form in text for form in (f">{score:.3f}<", f",{score},", f'"score":{score},'))


def test_a_new_score_and_a_review_show(client: Client, page_clock: PageClock,
                                       problem: Problem, cpu: Hardware) -> None:
    ada = factories.make_participant("ada")
    factories.make_scored(ada, problem, cpu, 0.4)
    before = texts(client)
    assert texts(client) == before  # served again, from the cache
    assert all("ada" in text and shows(text, 0.4) for text in before)

    best = factories.make_scored(ada, problem, cpu, 0.9)
    page_clock.later()
    improved = texts(client)
    assert all(shows(text, 0.9) and not shows(text, 0.4) for text in improved), "a better score"

    factories.make_scored(factories.make_participant("grace"), problem, cpu, 0.3)
    page_clock.later()
    assert all("grace" in text for text in texts(client)), "a new participant"

    admin = factories.make_participant("admin")
    evaluations.mark_reward_hack(best, admin, "output returned before the kernel ran")
    page_clock.later()
    reviewed = texts(client)
    assert all(shows(text, 0.4) and not shows(text, 0.9) for text in reviewed), "the hack no longer counts"


def test_boards_without_a_cache_server(client: Client, problem: Problem, cpu: Hardware,
                                       caplog: Any) -> None:
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    closed = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": "redis://127.0.0.1:9/0"}}  # nothing listens on the discard port
    boards = tuple(url for url in PAGES if url.startswith("/boards/"))  # the API's throttle needs a cache
    with override_settings(CACHES=closed):
        assert all("ada" in text for text in texts(client, boards))
    assert "page cache unavailable" in caplog.text


def test_agent_board_and_page_follow_uploads_and_evaluations(client: Client, page_clock: PageClock,
                                                             problem: Problem, cpu: Hardware) -> None:
    board = "/boards/agents/cpu/"
    owner = factories.make_participant("ada")
    factories.make_agent_run(owner, "bot", {problem: 0.25}, cpu)
    assert "0.250" in client.get(board).content.decode()

    factories.make_agent_run(owner, "rival", {problem: 0.5}, cpu)
    page_clock.later()
    page = client.get(board).content.decode()
    assert "rival" in page and "0.500" in page, "a new upload"

    later = factories.make_agent_run(owner, "bot", {problem: 0.75}, cpu, version="2")
    evaluation = Evaluation.objects.get(submission__agent_submission=later)
    Evaluation.objects.filter(pk=evaluation.pk).update(state=Evaluation.QUEUED, score=None, finished_at=None)
    page_clock.later()
    assert "0.750" not in client.get(board).content.decode(), "an upload still being evaluated"
    assert "(queued)" in client.get("/agents/ada/bot/").content.decode()
    assert evaluations.claim(evaluation.pk, "worker-1") is not None
    page_clock.later()
    assert "(running)" in client.get("/agents/ada/bot/").content.decode(), "the agent's page follows it"
    assert evaluations.ingest(evaluation.pk, "worker-1", factories.fake_report(evaluation, 0.75))
    page_clock.later()
    assert "0.750" in client.get(board).content.decode(), "its evaluation finished"
    page = client.get("/agents/ada/bot/").content.decode()
    assert "0.750" in page and "(running)" not in page


def test_the_home_page_follows_new_leaders(client: Client, page_clock: PageClock,
                                           problem: Problem, cpu: Hardware) -> None:
    assert "No evaluations yet." in client.get("/").content.decode()
    factories.make_evaluation(problem=problem, hardware=cpu)
    page_clock.later()
    assert "Evaluations are queued or running" in client.get("/").content.decode(), "a new submission"
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    page_clock.later()
    assert "ada" in client.get("/").content.decode()
    factories.make_scored(factories.make_participant("grace"), problem, cpu, 0.6)
    page_clock.later()
    page = client.get("/").content.decode()
    assert page.index("grace") < page.index("ada"), "the new leader, then the latest scored"
    assert '<strong>2</strong>participants' in page


def test_the_hardware_page_follows_its_counts(client: Client, page_clock: PageClock,
                                              problem: Problem, cpu: Hardware) -> None:
    def scored() -> str:
        body = client.get("/hardware/cpu/").content.decode()
        return body[body.index("<dt>scored</dt>"):].split("</dd>")[0]

    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    assert scored() == "<dt>scored</dt><dd>1"
    factories.make_scored(factories.make_participant("grace"), problem, cpu, 0.6)
    page_clock.later()
    assert scored() == "<dt>scored</dt><dd>2"
    page = "/hardware/cpu/"
    queued = factories.make_evaluation(problem=problem, hardware=cpu)
    page_clock.later()
    assert "<dt>queued</dt><dd>1</dd><dt>running</dt><dd>0</dd>" in client.get(page).content.decode()
    assert evaluations.claim(queued.pk, "worker-1") is not None  # a claim, no finish
    page_clock.later()
    assert "<dt>queued</dt><dd>0</dd><dt>running</dt><dd>1</dd>" in client.get(page).content.decode()


def test_the_problem_page_follows_its_board(client: Client, page_clock: PageClock,
                                            problem: Problem, cpu: Hardware) -> None:
    url = "/problems/scale_shift/?hardware=cpu"
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    page = client.get(url).content.decode()
    assert "ada" in page and "grace" not in page and page.count('class="point"') == 1
    factories.make_scored(factories.make_participant("grace"), problem, cpu, 0.6)
    page_clock.later()
    page = client.get(url).content.decode()
    assert page.index("grace") < page.index("ada"), "the new best, first on the board"
    assert page.count('class="point"') == 2, "and a new record on the chart"


def test_a_finished_submission_page_follows_a_review(client: Client, problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    url = f"/submissions/{evaluation.submission_id}/"
    for page in (url, url + "live/"):
        assert "excluded from the leaderboard" not in client.get(page).content.decode()
    evaluations.mark_reward_hack(evaluation, factories.make_participant("admin"), "too fast")
    for page in (url, url + "live/"):
        assert "excluded from the leaderboard" in client.get(page).content.decode()


def test_the_participant_page_follows_ranks_and_evaluations(client: Client, page_clock: PageClock,
                                                            problem: Problem, cpu: Hardware) -> None:
    ada = factories.make_participant("ada")
    factories.make_scored(ada, problem, cpu, 0.4)
    queued = factories.make_evaluation(owner=ada, problem=problem, hardware=cpu)
    page = client.get("/u/ada/").content.decode()
    assert "1 / 1" in page and '<span class="state-queued">queued</span>' in page
    factories.make_scored(factories.make_participant("grace"), problem, cpu, 0.6)
    page_clock.later()
    assert "2 / 2" in client.get("/u/ada/").content.decode(), "another participant went ahead"
    assert evaluations.claim(queued.pk, "worker-1") is not None
    page_clock.later()
    page = client.get("/u/ada/").content.decode()
    assert '<span class="state-running">running</span>' in page, "the history follows its evaluations"


def test_the_problems_index_follows_entries_and_new_problems(client: Client, page_clock: PageClock,
                                                             problem: Problem, cpu: Hardware) -> None:
    def entries() -> str:
        body = client.get("/problems/").content.decode()
        row = body[body.index('href="/problems/scale_shift/"'):]
        return row.split("</tr>")[0].rsplit('<td class="num">', 1)[1].split("<")[0]

    assert entries() == "0"
    factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    page_clock.later()
    assert entries() == "1"
    Problem.objects.create(name="scale_two", category=problem.category, task_type=problem.task_type,
                           definition=problem.definition, definition_hash="2")
    page_clock.later()
    assert "scale_two" in client.get("/problems/").content.decode(), "a new problem"


def test_a_watched_submission_follows_its_progress(client: Client, problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    live = f"/submissions/{evaluation.submission_id}/live/"
    assert "waiting for a cpu worker" in client.get(live).content.decode()
    assert evaluations.claim(evaluation.pk, "worker-1") is not None
    progress = {"visible": 1, "statuses": ["running", None]}
    assert evaluations.renew_lease(evaluation.pk, "worker-1", progress)
    assert "0 of 1 visible workloads done" in client.get(live).content.decode()
    progress["statuses"] = ["PASSED", "running"]
    assert evaluations.renew_lease(evaluation.pk, "worker-1", progress)
    assert "1 of 1 visible workloads done" in client.get(live).content.decode()  # the hidden one: no count
