"""GET /problems/ and /problems/<name>/: anyone may read them; the description as safe Markdown, the
reference (and starter) highlighted, visible workloads with their SOL bound per hardware, one board
per hardware as plain-link tabs, and the best score over time as inline SVG."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from evaluator.models import Evaluation
from evaluator.scoring import numbers
from leaderboard.models import Hardware, Problem, Workload
from leaderboard.problems import visible_sol_bounds
from tests.platform import factories

pytestmark = pytest.mark.django_db


def page(problem: Problem, hardware: str | None = None) -> str:
    return f"/problems/{problem.name}/" + (f"?hardware={hardware}" if hardware else "")


def board_users(body: str) -> list[str]:
    table = body[body.index('id="board-table"'):body.index("</table>", body.index('id="board-table"'))]
    return re.findall(r'<a href="/u/([^/]+)/">', table)


def test_anyone_reads_the_description_code_and_visible_workloads(client: Client, problem: Problem,
                                                                 cpu: Hardware) -> None:
    h200 = factories.make_hardware("h200")
    Problem.objects.filter(pk=problem.pk).update(description="## Scale\n\nMultiply by **two**.")
    response = client.get(page(problem))
    assert response.status_code == 200
    body = response.content.decode()
    assert "<h2>Scale</h2>" in body and "<strong>two</strong>" in body
    assert '<pre class="highlight"><code><span class="kn">import</span>' in body  # the reference, highlighted
    assert 'href="/highlight.css"' in body  # its colours, a stylesheet of the site's (no inline style)
    colours = client.get("/highlight.css")
    assert colours["Content-Type"].startswith("text/css") and ".highlight .kn" in colours.content.decode()
    assert "Baseline" in body and "Starter kernel" not in body  # from_reference: no starter
    for workload, bounds in visible_sol_bounds(problem, [cpu, h200]):
        row = body[body.index(f"<code>{workload.uuid}</code>"):]
        row = row[:row.index("</tr>")]
        assert numbers.duration(bounds["cpu"]) in row and numbers.duration(bounds["h200"]) in row
    for hidden in problem.workloads.filter(visibility=Workload.HIDDEN):
        assert hidden.uuid not in body


def test_tabs_switch_boards_without_script(client: Client, problem: Problem, cpu: Hardware) -> None:
    h200 = factories.make_hardware("h200")
    alice, bob, carol = (factories.make_user(n) for n in ("alice", "bob", "carol"))
    factories.make_scored(alice, problem, cpu, 0.4)
    factories.make_scored(bob, problem, cpu, 0.7)
    factories.make_scored(carol, problem, cpu, 0.0, verdict="INCORRECT_NUMERICAL")  # no valid score
    factories.make_scored(carol, problem, h200, 0.9)
    body = client.get(page(problem)).content.decode()  # the busiest board by default
    assert '<a href="?hardware=cpu#board" aria-current="page">cpu' in body
    assert '<a href="?hardware=h200#board">h200' in body
    assert board_users(body) == ["bob", "alice", "carol"]  # carol has no valid score: last
    assert "2 ranked of 3 participants" in body
    body = client.get(page(problem, "h200")).content.decode()
    assert board_users(body) == ["carol"]
    assert f'href="/boards/problems/{problem.name}/h200/"' in body  # the full board


def test_the_best_score_over_time_is_a_step_line_of_records(client: Client, problem: Problem,
                                                            cpu: Hardware) -> None:
    alice, bob = factories.make_user("alice"), factories.make_user("bob")
    for user, score in ((alice, 0.3), (bob, 0.2), (bob, 0.6), (alice, 0.6), (alice, 0.8)):
        factories.make_scored(user, problem, cpu, score)
    hack = factories.make_scored(bob, problem, cpu, 0.95)
    Evaluation.objects.filter(pk=hack.pk).update(reward_hack=True)  # never a record
    body = client.get(page(problem, "cpu")).content.decode()
    svg = body[body.index('<svg class="chart"'):body.index("</svg>")]
    points = re.findall(r"<title>([\d.]+) by (\w+),", svg)
    assert points == [("0.300", "alice"), ("0.600", "bob"), ("0.800", "alice")]
    assert '<path class="line" d="M' in svg
    assert "0.950" not in svg


def test_an_optimize_task_shows_its_starter(client: Client, cpu: Hardware) -> None:
    problem = factories.make_named_problem("faster_scale", task_type="optimize_triton")
    problem.definition = {**problem.definition, "task_type": "optimize_triton",
                          "starter": "import triton\n\ndef run(x, bias):\n    return x\n"}
    problem.save(update_fields=["definition"])
    body = client.get(page(problem)).content.decode()
    start = body.index('id="starter"')
    assert "Starter kernel" in body
    highlighted = '<span class="kn">import</span><span class="w"> </span><span class="nn">triton</span>'
    assert highlighted in body[start:]


def test_unknown_problem_or_hardware_is_a_404_naming_it(client: Client, problem: Problem,
                                                        cpu: Hardware) -> None:
    response = client.get("/problems/no_such_problem/")
    assert response.status_code == 404
    assert "No problem is named &#x27;no_such_problem&#x27;" in response.content.decode()
    response = client.get(page(problem, "tpu9"))
    assert response.status_code == 404
    assert "has no board on hardware &#x27;tpu9&#x27;; its boards are cpu" in response.content.decode()


def test_the_index_lists_current_problems_with_filters(client: Client, cpu: Hardware) -> None:
    factories.make_named_problem("quant_scale", category="quant", task_type="optimize_triton")
    factories.make_named_problem("scale_two")
    retired = factories.make_named_problem("old_scale")
    Problem.objects.filter(pk=retired.pk).update(is_current=False)
    body = client.get("/problems/").content.decode()
    assert "/problems/quant_scale/" in body and "/problems/scale_two/" in body
    assert "/problems/old_scale/" not in body
    body = client.get("/problems/?category=quant").content.decode()
    assert "/problems/quant_scale/" in body and "/problems/scale_two/" not in body
    body = client.get("/problems/?task_type=from_reference").content.decode()
    assert "/problems/quant_scale/" not in body and "/problems/scale_two/" in body
    response = client.get("/problems/?category=nope")
    assert response.status_code == 400 and "no category &#x27;nope&#x27;" in response.content.decode()
    response = client.get("/problems/?task_type=golf")
    assert response.status_code == 400 and "no task type &#x27;golf&#x27;" in response.content.decode()
