"""An agent's page puts generalization first: each upload's suite score, visible and hidden scores,
correctness gap apart from speed gap and the problems solved on every workload; one upload (the
latest, or ?upload=) task type by task type and problem by problem, its left-out problems named;
and the same as CSV (uploads, by task type, by problem), its JSON being the API's."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Hardware
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
PAGE = "/agents/ada/forge/"


@pytest.fixture
def uploads(cpu: Hardware) -> tuple[Any, Any]:
    gemm = factories.make_named_problem("gemm", task_type="from_reference")
    softmax = factories.make_named_problem("softmax", task_type="from_reference")
    norm = factories.make_named_problem("norm", task_type="optimize_triton")
    ada = factories.make_participant("ada")
    first = factories.make_agent_upload(ada, "forge", {
        gemm: workload_aggregates([0.8, 0.8], [0.6, 0.5, 0.55]),  # every hidden shape passed, slower
        softmax: workload_aggregates([0.9, 0.9], [None, None])}, cpu, version="1.0")  # hidden ones failed
    later = factories.make_agent_upload(ada, "forge", {
        gemm: workload_aggregates([0.8, 0.8], [0.8, 0.7, 0.75]), norm: workload_aggregates([0.5], [0.5])},
        cpu, version="1.1")
    return first, later


def section(body: str, name: str) -> str:
    found = re.search(rf'<section id="{name}">(.*?)</section>', body, re.S)
    assert found is not None, name
    return found.group(1)


def cells(html: str) -> list[list[str]]:
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in rows]


def test_each_upload_shows_correctness_apart_from_speed(client: Client, uploads: tuple[Any, Any]) -> None:
    body = client.get(PAGE).content.decode()
    rows = [row for row in cells(section(body, "generalization")) if row]
    # version, hardware, status, score, solved, all visible, all workloads, visible, hidden, gap,
    # correctness gap, speed gap, cond. correct, left out
    assert rows == [
        ["1.1", "cpu", "done", "0.423", "2 / 2 / 3", "2", "2", "0.433", "0.417", "0.0167", "0", "0.0250",
         "100%", "1"],
        ["1.0", "cpu", "done", "0.367", "2 / 2 / 3", "2", "1", "0.567", "0.183", "0.383", "0.500", "0.250",
         "50%", "1"]]


def test_one_upload_by_task_type_and_problem_with_its_left_out_problems(client: Client,
                                                                        uploads: tuple[Any, Any]) -> None:
    first, later = uploads
    detail = section(client.get(PAGE).content.decode(), "upload-detail")
    assert "Version 1.1 problem by problem" in detail
    assert "Left out of the bundle, each counting 0: softmax." in detail
    chosen = section(client.get(f"{PAGE}?upload={first.pk}").content.decode(), "upload-detail")
    assert "Version 1.0 problem by problem" in chosen
    assert "Left out of the bundle, each counting 0: norm." in chosen
    rows = {row[0]: row for row in cells(chosen) if row}
    assert rows["from_reference"][1:3] == ["0.550", "2 / 2 / 2"]
    assert rows["optimize_triton"][1:3] == ["0", "0 / 0 / 1"]
    assert rows["softmax"][2:8] == ["scored, 2 of 4 workloads passed", "0.450", "0.900", "0", "2 / 2",
                                    "0 / 2"]
    assert rows["norm"][2] == "left out"
    missing = client.get(f"{PAGE}?upload=999999")
    assert missing.status_code == 404
    uploads_named = f"its uploads are #{later.pk} (1.1), #{first.pk} (1.0)"
    assert f"has no upload #999999; {uploads_named}" in missing.content.decode()


def test_the_page_downloads_its_figures(client: Client, uploads: tuple[Any, Any]) -> None:
    def table(query: str) -> list[dict[str, str]]:
        response = client.get(f"{PAGE}?{query}")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
        return list(csv.DictReader(io.StringIO(response.content.decode())))

    rows = table("format=csv")
    assert [(r["version"], r["hardware"], r["solved_all"], r["missing_problems"]) for r in rows] == [
        ("1.1", "cpu", "2", "softmax"), ("1.0", "cpu", "1", "norm")]
    assert float(rows[1]["correctness_gap"]) == pytest.approx(0.5)
    by_type = table("format=csv&by=task_type")
    assert [(r["version"], r["task_type"]) for r in by_type] == [
        ("1.1", "from_reference"), ("1.1", "optimize_triton"),
        ("1.0", "from_reference"), ("1.0", "optimize_triton")]
    by_problem = table("format=csv&by=problem")
    assert [(r["version"], r["problem"], r["outcome"]) for r in by_problem] == [
        ("1.1", "gemm", "scored"), ("1.1", "norm", "scored"), ("1.1", "softmax", "left out"),
        ("1.0", "gemm", "scored"), ("1.0", "norm", "left out"),
        ("1.0", "softmax", "scored, 2 of 4 workloads passed")]
    assert client.get(f"{PAGE}?format=csv&by=problem")["Content-Disposition"] == (
        'attachment; filename="ada-forge-by-problem.csv"')
    json = client.get(f"{PAGE}?format=json")
    assert json.status_code == 302 and json["Location"] == "/api/v1/agents/?user=ada&agent=forge"
    bad = client.get(f"{PAGE}?format=csv&by=workload")
    assert bad.status_code == 400 and "unknown by=&#x27;workload&#x27;; use one of: task_type, problem" in (
        bad.content.decode())
    assert "by=problem is a CSV download: add format=csv" in client.get(f"{PAGE}?by=problem").content.decode()
    assert client.get(f"{PAGE}?format=xml").status_code == 400
