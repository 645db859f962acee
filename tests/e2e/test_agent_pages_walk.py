"""The agent pages in a real headless Chromium: the agent board, an agent's page, one upload problem
by problem, two uploads compared, a trajectory step by step; then a private upload, which its owner
sees with a Publish button and an anonymous visitor meets as a 404, published by that button and
then on the agent board. Screenshots of each page go to $SOLARENA_SCREENSHOTS (default a temporary
folder). Skipped where Playwright or Debian's chromium is missing (scripts/setup installs both)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections

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
    first = factories.make_agent_upload(owner, "kernel-forge", {
        gemm: workload_aggregates([0.8], [0.6]), norm: workload_aggregates([0.5], [None])}, cpu,
        version="1.0")
    later = factories.make_agent_upload(owner, "kernel-forge", {
        gemm: workload_aggregates([0.9], [0.8]), norm: workload_aggregates([0.6], [0.6])}, cpu, version="1.1",
        logs={"logs/run.jsonl": TRAJECTORY})
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
    anonymous.screenshot(path=str(screenshots / "agent_board.png"), full_page=True)

    anonymous.goto(f"{url}/agents/{USERNAME}/kernel-forge/")
    expect(anonymous.locator("#versions")).to_contain_text("1.0")
    expect(anonymous.locator("body")).not_to_contain_text("2.0-secret")
    anonymous.screenshot(path=str(screenshots / "agent_page.png"), full_page=True)

    anonymous.goto(f"{url}/agents/{USERNAME}/kernel-forge/?upload={uploads['first'].pk}")
    expect(anonymous.locator("#upload-detail h3")).to_contain_text("Version 1.0 problem by problem")
    expect(anonymous.locator("#upload-detail")).to_contain_text("gemm_bf16")

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
