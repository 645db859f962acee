"""Every board page and the home page cost the same number of queries with 2 rows as with 30."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from leaderboard.models import Hardware, LeaderboardEntry
from submissions.models import AgentSubmission
from tests.platform import factories

pytestmark = pytest.mark.django_db
FEW, MANY = 2, 30


def verdict(i: int) -> str:
    return "RUNTIME_ERROR" if i % 4 == 3 else "PASSED"  # some rows without a valid score


class Boards:
    """Grows each board to n rows: participants, or agents on the agent board."""

    def __init__(self, cpu: Hardware) -> None:
        self.cpu, self.h200 = cpu, factories.make_hardware("h200")
        self.problems = [factories.make_named_problem("gemm"), factories.make_named_problem("norm")]
        self.users: list[Any] = []
        self.agents = 0

    def participants(self, n: int) -> None:
        while len(self.users) < n:
            i = len(self.users)
            user = factories.make_participant(f"p{i:02d}")
            self.users.append(user)
            factories.make_scored(user, self.problems[i % 2], self.cpu, 0.1 + i / 100, verdict=verdict(i))
            factories.make_scored(user, self.problems[0], self.h200, 0.5, verdict=verdict(i))

    def agent_runs(self, n: int) -> None:
        while self.agents < n:
            owner = factories.make_participant(f"a{self.agents:02d}")
            scores = {self.problems[0]: 0.2 + self.agents / 100, self.problems[1]: None}
            factories.make_agent_run(owner, f"agent{self.agents}", scores, self.cpu, model=f"m{self.agents}")
            self.agents += 1

    def home(self, n: int) -> None:
        """Participants, agents and categories all grow."""
        while len(self.problems) < n // 3 + 2:
            i = len(self.problems)
            problem = factories.make_named_problem(f"q{i}", category=f"c{i % 5}")
            self.problems.append(problem)
            factories.make_scored(factories.make_participant(), problem, self.h200, 0.4)
        self.participants(n)
        self.agent_runs(n)


PAGES: dict[str, tuple[str, Callable[[Boards, int], None], Callable[[], int]]] = {
    "problem": ("/boards/problems/gemm/h200/", Boards.participants,
                lambda: LeaderboardEntry.objects.filter(problem__name="gemm", hardware__slug="h200").count()),
    "category": ("/boards/categories/l1/cpu/?sort=-geomean_speedup", Boards.participants,
                 lambda: LeaderboardEntry.objects.filter(hardware__slug="cpu").distinct("user").count()),
    "agents": ("/boards/agents/cpu/", Boards.agent_runs, AgentSubmission.objects.count),
    "home": ("/", Boards.home, lambda: LeaderboardEntry.objects.values("user").distinct().count()),
    "csv": ("/boards/problems/gemm/h200/?format=csv", Boards.participants, lambda: 0),
}


@pytest.mark.parametrize("page", list(PAGES))
def test_queries_do_not_grow_with_rows(client: Client, cpu: Hardware, page: str,
                                       django_assert_num_queries: Any) -> None:
    url, grow, rows = PAGES[page]
    boards = Boards(cpu)
    grow(boards, FEW)
    cache.clear()  # both times uncached: what pages/page_cache.py keeps only ever saves queries
    with CaptureQueriesContext(connection) as few:
        assert client.get(url).status_code == 200
    grow(boards, MANY)
    assert rows() == 0 or rows() >= MANY
    cache.clear()
    with django_assert_num_queries(len(few.captured_queries)):
        response = client.get(url)
    assert response.status_code == 200
    if page in ("problem", "category", "agents"):
        assert response.content.decode().count("<tr") - 1 == rows() >= MANY  # the header row aside
