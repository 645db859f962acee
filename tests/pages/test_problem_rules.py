"""A problem page shows its rules before anyone is punished by them: the tolerance, the forbidden
operations, the languages accepted and what counts as a reward hack, with links to the docs."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from tests.conftest import ROOT
from tests.platform import factories

pytestmark = pytest.mark.django_db


def rules_of(client: Client, name: str) -> str:
    page = html.unescape(client.get(f"/problems/{name}/").content.decode())
    start = page.index('<section id="rules">')
    return " ".join(page[start:page.index("</section>", start)].split())


def test_the_forbidden_operations_and_the_tolerance_are_on_the_page(client: Client) -> None:
    factories.make_problem(ROOT / "problems" / "softmax")
    rules = rules_of(client, "softmax")
    for name in ("torch.softmax", "torch.nn.functional.softmax", "torch.Tensor.softmax"):
        assert f"<code>{name}</code>" in rules
    assert "at least 99% of each output's elements" in rules
    assert "within 1.00e-10 + 0.000100 × |reference|" in rules
    assert "PyTorch, Triton, CUDA C++" in rules
    assert 'href="/docs/security/"' in rules and 'href="/docs/solution-format/"' in rules


def test_a_problem_that_forbids_nothing_says_so(client: Client) -> None:
    problem = factories.make_problem()
    rules = rules_of(client, problem.name)
    assert "no operation beyond the general rules" in rules
    assert "within 1.00e-05 + 1.00e-05 × |reference|" in rules
