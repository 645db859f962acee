"""Every page kind carries a Content-Security-Policy that allows nothing inline, and renders in a
real Chromium without a single CSP violation (the console reports each one); the API's Swagger
page has its own, looser policy."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connections
from django.test import Client

from evaluator.models import Evaluation
from tests.e2e.conftest import needs_chromium
from tests.e2e.test_public_pages import new_page, seed
from tests.platform import factories

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


@pytest.mark.django_db
def test_every_response_has_a_policy_without_inline_code(client: Client) -> None:
    factories.make_problem()
    for url in ("/", "/problems/", "/problems/scale_shift/", "/accounts/login/", "/accounts/signup/"):
        policy = client.get(url)["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "style-src 'self'" in policy, (url, policy)
        assert "unsafe-inline" not in policy and "object-src 'none'" in policy, (url, policy)
    swagger = client.get("/api/v1/docs/")["Content-Security-Policy"]
    assert "'unsafe-inline'" in swagger and "https://cdn.jsdelivr.net" in swagger


@needs_chromium
@pytest.mark.django_db(transaction=True)
def test_no_page_kind_violates_the_policy_in_chromium(live_server: Any, browser: Any) -> None:
    try:
        _visit_every_kind(live_server.url, browser, seed())
    finally:
        connections.close_all()  # the ORM ran in Playwright's greenlet


def _visit_every_kind(url: str, browser: Any, arena: dict[str, Any]) -> None:
    problem, ada = arena["problem"], arena["ada"]
    scored = Evaluation.objects.filter(submission__owner=ada, state=Evaluation.SCORED).first()
    running = factories.make_evaluation(owner=ada, problem=problem, hardware=arena["h200"],
                                        state=Evaluation.RUNNING)
    violations: list[str] = []
    page = new_page(browser)
    page.on("console", lambda message: violations.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text else None)
    public = ["/", "/problems/", f"/problems/{problem.slug}/", f"/boards/problems/{problem.slug}/h200/",
              "/u/ada/", "/agents/ada/kernelsmith/", "/hardware/", "/hardware/h200/", "/accounts/login/",
              "/accounts/signup/", "/api/v1/docs/"]
    for path in public:
        page.goto(f"{url}{path}")
        page.wait_for_load_state("load")
    page.goto(f"{url}/accounts/login/")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", "x")
    page.click("button[type=submit], input[type=submit]")
    page.wait_for_load_state("load")
    for path in ("/submit/", "/submissions/", f"/submissions/{scored.submission_id}/",
                 f"/submissions/{running.submission_id}/", "/accounts/profile/"):
        page.goto(f"{url}{path}")
        page.wait_for_load_state("load")
    page.wait_for_timeout(2500)  # the running submission's part is fetched again every 2 s (htmx)
    assert violations == []
