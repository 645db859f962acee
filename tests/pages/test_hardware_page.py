"""GET /hardware/ and /hardware/<slug>/: datasheet and calibrated peaks side by side, which one SOL
bounds use, evaluation counts and the boards on the hardware."""

from __future__ import annotations

import pytest
from django.test import Client

from evaluator.counting import counted
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from leaderboard.services import store_calibration
from tests.platform import factories

pytestmark = pytest.mark.django_db


def row_of(body: str, label: str) -> list[str]:
    start = body.index(f"<td>{label}</td>")
    row = body[start:body.index("</tr>", start)]
    return [cell.split("</td>")[0].split(">", 1)[-1].strip() for cell in row.split("<td")[2:]]


def test_datasheet_and_calibrated_peaks_side_by_side(client: Client) -> None:
    h200 = factories.make_hardware("h200")
    store_calibration("h200", {"memory_bandwidth": 4.2e12, "bfloat16": 7.0e14})
    body = client.get("/hardware/h200/").content.decode()
    assert "<h2>NVIDIA H200 SXM 141GB</h2>" in body
    assert row_of(body, "memory bandwidth") == ["TB/s", "4.8", "4.2", "88%", "calibrated"]
    assert row_of(body, "bfloat16") == ["TFLOP/s", "989", "700", "71%", "calibrated"]
    assert row_of(body, "float32") == ["TFLOP/s", "67", "–", "–", "datasheet"]
    assert row_of(body, "int8") == ["TOP/s", "1979", "–", "–", "datasheet"]
    assert "NVIDIA H200 Tensor Core GPU datasheet" in body  # the source of the figures
    assert h200.name in client.get("/hardware/").content.decode()


def test_counts_and_boards_on_the_hardware(client: Client, problem: Problem, cpu: Hardware) -> None:
    factories.make_scored(factories.make_user("alice"), problem, cpu, 0.5)
    factories.make_scored(factories.make_user("bob"), problem, cpu, 0.25)
    factories.make_evaluation(problem=problem, hardware=cpu)  # queued
    body = client.get("/hardware/cpu/").content.decode()
    start = body.index('id="evaluation-counts"')
    counts = body[start:body.index("</dl>", start)]
    assert "<dt>queued</dt><dd>1</dd>" in counts and "<dt>scored</dt><dd>2</dd>" in counts
    assert "<dt>failed</dt><dd>0</dd>" in counts
    boards = body[body.index('id="boards"'):]
    assert f'href="/problems/{problem.name}/?hardware=cpu#board"' in boards
    assert '<td class="num">2</td><td class="num">0.500</td>' in boards
    assert counted().count() == 3
    # both leaders' confirmation runs are queued besides: the platform's, not counted (docs/scoring.md)
    assert Evaluation.objects.filter(confirms__isnull=False, state=Evaluation.QUEUED).count() == 2


def test_the_index_lists_every_hardware_and_unknown_is_404(client: Client) -> None:
    for slug in ("h100", "h200", "cpu"):
        factories.make_hardware(slug)
    Hardware.objects.filter(slug="h100").update(active=False)
    store_calibration("h200", {"memory_bandwidth": 4.2e12})
    body = client.get("/hardware/").content.decode()
    assert body.index("/hardware/cpu/") < body.index("/hardware/h200/") < body.index("/hardware/h100/")
    assert '<span class="measured">4.2 measured</span>' in body and "not accepted" in body
    response = client.get("/hardware/tpu9/")
    assert response.status_code == 404 and "No hardware &#x27;tpu9&#x27;" in response.content.decode()
