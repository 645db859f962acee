"""The admin's review flag for probing the hidden workloads through their aggregates: one owner's
evaluations with the same visible verdicts and differing hidden passed counts are listed under
"probing hidden workloads: suspected"; honest variation is not."""

from __future__ import annotations

import pytest
from django.test import Client

from evaluator.counting import counted
from evaluator.models import Evaluation
from evaluator.probing import MIN_PROBES, suspected_probes
from tests.platform import factories

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/evaluator/evaluation/"


def evaluation_of(submission_id: int) -> int:
    """The submission's evaluation (the leading probe has a confirmation run besides)."""
    return counted().get(submission_id=submission_id).pk


def test_alike_visible_results_with_differing_hidden_counts_are_flagged(admin_client: Client) -> None:
    problem, cpu = factories.make_problem(), factories.make_hardware("cpu")
    prober, steady, few = (factories.make_user(name) for name in ("prober", "steady", "few"))
    probes = [("PASSED", "INCORRECT_SHAPE"), ("RUNTIME_ERROR", "PASSED"), ("PASSED", "PASSED")]
    flagged = {evaluation_of(factories.make_probe(prober, problem, cpu, verdicts)) for verdicts in probes}
    # The same hidden count every time (resubmitting one solution), or too few to tell.
    for _ in range(MIN_PROBES):
        factories.make_probe(steady, problem, cpu, ("PASSED", "INCORRECT_SHAPE"))
    for verdicts in probes[:MIN_PROBES - 1]:
        factories.make_probe(few, problem, cpu, verdicts)

    assert suspected_probes() == flagged
    body = admin_client.get(CHANGELIST, {"probing": "suspected"}).content.decode()
    shown = {pk for pk in Evaluation.objects.values_list("pk", flat=True) if f"/{pk}/change/" in body}
    assert shown == flagged
    assert "probing hidden workloads" in admin_client.get(CHANGELIST).content.decode()
