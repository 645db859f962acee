"""The agent pages in a real headless Chromium: the agent board with its generalization figures, its
CSV downloads and the score-versus-cost frontier, an agent's page (generalization, CSV), one upload
problem by problem and by task type, two uploads compared, a trajectory step by step; then a private
upload, which its owner
sees with a Publish button and an anonymous visitor meets as a 404, published by that button and
then on the agent board. Screenshots of each page go to $SOLARENA_SCREENSHOTS (default a temporary
folder). Skipped where Playwright or Debian's chromium is missing (scripts/setup installs both)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

from leaderboard.models import Problem
from submissions.models import AgentSubmission, Submission
from tests.e2e.conftest import needs_chromium, sign_up
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
USERNAME, PASSWORD = "ada", "a-Long-agent-walk-passw0rd"
TRAJECTORY = "\n".join(json.dumps(step) for step in [
    {"role": "user", "content": "Make scale_shift fast <please>"},
    {"role": "assistant", "content": "Trying a fused kernel.",
     "tool_calls": [{"name": "bash", "arguments": "ls"}]},
    {"role": "tool", "tool_result": "solution.py\n" * 300},
]) + "\nnot json\n"


def seed(owner: Any) -> dict[str, AgentSubmission]:
    cpu = factories.make_hardware("cpu")
    gemm, norm = factories.make_named_problem("gemm_bf16"), factories.make_named_problem("rmsnorm")
    Problem.objects.filter(pk=norm.pk).update(task_type="optimize_triton")
    first = factories.make_agent_upload(owner, "kernel-forge", {
        gemm: workload_aggregates([0.8], [0.6]), norm: workload_aggregates([0.5], [None])}, cpu,
        version="1.0", cost_usd=2.5)
    later = factories.make_agent_upload(owner, "kernel-forge", {
        gemm: workload_aggregates([0.9], [0.8]), norm: workload_aggregates([0.6], [0.6])}, cpu, version="1.1",
        logs={"logs/run.jsonl": TRAJECTORY}, cost_usd=4.0)
    Submission.objects.filter(agent_submission=later).update(published=True)  # its trajectory is public
    secret = factories.make_agent_upload(owner, "kernel-forge", {
        gemm: workload_aggregates([0.95], [0.9]), norm: workload_aggregates([0.7], [0.7])}, cpu,
        version="2.0-secret", private=True)
    return {"first": first, "later": later, "secret": secret}


@pytest.mark.django_db(transaction=True)
def test_agent_pages_walk(live_server: Any, browser: Any, screenshots: Path) -> None:
    try:
        _walk(live_server.url, browser, screenshots)
    finally:
        connections.close_all()  # the greenlet's connection, as in test_board_pages


def table(page: Any, selector: str) -> list[dict[str, str]]:
    """The first table matching `selector`, each body row as {heading: cell text} (sort arrows left out)."""
    return page.locator(selector).first.evaluate("""t => {
        const heads = [...t.querySelectorAll('thead th')].map(h => h.innerText.replace(/[↑↓▲▼]/g, '').trim());
        return [...t.querySelectorAll('tbody tr')].map(r => Object.fromEntries(
            [...r.cells].map((c, i) => [heads[i], c.innerText.trim()])));
    }""")


def download(page: Any, link: Any) -> list[str]:
    """The lines of the CSV a download link gives, checking it answers 200 as text/csv."""
    href = urljoin(page.url, link.get_attribute("href"))
    response = page.request.get(href)
    assert response.status == 200 and response.headers["content-type"].startswith("text/csv"), href
    return response.text().splitlines()


# 1.0: gemm_bf16 0.8 visible, 0.6 hidden (passed, slower); rmsnorm 0.5 visible, its hidden one failed.
# 1.1: gemm_bf16 0.9 / 0.8, rmsnorm 0.6 / 0.6 (docs/scoring.md, "Agent suites")
FIGURES = {"1.1": {"suite score": "0.725", "visible": "0.750", "hidden": "0.700", "gap": "0.0500",
                   "correctness gap": "0", "speed gap": "0.0500", "cond. correct": "100%"},
           "1.0": {"suite score": "0.475", "visible": "0.650", "hidden": "0.300", "gap": "0.350",
                   "correctness gap": "0.500", "speed gap": "0.200", "cond. correct": "50%"}}
SUITE_CSV = ("problems,attempted,solved,solved_visible,solved_all,score,visible_score,hidden_score,"
             "generalization_gap,correctness_gap,speed_gap,conditional_correctness")


def _walk(url: str, browser: Any, screenshots: Path) -> None:
    expect = sync_api.expect
    owner_page = browser.new_page(viewport={"width": 1280, "height": 1000})
    owner_page.set_default_timeout(30_000)
    sign_up(owner_page, url, USERNAME, PASSWORD)
    uploads = seed(get_user_model().objects.get(username=USERNAME))
    anonymous = browser.new_context().new_page()
    anonymous.set_default_timeout(30_000)

    anonymous.goto(f"{url}/boards/agents/cpu/")
    board = anonymous.locator("table.board tbody")
    expect(board).to_contain_text("1.1")
    expect(board).not_to_contain_text("2.0-secret")
    rows = {row["version"]: row for row in table(anonymous, "table.board")}
    assert set(rows) == {"1.0", "1.1"}
    for version, figures in FIGURES.items():
        assert {k: rows[version][k] for k in figures} == figures, version
    csv_lines = download(anonymous, anonymous.locator("div.downloads a", has_text="CSV"))
    assert csv_lines[0].startswith("rank,agent,version,model,user,team,score,solved,solved_visible,"
                                   "solved_all,visible_score,hidden_score,generalization_gap,correctness_gap,"
                                   "speed_gap")
    assert len(csv_lines) == 3 and csv_lines[1].startswith("1,kernel-forge,1.1,")
    by_type = download(anonymous, anonymous.locator("p.downloads a", has_text="by task type"))
    assert by_type[0] == ("agent,version,model,user,agent_submission,uploaded,hardware,status,task_type,"
                          + SUITE_CSV)
    assert sorted(line.split(",")[8] for line in by_type[1:]) == [
        "from_reference", "from_reference", "optimize_triton", "optimize_triton"]
    anonymous.screenshot(path=str(screenshots / "agent_board.png"), full_page=True)

    anonymous.locator("p.frontier-link a").click()
    anonymous.wait_for_url("**/boards/agents/cpu/frontier/")
    expect(anonymous.locator("h2")).to_contain_text("Score versus cost")
    frontier = table(anonymous, "#frontier table")
    assert [(row["version"], row["suite score"], row["cost (USD)"]) for row in frontier] == [
        ("1.0", "0.475", "2.5"), ("1.1", "0.725", "4")]  # cheapest first; neither beats the other on both
    expect(anonymous.locator("#frontier")).to_contain_text("2 of the 2 uploads with a cost")
    anonymous.screenshot(path=str(screenshots / "agent_frontier.png"), full_page=True)

    anonymous.goto(f"{url}/agents/{USERNAME}/kernel-forge/")
    expect(anonymous.locator("#versions")).to_contain_text("1.0")
    expect(anonymous.locator("body")).not_to_contain_text("2.0-secret")
    generalization = {row["version"]: row for row in table(anonymous, "#generalization table")}
    for version, figures in FIGURES.items():
        assert {k: generalization[version][k] for k in figures} == figures, version
    uploads_csv = download(anonymous, anonymous.locator("#generalization a", has_text="CSV uploads"))
    assert uploads_csv[0].startswith("agent,version,model,user,agent_submission,uploaded,hardware,status,"
                                     + SUITE_CSV + ",missing_problems")
    assert [line.split(",")[1] for line in uploads_csv[1:]] == ["1.1", "1.0"]  # newest first
    anonymous.screenshot(path=str(screenshots / "agent_page.png"), full_page=True)

    anonymous.goto(f"{url}/agents/{USERNAME}/kernel-forge/?upload={uploads['first'].pk}")
    expect(anonymous.locator("#upload-detail h3")).to_contain_text("Version 1.0 problem by problem")
    expect(anonymous.locator("#upload-detail")).to_contain_text("gemm_bf16")
    task_types = {row["task type"]: row for row in table(anonymous, "#upload-detail table.task-types")}
    assert set(task_types) == {"from_reference", "optimize_triton"}
    gemm = {"suite score": "0.700", "visible": "0.800", "hidden": "0.600", "gap": "0.200",
            "speed gap": "0.200"}
    norm = {"suite score": "0.250", "correctness gap": "1.00", "speed gap": "–"}
    assert {k: task_types["from_reference"][k] for k in gemm} == gemm
    assert {k: task_types["optimize_triton"][k] for k in norm} == norm

    anonymous.locator("form.compare-form button").click()
    anonymous.wait_for_url("**/compare/**")
    expect(anonymous.locator("h2")).to_contain_text("kernel-forge")
    anonymous.screenshot(path=str(screenshots / "agent_compare.png"), full_page=True)

    anonymous.goto(f"{url}/agents/{USERNAME}/kernel-forge/?upload={uploads['later'].pk}")
    anonymous.locator("p.trajectories a").first.click()
    anonymous.wait_for_url("**/trajectory/**")
    steps = anonymous.locator("ol.trajectory > li")
    expect(steps).to_have_count(4)
    expect(steps.nth(0)).to_contain_text("Make scale_shift fast <please>")
    expect(steps.nth(1)).to_contain_text("tool call bash")
    expect(steps.nth(2).locator("details summary")).to_contain_text("show all")
    expect(steps.nth(3)).to_contain_text("line 4 is not JSON")
    anonymous.screenshot(path=str(screenshots / "agent_trajectory.png"), full_page=True)

    secret = uploads["secret"].pk
    owner_page.goto(f"{url}/agents/{USERNAME}/kernel-forge/?upload={secret}")
    expect(owner_page.locator("#upload-detail")).to_contain_text("Private upload.")
    owner_page.screenshot(path=str(screenshots / "agent_private_upload.png"), full_page=True)
    response = anonymous.goto(f"{url}/agents/{USERNAME}/kernel-forge/?upload={secret}")
    assert response is not None and response.status == 404

    owner_page.locator("#publish-upload button").click()
    expect(owner_page.locator("ul.messages")).to_contain_text(f"Upload #{secret} is public now")
    expect(owner_page.locator("#publish-upload")).to_have_count(0)
    time.sleep(2.5)  # past the copy of the board kept for anonymous visitors (pages.page_cache.STALE)
    anonymous.goto(f"{url}/boards/agents/cpu/")
    expect(anonymous.locator("table.board tbody tr").first).to_contain_text("2.0-secret")
    response = anonymous.goto(f"{url}/agents/{USERNAME}/kernel-forge/?upload={secret}")
    assert response is not None and response.status == 200
