"""The board pages and the home page in a real headless Chromium: each page kind loads, its table is
in rank order, a column header re-sorts it, the filters work without JavaScript, and a screenshot of
each kind is saved (to $SOLARENA_SCREENSHOTS, default a temporary folder). Skipped where Playwright
or Debian's chromium is missing (scripts/setup installs both)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import connections

from accounts.services import profile_of
from tests.e2e.conftest import needs_chromium
from tests.platform import factories

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


def seed() -> None:
    """Two categories on two GPUs; ties, a participant whose kernels all fail, a reward hack, agents."""
    cpu, h200 = factories.make_hardware("cpu"), factories.make_hardware("h200")
    gemm, norm = factories.make_named_problem("gemm_bf16"), factories.make_named_problem("rmsnorm")
    tuned = factories.make_named_problem("softmax_tuned", task_type="optimize_triton")
    quant = factories.make_named_problem("fp8_quant", category="quant")
    names = ("ada", "grace", "linus", "barbara", "ken", "dennis")
    users = {name: factories.make_participant(name) for name in names}
    for name, team in (("ada", "Analytical Engines"), ("grace", "COBOL Crew"), ("ken", "Bell Labs")):
        profile = profile_of(users[name])
        profile.team = team
        profile.save()
    figures = {"ada": (0.91, 0.95, 0.87, 1.0, 3.2), "grace": (0.84, 0.83, 0.85, 1.0, 2.6),
               "linus": (0.84, 0.9, 0.78, 0.5, 2.4), "ken": (0.62, 0.7, 0.54, 0.75, 1.4)}
    for name, (score, visible, hidden, conditional, speedup) in figures.items():
        factories.make_scored(users[name], gemm, h200, score, visible_score=visible, hidden_score=hidden,
                              generalization_gap=visible - hidden, conditional_correctness=conditional,
                              geomean_speedup=speedup)
    factories.make_scored(users["barbara"], gemm, h200, 0.0, verdict="RUNTIME_ERROR")
    factories.make_scored(users["dennis"], gemm, h200, 0.0, verdict="REWARD_HACK")
    for name, score in (("grace", 0.77), ("ken", 0.71), ("ada", 0.2)):
        factories.make_scored(users[name], norm, h200, score, geomean_speedup=1.8)
    factories.make_scored(users["ken"], tuned, h200, 0.93)
    factories.make_scored(users["linus"], quant, h200, 0.66)
    factories.make_scored(users["grace"], gemm, cpu, 0.5)
    factories.make_agent_run(users["ada"], "kernel-forge", {gemm: 0.72, norm: 0.64}, h200, "1.3", "claude-x")
    factories.make_agent_run(users["ken"], "tritonizer", {gemm: 0.81, norm: 0.69}, h200, "0.9", "gpt-y")
    factories.make_agent_run(users["grace"], "autotune", {gemm: 0.4, norm: None}, h200, "2.0", "local-70b")


def column(page: Any, index: int) -> list[str]:
    cells = page.locator(f"table.board tbody tr td:nth-child({index})")
    return [text.strip() for text in cells.all_inner_texts()]


@pytest.mark.django_db(transaction=True)
def test_board_pages_in_chromium(live_server: Any, browser_page: Any, screenshots: Path) -> None:
    try:
        seed()
        _browse(live_server.url, browser_page, screenshots)
    finally:
        # Playwright's sync API runs this body in a greenlet whose database connection pytest-django
        # does not close; close it so the test database can be dropped.
        connections.close_all()


def _browse(url: str, page: Any, screenshots: Path) -> None:
    expect = sync_api.expect

    page.goto(f"{url}/")
    cell = page.locator("table.overview tbody tr", has_text="L1").locator("td").nth(1)
    expect(cell).to_have_text("ken Bell Labs 0.753")  # (0.62 + 0.71 + 0.93) / 3 beats (0.84 + 0.77 + 0) / 3
    page.screenshot(path=str(screenshots / "home.png"), full_page=True)

    cell.locator("a").click()
    page.wait_for_url("**/boards/categories/l1/h200/")
    assert column(page, 2) == ["ken", "grace", "ada", "linus", "barbara", "dennis"]
    assert column(page, 4)[-2:] == ["no valid score", "no valid score"]
    page.screenshot(path=str(screenshots / "board_category.png"), full_page=True)
    page.select_option("select[name=task_type]", "optimize_triton")
    page.click("button:has-text('Filter')")
    page.wait_for_url("**/boards/categories/l1/h200/?task_type=optimize_triton")
    assert column(page, 2) == ["ken"]

    page.goto(f"{url}/boards/problems/gemm_bf16/h200/")
    assert column(page, 1) == ["1", "2–3", "2–3", "4", "–", "–"]  # 2 and 3: equal scores, tied
    assert column(page, 2) == ["ada", "grace", "linus", "ken", "barbara", "dennis"]  # grace: tie, earlier
    page.screenshot(path=str(screenshots / "board_problem.png"), full_page=True)
    page.click("table.board th a:has-text('cond. correct')")
    page.wait_for_url("**/boards/problems/gemm_bf16/h200/?sort=-conditional_correctness")
    assert column(page, 2) == ["ada", "grace", "ken", "linus", "barbara", "dennis"]
    page.click("table.board th a:has-text('visible')")
    page.wait_for_url("**/boards/problems/gemm_bf16/h200/?sort=-visible_score")
    assert column(page, 2)[:4] == ["ada", "linus", "grace", "ken"]
    page.click("table.board th a:has-text('visible')")  # again: the other way
    page.wait_for_url("**/boards/problems/gemm_bf16/h200/?sort=visible_score")
    assert column(page, 2)[:4] == ["ken", "grace", "linus", "ada"]
    page.click("ul.tabs a:has-text('cpu')")
    page.wait_for_url("**/boards/problems/gemm_bf16/cpu/?sort=visible_score")
    assert column(page, 2) == ["grace"]

    page.goto(f"{url}/boards/agents/h200/")
    assert column(page, 2) == ["tritonizer", "kernel-forge", "autotune"]
    assert column(page, 4) == ["gpt-y", "claude-x", "local-70b"]
    page.screenshot(path=str(screenshots / "board_agents.png"), full_page=True)
