"""CPU results carry their note (the Triton interpreter's times say nothing of a GPU) wherever
they appear: the boards of the cpu hardware, each cpu evaluation on a submission's page, and the
API's evaluations; a GPU's carry none."""

from __future__ import annotations

import html

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from tests.platform import factories

pytestmark = pytest.mark.django_db
NOTE = "say nothing of a GPU's speed"


def text(client: Client, url: str) -> str:
    return html.unescape(client.get(url).content.decode())


def test_cpu_boards_and_evaluations_carry_the_note_and_gpu_boards_do_not(client: Client) -> None:
    problem, cpu = factories.make_problem(), factories.make_hardware("cpu")
    h200 = factories.make_hardware("h200")
    evaluation = factories.make_scored(factories.make_participant("ada"), problem, cpu, 0.4)
    assert NOTE in text(client, f"/boards/problems/{problem.name}/cpu/")
    assert NOTE in text(client, f"/boards/categories/{problem.category.slug}/cpu/")
    assert NOTE not in text(client, f"/boards/problems/{problem.name}/{h200.slug}/")
    assert NOTE in text(client, f"/submissions/{evaluation.submission_id}/")


def test_the_pages_that_list_cpu_results_carry_the_note(client: Client) -> None:
    problem, cpu = factories.make_problem(), factories.make_hardware("cpu")
    ada = factories.make_participant("ada")
    factories.make_scored(ada, problem, cpu, 0.4)
    factories.make_agent_run(ada, "bot", {problem: 0.3}, cpu)
    for url in (f"/problems/{problem.slug}/?hardware=cpu", "/u/ada/", "/agents/ada/bot/", "/"):
        body = text(client, url)
        assert NOTE in body and "cpu: CPU times come from" in body, url


def test_pages_with_gpu_results_only_carry_none(client: Client) -> None:
    problem, h200 = factories.make_problem(), factories.make_hardware("h200")
    factories.make_scored(factories.make_participant("ada"), problem, h200, 0.4)
    for url in (f"/problems/{problem.slug}/?hardware=h200", "/u/ada/", "/"):
        assert NOTE not in text(client, url), url


def agent_pages_of_ada(slug: str) -> tuple[list[str], AbstractBaseUser]:
    """Ada's submission and two uploads of her agent on the hardware: the agent board, its
    score-versus-cost page and the two uploads compared; and ada, to read her own list."""
    problem, hardware = factories.make_problem(), factories.make_hardware(slug)
    ada = factories.make_participant("ada")
    factories.make_scored(ada, problem, hardware, 0.4)
    first = factories.make_agent_run(ada, "bot", {problem: 0.3}, hardware)
    second = factories.make_agent_run(ada, "bot", {problem: 0.5}, hardware, version="2")
    return [f"/boards/agents/{slug}/", f"/boards/agents/{slug}/frontier/",
            f"/agents/ada/bot/compare/?a={first.pk}&b={second.pk}"], ada


def test_the_agent_pages_and_my_submissions_carry_the_note(client: Client) -> None:
    pages, ada = agent_pages_of_ada("cpu")
    for url in pages:
        assert NOTE in text(client, url), url
    client.force_login(ada)
    assert "cpu: CPU times come from" in text(client, "/submissions/")


def test_gpu_agent_pages_and_my_gpu_submissions_carry_none(client: Client) -> None:
    pages, ada = agent_pages_of_ada("h200")
    for url in pages:
        assert NOTE not in text(client, url), url
    client.force_login(ada)
    assert NOTE not in text(client, "/submissions/")
