"""Issue 6's public pages in a real headless Chromium: every page kind loads and reads right (with
and without JavaScript), board tabs switch by plain links, and a submission's page follows it from
queued through running to scored by itself, without a reload, as the real services move it.

A screenshot of each page kind goes to $SOLARENA_SCREENSHOTS (default: the test's tmp directory).
Skipped where Playwright or Debian's chromium is missing (scripts/setup installs both)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connections
from django.utils import timezone

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from leaderboard.services import store_calibration
from submissions.models import Submission
from tests.conftest import ROOT
from tests.e2e.conftest import needs_chromium
from tests.platform import factories

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
FRACTIONS = (0.92, 0.61, 0.35, 0.12)  # of the SOL bound, for the visible workloads of the report


def new_page(browser: Any, javascript: bool = True) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 900}, java_script_enabled=javascript)
    page.set_default_timeout(20_000)
    return page


def seed() -> dict[str, Any]:
    """A small but lifelike arena: two boards with a history, an agent, a calibrated GPU."""
    softmax = factories.make_problem(ROOT / "problems" / "softmax")
    factories.make_problem(ROOT / "problems" / "layernorm")  # an optimize_triton task, with a starter
    cpu, h200 = factories.make_hardware("cpu"), factories.make_hardware("h200")
    store_calibration("h200", {"memory_bandwidth": 4.31e12, "bfloat16": 7.02e14, "float32": 5.1e13})
    users = {name: factories.make_user(name) for name in ("ada", "grace", "linus", "barbara")}
    start = timezone.now() - timedelta(days=20)
    history = [("grace", 0.31), ("ada", 0.44), ("linus", 0.40), ("grace", 0.58), ("ada", 0.71)]
    for day, (name, score) in enumerate(history):
        evaluation = factories.make_scored(users[name], softmax, h200, score, visible_score=score + 0.04,
                                           hidden_score=score - 0.06, geomean_speedup=1 + 2 * score)
        Evaluation.objects.filter(pk=evaluation.pk).update(finished_at=start + timedelta(days=4 * day))
    factories.make_scored(users["barbara"], softmax, h200, 0.0, verdict="INCORRECT_NUMERICAL")
    factories.make_scored(users["linus"], softmax, cpu, 0.5)
    for version, score in (("1.1", 0.55), ("1.2", 0.62)):
        factories.make_agent_run(users["ada"], "kernelsmith", {softmax: score}, h200, version=version,
                                 model="model-x")
    return {"problem": softmax, "cpu": cpu, "h200": h200, **users}


@pytest.mark.django_db(transaction=True)
def test_every_page_kind_in_chromium(live_server: Any, browser: Any, screenshots: Path) -> None:
    try:
        _every_page_kind(live_server.url, browser, screenshots, seed())
    finally:
        connections.close_all()  # the ORM ran in Playwright's greenlet: close its connection too


def _every_page_kind(url: str, browser: Any, screenshots: Path, arena: dict[str, Any]) -> None:
    expect, problem = sync_api.expect, arena["problem"]
    page = new_page(browser)

    page.goto(f"{url}/problems/")
    expect(page.locator("#problems tbody tr")).to_have_count(2)
    page.click(f"#problems a:has-text('{problem.name}')")
    page.wait_for_url(f"**/problems/{problem.name}/")
    # The busiest board (h200) first; the ranking order, the unscored participant last.
    expect(page.locator(".tabs a[aria-current=page]")).to_contain_text("h200")
    users = page.locator("#board-table tbody tr td:nth-child(2) a")
    expect(users).to_have_text(["ada", "grace", "linus", "barbara"])
    expect(page.locator("#board-table tbody tr").first.locator("td").nth(2)).to_have_text("0.710")
    expect(page.locator("svg.chart circle")).to_have_count(4)  # 0.31, 0.44, 0.58, 0.71
    expect(page.locator("#description h2")).to_have_text("Row softmax (float32)")
    expect(page.locator("#reference pre.highlight .kn").first).to_be_visible()
    page.screenshot(path=screenshots / "problem.png", full_page=True)
    page.click(".tabs a:has-text('cpu')")
    page.wait_for_url("**/?hardware=cpu#board")
    expect(users).to_have_text(["linus"])

    page.goto(f"{url}/problems/?task_type=optimize_triton")
    expect(page.locator("#problems tbody tr")).to_have_count(1)
    page.screenshot(path=screenshots / "problems.png", full_page=True)
    page.click("#problems a:has-text('layernorm')")
    expect(page.locator("#starter pre.highlight")).to_contain_text("_layernorm_kernel")
    expect(page.locator("#board")).to_contain_text("Nobody is on the")
    page.screenshot(path=screenshots / "problem_optimize.png", full_page=True)

    page.goto(f"{url}/u/ada/")
    expect(page.locator("#best")).to_contain_text("1 / 3")
    expect(page.locator("#agents a")).to_have_text("kernelsmith")
    page.screenshot(path=screenshots / "participant.png", full_page=True)
    page.click("#agents a")
    page.wait_for_url("**/agents/ada/kernelsmith/")
    expect(page.locator("#suites .card .value")).to_have_text("0.310")  # softmax 0.62, layernorm 0
    expect(page.locator("#versions tbody tr")).to_have_count(2)
    page.screenshot(path=screenshots / "agent.png", full_page=True)

    page.goto(f"{url}/hardware/")
    page.screenshot(path=screenshots / "hardware_list.png", full_page=True)
    page.click("text=NVIDIA H200 SXM 141GB")
    page.wait_for_url("**/hardware/h200/")
    expect(page.locator("#peaks tbody tr").first).to_contain_text("4.31")
    page.screenshot(path=screenshots / "hardware.png", full_page=True)

    # Without JavaScript: the same pages read the same, and the tabs still switch.
    quiet = new_page(browser, javascript=False)
    quiet.goto(f"{url}/problems/{problem.name}/")
    expect(quiet.locator("#board-table tbody tr")).to_have_count(4)
    quiet.click(".tabs a:has-text('cpu')")
    expect(quiet.locator("#board-table tbody tr")).to_have_count(1)
    for path in ("/u/grace/", "/agents/ada/kernelsmith/", "/hardware/h200/", "/problems/"):
        response = quiet.goto(f"{url}{path}")
        assert response is not None and response.status == 200, path
        expect(quiet.locator("main h2")).not_to_be_empty()
    quiet.close()


@pytest.mark.django_db(transaction=True)
def test_a_submission_page_follows_its_evaluation_without_reloading(live_server: Any, browser: Any,
                                                                    screenshots: Path) -> None:
    try:
        _follows_without_reloading(live_server.url, browser, screenshots)
    finally:
        connections.close_all()


def _follows_without_reloading(url: str, browser: Any, screenshots: Path) -> None:
    expect = sync_api.expect
    problem: Problem = factories.make_problem(ROOT / "problems" / "softmax")
    cpu: Hardware = factories.make_hardware("cpu")
    evaluation = factories.make_evaluation(owner=factories.make_user("ada"), problem=problem, hardware=cpu)
    submission: Submission = evaluation.submission

    page = new_page(browser)
    page.goto(f"{url}/submissions/{submission.pk}/")
    expect(page.locator("td.state-queued")).to_have_count(1)
    assert page.evaluate("typeof htmx") == "object"
    page.evaluate("window.notReloaded = true")  # gone if the page were loaded again

    claimed = evaluations.claim(evaluation.pk, "e2e-worker")
    assert claimed is not None
    report = factories.fake_report(claimed, 0.5)
    statuses: list[str | None] = [None] * len(report["workloads"])
    visible = sum(row["visibility"] == "visible" for row in report["workloads"])
    statuses[0], statuses[1] = "PASSED", "running"
    assert evaluations.renew_lease(evaluation.pk, "e2e-worker", {"visible": visible, "statuses": statuses})
    expect(page.locator("td.state-running")).to_have_count(1)
    expect(page.locator(".progress-note")).to_contain_text(f"1 of {visible} visible workloads done")
    expect(page.locator(".progress span.running")).to_have_count(1)
    page.screenshot(path=screenshots / "submission_running.png", full_page=True)

    for i, row in enumerate(report["workloads"]):
        if row["visibility"] == "visible":
            fraction = FRACTIONS[i % len(FRACTIONS)]
            row["latency_ms"] = row["sol_ms"] / fraction
            row["score"] = round(fraction * 0.8, 3)
    report["aggregates"].update(visible_score=0.55, hidden_score=0.45, generalization_gap=0.1,
                                conditional_correctness=1.0, geomean_speedup=2.4, passed=len(statuses),
                                visible_passed=visible, visible_total=visible,
                                hidden_passed=len(statuses) - visible, hidden_total=len(statuses) - visible)
    report["environment"] = {"device": "cpu", "torch": "2.13.0", "triton": "3.5.0", "python": "3.11.2",
                             "triton_interpret": True, "host": "worker-1"}
    assert evaluations.ingest(evaluation.pk, "e2e-worker", report)
    expect(page.locator("td.state-scored")).to_have_count(1)
    expect(page.locator("h3:has-text('Workloads on cpu') + table tbody tr.hidden-workloads")).to_have_text(
        re.compile(rf"{len(statuses) - visible} hidden workloads?\s+{len(statuses) - visible} of"))
    expect(page.locator("svg.chart rect.bar")).to_have_count(visible)
    expect(page.locator("#live-note")).to_have_count(0)  # polling has stopped
    assert page.evaluate("window.notReloaded") is True
    page.screenshot(path=screenshots / "submission.png", full_page=True)
