"""The problem page says where its SOL bounds' FLOPs and bytes come from: the definition, the
reference (counted at sync), or nowhere (memory-only, with the reason)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from django.test import Client

from leaderboard.models import Hardware, Problem, Workload
from tests.platform.test_sync_counts_flops import without_sol
from tests.platform.test_sync_problems import sync

pytestmark = pytest.mark.django_db


def bound_source(client: Client, name: str) -> str:
    body = client.get(f"/problems/{name}/").content.decode()
    line = re.search(r'<p class="muted" id="bound-source">(.*?)</p>', body, flags=re.DOTALL)
    assert line, "no bound-source line on the page"
    return html.unescape(re.sub(r"\s+", " ", line[1]))


def test_a_problem_with_sol_expressions(client: Client, problem: Problem, cpu: Hardware) -> None:
    assert bound_source(client, problem.name) == "FLOPs from the definition; bytes from the definition."


def test_a_problem_without_them(client: Client, tmp_path: Path) -> None:
    sync(without_sol(tmp_path).parent)
    assert bound_source(client, "tiny_matmul") == (
        "FLOPs derived from the reference; bytes derived from the inputs and outputs.")


def test_a_reference_that_could_not_be_counted(client: Client, tmp_path: Path) -> None:
    sync(without_sol(tmp_path, "def run(a, b):\n    return a[: int(a.sum().item())]\n").parent)
    visible = Workload.objects.filter(problem__name="tiny_matmul", visibility=Workload.VISIBLE).count()
    assert bound_source(client, "tiny_matmul") == (
        f"FLOPs not counted for {visible} workloads (memory-only bound: the reference did not run on "
        "fake tensors: DataDependentOutputException: aten._local_scalar_dense.default); bytes derived "
        "from the inputs and outputs.")


def test_some_workloads_counted_and_one_not(client: Client, tmp_path: Path) -> None:
    sync(without_sol(tmp_path).parent)
    first = Workload.objects.filter(problem__name="tiny_matmul", visibility=Workload.VISIBLE).first()
    Workload.objects.filter(pk=first.pk).update(reference_flops=None, flops_note="too many operators")
    assert bound_source(client, "tiny_matmul") == (
        "FLOPs derived from the reference, not counted for 1 workload (memory-only bound: too many "
        "operators); bytes derived from the inputs and outputs.")
