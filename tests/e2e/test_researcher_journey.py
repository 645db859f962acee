"""A new researcher's whole first visit, in a real headless Chromium against a live server and a
real Celery worker: read what a score means, sign up, make a token (copy button) and revoke one
(asked first), read the problem's rules and follow them to the docs; find hardware with no worker
disabled in the form and a submission to it refused; submit a wrong kernel and a reward hack while
no worker is up and see each one's place in line, then watch both finish without reloading; see the
failure and the hack explained (the rule broken, a link to the rules, the board's exclusion);
upload a Triton kernel without naming its language, see it stored as Triton and scored, find it on
the board and follow its score to it.
A screenshot of every step goes to SOLARENA_SCREENSHOTS (else the test's tmp dir)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connections

from evaluator import workers
from tests.conftest import FIXTURES, SCALE_SHIFT_TRITON
from tests.e2e.conftest import needs_chromium, sign_up
from tests.platform import factories
from tests.platform import test_worker_end_to_end as end_to_end

pytestmark = needs_chromium
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

broker = end_to_end.broker  # the fixture: a flushed Redis database of this xdist process's own

DONE_WITHIN_MS = 120_000
RIGHT = "def run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
WRONG = "def run(x, bias):\n    return x * 3.0 + bias[None, :]\n"
HACK = "import torch\n\n\ndef run(a, b):\n    return torch.matmul(a, b)\n"  # tiny_matmul forbids it
USERNAME, PASSWORD = "ada", "a-Long-journey-passw0rd"


@pytest.mark.django_db(transaction=True)
def test_a_new_researchers_first_visit(live_server: Any, broker: str, browser_page: Any, screenshots: Path,
                                       tmp_path: Path, settings: Any) -> None:
    # Workers are expected for cpu (one starts halfway through); h100 has none and expects none.
    settings.SOLARENA_EXPECTED_HARDWARE = "cpu"
    try:
        _journey(live_server.url, broker, browser_page, screenshots, tmp_path)
    finally:
        connections.close_all()  # the greenlet's own connection (see test_browser_submission)


def _journey(url: str, broker: str, page: Any, shots: Path, tmp_path: Path) -> None:
    expect = sync_api.expect
    cache.clear()
    problem, cpu = factories.make_problem(), factories.make_hardware("cpu")
    matmul = factories.make_problem(FIXTURES / "problems" / "tiny_matmul")
    factories.make_hardware("h100")

    def shot(name: str, full_page: bool = True) -> None:
        page.screenshot(path=shots / f"journey-{name}.png", full_page=full_page)

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

    page.goto(f"{url}/problems/{problem.slug}/")
    rules = page.locator("#rules")
    expect(rules).to_contain_text("Correct on every workload")
    expect(rules).to_contain_text("Reward hacks")
    shot("04-rules")
    rules.locator("a:has-text('The full list')").click()
    page.wait_for_url(re.compile(r"/docs/security/$"))
    expect(page.locator("article.doc h1")).to_have_text("Security: running strangers' kernels")
    shot("05-docs")

    # The form says which hardware a worker serves; h100's box cannot be ticked.
    open_form(page, url, problem.slug)
    h100 = page.locator("label:has(input[name=hardware][value=h100])")
    expect(h100.locator("input")).to_be_disabled()
    expect(h100).to_contain_text("no worker online: submissions are refused")
    expect(hardware_label(page, "cpu")).to_contain_text("no worker online yet, workers expected")
    shot("06-form-offline-hardware")
    # A form loaded while an h100 worker was up, sent after it left: the server refuses it.
    workers.beat("h100-worker", ["h100"])
    page.reload()
    expect(h100).to_contain_text("1 worker online")
    workers.stop("h100-worker")
    h100.locator("input").check()
    page.fill("textarea[name=code]", RIGHT)
    page.click("button:has-text('Submit')")
    expect(page.locator("p.error")).to_contain_text(
        "no worker for h100 is online, so its evaluation would wait with no end; online now: cpu")
    assert re.search(r"/submit/(\?.*)?$", page.url), page.url
    shot("07-offline-refused")

    # No cpu worker yet: each evaluation waits, and its page says where in line.
    wrong = submit(page, url, problem.slug, WRONG)
    waiting = page.locator("#progress-cpu")
    expect(page.locator("td.state-queued")).to_have_text("queued")
    expect(waiting).to_contain_text("cpu: waiting for a cpu worker, number 1 in line.")
    expect(waiting).to_contain_text("No cpu worker is online yet; the operator says workers will come.")
    expect(page.locator("#live-note")).to_contain_text("Updating itself")
    shot("08-queued-first")
    hack = submit(page, url, matmul.slug, HACK)  # tiny_matmul is not the form's first problem
    expect(waiting).to_contain_text("number 2 in line.")
    shot("09-queued-second")

    with end_to_end.celery_worker(broker, tmp_path / "worker.log"):
        # The page updates itself (no reload) and stops once the evaluation is done.
        expect(page.locator("td.state-failed")).to_have_text("flagged: reward hack", timeout=DONE_WITHIN_MS)
        expect(page.locator("#live-note")).to_have_count(0)
        expect(page.locator("#status")).to_contain_text(
            "excluded from the leaderboard (flagged as reward hacking: see the problem's rules)")
        rows = page.locator("#workloads-cpu tbody tr:not(.hidden-workloads)")
        expect(rows).not_to_have_count(0)
        expect(rows.first.locator("td").nth(1)).to_have_text("REWARD_HACK")
        expect(rows.first.locator("td").nth(1).locator("a")).to_have_attribute(
            "href", f"/problems/{matmul.slug}/#rules")
        expect(rows.first.locator("td").nth(2)).to_have_text(
            "the solution refers to torch.matmul, which this problem forbids")
        hidden = page.locator("#workloads-cpu tr.hidden-workloads")
        expect(hidden).to_contain_text(re.compile(r"0 of \d+ passed"))
        assert page.url == hack
        shot("10-reward-hack-explained")
        page.locator("#status a:has-text(\"the problem's rules\")").click()
        page.wait_for_url(re.compile(rf"/problems/{matmul.slug}/#rules$"))
        expect(page.locator("#rules")).to_be_in_viewport()
        expect(page.locator("#rules")).to_contain_text("Forbidden: torch.matmul, torch.mm")
        expect(page.locator("#rules")).to_contain_text("Calling one, under any name")
        shot("11-rule-broken", full_page=False)  # where the link left the reader

        page.goto(wrong)
        expect(page.locator("td.state-failed")).to_contain_text("incorrect on every workload",
                                                                timeout=DONE_WITHIN_MS)
        page.reload()
        expect(page.locator("body")).to_contain_text("INCORRECT_NUMERICAL")
        assert "{#" not in page.locator("body").inner_text()  # no template comment shows
        shot("12-failure-explained")

        # A Triton file uploaded with the language left to the server: stored and shown as Triton.
        open_form(page, url, problem.slug)
        expect(hardware_label(page, "cpu")).to_contain_text("1 worker online")
        expect(page.locator("select[name=language] option:checked")).to_have_text("infer it from the sources")
        right = submit(page, url, problem.slug, upload=("scale_shift_triton.py", SCALE_SHIFT_TRITON))
        expect(page.locator("p.subtitle")).to_contain_text("· Triton ·")
        shot("13-triton-submitted")
        expect(page.locator("td.state-scored")).to_have_count(1, timeout=DONE_WITHIN_MS)
    assert len({wrong, hack, right}) == 3

    # The hack's board lists the researcher without a score, and says why.
    page.goto(f"{url}/boards/problems/{matmul.slug}/{cpu.slug}/")
    excluded = page.locator(f"table.board tbody tr:has(a:text-is('{USERNAME}'))")
    expect(excluded).to_have_class("unscored")
    expect(excluded.locator("td.unscored").first).to_have_text("no valid score")
    expect(excluded).to_contain_text("reward hack: flagged by the harness")  # its status says why
    expect(page.locator("p.help")).to_contain_text(
        "Participants without a valid score (every workload failed, or reward hacks) are listed last, "
        "each with the reason in its status")
    shot("14-board-excluded")

    page.goto(f"{url}/boards/problems/{problem.slug}/{cpu.slug}/")
    best = page.locator("table.board tbody tr").first
    expect(best).to_contain_text(USERNAME)
    shot("15-board")
    best.locator("td.num a").first.click()
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))
    assert page.url == right
    expect(page.locator("p.subtitle")).to_contain_text("· Triton ·")
    shot("16-best-submission")


def hardware_label(page: Any, slug: str) -> Any:
    return page.locator(f"label:has(input[name=hardware][value={slug}])")


def open_form(page: Any, url: str, problem: str) -> None:
    """The form through the problem page's link, which preselects the problem."""
    page.goto(f"{url}/problems/{problem}/")
    page.click("a:has-text('submit a solution')")
    sync_api.expect(page.locator("select[name=problem]")).to_have_value(problem)


def submit(page: Any, url: str, problem: str, code: str = "", upload: tuple[str, str] | None = None) -> str:
    """Pasted `code`, or an uploaded (name, text), on cpu with the language left to infer."""
    open_form(page, url, problem)
    page.check("input[name=hardware][value=cpu]")
    if upload:
        name, text = upload
        page.set_input_files("input[name=file]", files=[{"name": name, "mimeType": "text/x-python",
                                                         "buffer": text.encode()}])
    else:
        page.fill("textarea[name=code]", code)
    page.click("button:has-text('Submit')")
    page.wait_for_url(re.compile(r"/submissions/\d+/$"))
    return page.url
