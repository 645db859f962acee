"""A new researcher's whole first visit, in a real headless Chromium against a live server and a
real Celery worker: read what a score means, sign up, make a token (copy button) and revoke one
(asked first), read the problem's rules and follow them to the docs, submit a wrong kernel and see
the failure explained, submit a right one, find it on the board and follow its score to it.
A screenshot of every step goes to SOLARENA_SCREENSHOTS (else the test's tmp dir)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connections

from tests.e2e.conftest import needs_chromium, sign_up
from tests.platform import factories
from tests.platform import test_worker_end_to_end as end_to_end

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

broker = end_to_end.broker  # the fixture: a flushed Redis database of this xdist process's own

DONE_WITHIN_MS = 120_000
RIGHT = "def run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
WRONG = "def run(x, bias):\n    return x * 3.0 + bias[None, :]\n"
USERNAME, PASSWORD = "ada", "a-Long-journey-passw0rd"


@pytest.mark.django_db(transaction=True)
def test_a_new_researchers_first_visit(live_server: Any, broker: str, browser_page: Any, screenshots: Path,
                                       tmp_path: Path) -> None:
    try:
        _journey(live_server.url, broker, browser_page, screenshots, tmp_path)
    finally:
        connections.close_all()  # the greenlet's own connection (see test_browser_submission)


def _journey(url: str, broker: str, page: Any, shots: Path, tmp_path: Path) -> None:
    expect = sync_api.expect
    cache.clear()
    problem, cpu = factories.make_problem(), factories.make_hardware("cpu")

    def shot(name: str) -> None:
        page.screenshot(path=shots / f"journey-{name}.png", full_page=True)

    page.goto(f"{url}/")
    expect(page.locator(".score-explained")).to_contain_text("0.5 when it matches the problem's baseline")
    shot("01-home")

    sign_up(page, url, USERNAME, PASSWORD)
    page.fill("input[name=name]", "laptop")
    page.click("button:has-text('Create token')")
    expect(page.locator("button[data-copy=new-token-secret]")).to_be_visible()
    shot("02-token")
    page.goto(f"{url}/accounts/profile/")
    confirm = page.locator("details.confirm")
    expect(confirm.locator("button:has-text('Yes, revoke it')")).to_be_hidden()  # asked first
    confirm.locator("summary").click()
    expect(confirm).to_contain_text("Revoke “laptop”?")
    shot("03-revoke-asked")
    confirm.locator("button:has-text('Yes, revoke it')").click()
    expect(page.locator("table")).to_contain_text("revoked")

    page.goto(f"{url}/problems/{problem.name}/")
    rules = page.locator("#rules")
    expect(rules).to_contain_text("Correct on every workload")
    expect(rules).to_contain_text("Reward hacks")
    shot("04-rules")
    rules.locator("a:has-text('The full list')").click()
    page.wait_for_url(re.compile(r"/docs/security/$"))
    expect(page.locator("article.doc h1")).to_have_text("Security: running strangers' kernels")
    shot("05-docs")

    with end_to_end.celery_worker(broker, tmp_path / "worker.log"):
        wrong = submit(page, url, problem.name, cpu.slug, WRONG)
        expect(page.locator("td.state-failed")).to_contain_text("incorrect on every workload",
                                                                timeout=DONE_WITHIN_MS)
        page.reload()
        expect(page.locator("body")).to_contain_text("INCORRECT_NUMERICAL")
        assert "{#" not in page.locator("body").inner_text()  # no template comment shows
        shot("06-failure-explained")
        right = submit(page, url, problem.name, cpu.slug, RIGHT)
        expect(page.locator("td.state-scored")).to_have_count(1, timeout=DONE_WITHIN_MS)
    assert wrong != right

    page.goto(f"{url}/boards/problems/{problem.name}/{cpu.slug}/")
    best = page.locator("table.board tbody tr").first
    expect(best).to_contain_text(USERNAME)
    shot("07-board")
    best.locator("td.num a").first.click()
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))
    assert page.url == right
    shot("08-best-submission")


def submit(page: Any, url: str, problem: str, hardware: str, code: str) -> str:
    page.goto(f"{url}/problems/{problem}/")
    page.click("a:has-text('submit a solution')")  # the problem comes preselected
    assert page.locator("select[name=problem]").input_value() == problem
    page.check(f"input[name=hardware][value={hardware}]")
    page.fill("textarea[name=code]", code)
    page.click("button:has-text('Submit')")
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))
    return page.url
