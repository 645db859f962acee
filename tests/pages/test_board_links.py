"""Issue 19: boards link where their numbers come from. The words "score" and "suite score" on the
category and agent boards and on a submission's page link the scoring doc; an agent board's score
links the upload behind it, on its agent's page."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from leaderboard.models import Hardware, Problem
from tests.platform import factories

pytestmark = pytest.mark.django_db
SCORING = '<a href="/docs/scoring/">'


def test_the_board_pages_and_the_submission_page_link_the_scoring_doc(client: Client, problem: Problem,
                                                                       cpu: Hardware) -> None:
    evaluation = factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    category = client.get(f"/boards/categories/{problem.category.slug}/cpu/").content.decode()
    assert f"{SCORING}Score</a>: the mean" in category
    assert f"by its {SCORING}suite score</a>" in client.get("/boards/agents/cpu/").content.decode()
    submission = client.get(f"/submissions/{evaluation.submission_id}/").content.decode()
    assert f'<th class="num">{SCORING}score</a></th>' in submission
    assert f"<dt>{SCORING}score</a></dt>" in submission


def test_an_agent_boards_score_links_its_upload(client: Client, problem: Problem, cpu: Hardware) -> None:
    ada = factories.make_participant("ada")
    first = factories.make_agent_run(ada, "bot", {problem: 0.2}, cpu, version="1")
    best = factories.make_agent_run(ada, "bot", {problem: 0.6}, cpu, version="2")
    board = client.get("/boards/agents/cpu/").content.decode()
    links = re.findall(r'href="(/agents/ada/bot/#upload-\d+)"', board)
    assert links == [f"/agents/ada/bot/#upload-{best.pk}", f"/agents/ada/bot/#upload-{first.pk}"]
    assert f'<tr id="upload-{best.pk}">' in client.get("/agents/ada/bot/").content.decode()
