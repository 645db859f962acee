"""GET /u/<username>/ and /agents/<owner>/<name>/: public profiles. A participant's best score and
rank on each board and their submissions with states and scores; an agent's best suite per
hardware and its uploads. Nothing private: no sources, no hidden workloads."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.models import Submission
from tests.platform import factories

pytestmark = pytest.mark.django_db


def section(body: str, name: str) -> str:
    start = body.index(f'id="{name}"')
    return body[start:body.index("</section>", start)]


def test_a_participant_shows_rank_per_board_and_submission_history(
        client: Client, problem: Problem, cpu: Hardware) -> None:
    h200 = factories.make_hardware("h200")
    alice, bob = factories.make_user("alice"), factories.make_user("bob")
    factories.make_scored(bob, problem, cpu, 0.8)
    best = factories.make_scored(alice, problem, cpu, 0.6)
    factories.make_scored(alice, problem, cpu, 0.3)
    factories.make_scored(alice, problem, h200, 0.0, verdict="RUNTIME_ERROR")  # no valid score there
    queued = factories.make_evaluation(owner=alice, problem=problem, hardware=cpu)
    response = Client().get("/u/alice/")  # anonymous
    assert response.status_code == 200
    body = response.content.decode()
    boards = section(body, "best")
    cpu_row = boards[boards.index("/hardware/cpu/"):]
    cpu_row = cpu_row[:cpu_row.index("</tr>")]
    assert "2 / 2" in cpu_row and "0.600" in cpu_row and f"/submissions/{best.submission_id}/" in cpu_row
    assert '<tr class="no-score">' in boards and "no valid score" in boards
    history = section(body, "history")
    links = re.findall(r'href="/submissions/(\d+)/"', history)
    assert links[0] == str(queued.submission_id) and len(links) == 4  # newest first
    assert '<span class="state-queued">queued</span>' in history and "0.300" in history
    assert "import torch" not in body  # never the source
    assert "/u/bob/" not in body


def test_history_pages_and_unknown_participants(client: Client, problem: Problem, cpu: Hardware) -> None:
    alice = factories.make_user("alice")
    for _ in range(30):
        factories.make_evaluation(owner=alice, problem=problem, hardware=cpu)
    first = section(client.get("/u/alice/").content.decode(), "history")
    second = section(client.get("/u/alice/?page=2").content.decode(), "history")
    assert len(re.findall(r'href="/submissions/\d+/"', first)) == 25
    assert len(re.findall(r'href="/submissions/\d+/"', second)) == 5
    assert "page 2 of 2" in second and "?page=1#history" in second
    assert Submission.objects.count() == 30
    response = client.get("/u/nobody/")
    assert response.status_code == 404
    assert "No participant is named &#x27;nobody&#x27;" in response.content.decode()


def test_an_agent_shows_its_best_suite_per_hardware_and_its_uploads(client: Client, cpu: Hardware) -> None:
    problem, other = factories.make_named_problem("scale_one"), factories.make_named_problem("scale_two")
    owner = factories.make_user("ada")
    factories.make_agent_run(owner, "kernel bot", {problem: 0.5, other: None}, cpu, version="1.0",
                             model="m-1")
    factories.make_agent_run(owner, "kernel bot", {problem: 0.9, other: 0.7}, cpu, version="2.0",
                             model="m-2")
    unfinished = factories.make_agent_run(owner, "kernel bot", {problem: 0.99}, cpu, version="3.0")
    Evaluation.objects.filter(submission__agent_submission=unfinished).update(state=Evaluation.RUNNING,
                                                                             score=None)
    factories.make_agent_run(owner, "another bot", {problem: 0.1}, cpu)
    response = client.get("/agents/ada/kernel%20bot/")
    assert response.status_code == 200
    body = response.content.decode()
    suites = section(body, "suites")
    assert "0.800" in suites and "version 2.0 · m-2" in suites  # (0.9 + 0.7) / 2; 3.0 is not finished
    assert 'href="/boards/agents/cpu/"' in suites
    uploads = section(body, "versions")
    assert [v for v in re.findall(r"<td>(\d\.0)</td>", uploads)] == ["3.0", "2.0", "1.0"]  # newest first
    assert "0.250" in uploads and "(running)" in uploads
    assert "another bot" not in body
    assert "/agents/ada/kernel%20bot/" in client.get("/u/ada/").content.decode()
    response = client.get("/agents/ada/no%20such%20bot/")
    assert response.status_code == 404
    assert ("No agent named &#x27;no such bot&#x27; was uploaded by &#x27;ada&#x27;"
            in response.content.decode())


def test_agent_names_with_slashes_and_odd_characters_have_pages(client: Client, problem: Problem,
                                                               cpu: Hardware) -> None:
    owner = factories.make_user("ada")
    name = "team/bot?v=1 #2"
    factories.make_agent_run(owner, name, {problem: 0.5}, cpu)
    body = client.get("/u/ada/").content.decode()
    link = re.search(r'href="(/agents/ada/[^"]+)"', body)
    assert link is not None and link.group(1) == "/agents/ada/team/bot%3Fv=1%20%232/"
    response = client.get(link.group(1))
    assert response.status_code == 200 and "<h2>team/bot?v=1 #2</h2>" in response.content.decode()
