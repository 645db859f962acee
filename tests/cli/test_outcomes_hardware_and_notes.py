"""Issue 19 in the terminal: `status` says what happened as the pages do (evaluator/scoring/outcome.py)
and shows conditional correctness as the board page does (a percentage); `hardware` lists which
hardware a worker serves now; `agents` and `compare` on the cpu carry its "not a GPU timing" note;
a queued evaluation's place in line reads as words."""

from __future__ import annotations

import io
from typing import Any

import pytest
from rich.console import Console

from evaluator import workers
from leaderboard.models import Hardware
from solarena.client_commands import _queue_text, print_agent
from tests.cli.support import Server
from tests.platform import factories

NOTE = "say nothing of a GPU's speed"


def test_status_says_what_happened(logged_in: Server, cli: Any) -> None:
    mine = (logged_in.user, logged_in.problem, logged_in.cpu)
    failed = factories.make_scored(*mine, 0.0, verdict="COMPILE_ERROR")
    good = factories.make_scored(*mine, 0.5, conditional_correctness=0.5)
    out = cli("status", str(failed.submission_id)).out
    assert "cpu: did not compile, score 0" in out
    out = cli("status", str(good.submission_id)).out
    assert "cpu: scored, score 0.500" in out and "cond. correct 50%" in out
    assert "cond. correct 0.500" not in out


def test_an_agents_solutions_say_what_happened() -> None:
    wrong = {"hardware": "cpu", "state": "scored", "outcome": "incorrect on every workload", "score": 0.0}
    older = {"hardware": "h200", "state": "failed", "score": None}  # from an older server: no outcome
    evaluations = [wrong, older]
    document = {"id": 3, "name": "bot", "version": "1", "model": "m", "status": "done", "suites": [],
                "submissions": [{"id": 9, "problem": "p", "language": "python", "evaluations": evaluations}]}
    buffer = io.StringIO()
    print_agent(document, Console(file=buffer, width=200, markup=False, highlight=False))
    assert "incorrect on every workload" in buffer.getvalue()
    assert "failed on the platform" in buffer.getvalue()


@pytest.mark.parametrize(("queue", "text"), [
    ({"position": 1, "estimated_start_seconds": None}, "next in line"),
    ({"position": 3, "estimated_start_seconds": 20.0}, "3 in line, starts within a minute"),
    ({"position": 2, "estimated_start_seconds": 150.0}, "2 in line, starts in about 2 min"),
    ({"position": 4, "estimated_start_seconds": 61.0}, "4 in line, starts in about 1 min"),
])
def test_queue_text(queue: dict[str, Any], text: str) -> None:
    assert _queue_text(queue) == text


def test_hardware_lists_whether_a_worker_serves_each(server: Server, cli: Any, settings: Any) -> None:
    settings.SOLARENA_EXPECTED_HARDWARE = "b200"
    factories.make_hardware("h200")
    factories.make_hardware("b200")
    Hardware.objects.update(active=True)
    workers.beat("celery@cpu1/3", ["cpu"])
    result = cli("hardware", "--server", server.url)
    assert result.code == 0, result.err
    rows = {line.split()[1]: line for line in result.out.splitlines() if line.split()[1:2]
            and line.split()[1] in ("cpu", "h200", "b200")}
    assert "online" in rows["cpu"] and "1" in rows["cpu"]
    assert "offline" in rows["h200"] and "expected" in rows["b200"]
    assert "cpu: CPU times come from" in result.out and NOTE in " ".join(result.out.split())
    document = cli("hardware", "--server", server.url, "--json").json()
    assert {hw["slug"]: hw["availability"]["state"] for hw in document} == {
        "cpu": "online", "h200": "offline", "b200": "expected"}


def test_agents_and_compare_on_the_cpu_carry_the_note(server: Server, cli: Any) -> None:
    factories.make_agent_run(server.user, "bot", {server.problem: 0.5}, server.cpu)
    agents = cli("agents", "--hardware", "cpu", "--server", server.url)
    assert agents.code == 0 and "bot" in agents.out and NOTE in " ".join(agents.out.split())
    a, b = (factories.make_scored(server.user, server.problem, server.cpu, score) for score in (0.4, 0.5))
    versus = cli("compare", str(a.submission_id), str(b.submission_id), "--server", server.url)
    assert versus.code == 0, versus.err
    assert NOTE in " ".join(versus.out.split())
