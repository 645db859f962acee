"""The agent page's compare form: two of the uploads it lists compared, correct first; a benchmark
upload, which no agent page shows, is refused with a message saying where to compare it (issue 38)."""

from __future__ import annotations

import pytest
from django.test import Client

from leaderboard.models import Hardware
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
COMPARE = "/agents/ada/forge/compare/"


def test_the_form_compares_and_a_benchmark_upload_is_explained(client: Client, cpu: Hardware) -> None:
    norm = factories.make_named_problem("rmsnorm", task_type="from_reference")
    ada = factories.make_participant("ada")
    overfitted = factories.make_agent_upload(
        ada, "forge", {norm: workload_aggregates([0.00465] * 3, [None] * 2)}, cpu, version="1")
    correct = factories.make_agent_upload(ada, "forge", {norm: workload_aggregates([0.00234] * 5, [])}, cpu,
                                          version="1.1")
    benchmark = factories.make_agent_upload(ada, "forge", {norm: workload_aggregates([0.5], [0.5])}, cpu,
                                            version="2.0", mode="benchmark")
    client.force_login(ada)
    page = client.get("/agents/ada/forge/").content.decode()
    assert f'action="{COMPARE}"' in page and f'value="{overfitted.pk}"' in page
    compared = client.get(COMPARE, {"a": overfitted.pk, "b": correct.pk})
    assert compared.status_code == 200
    assert "<strong>b is better</strong>" in compared.content.decode()

    refused = client.get(COMPARE, {"a": correct.pk, "b": benchmark.pk})
    body = refused.content.decode()
    assert refused.status_code == 400
    assert f"b={benchmark.pk} is a benchmark upload" in body and "solarena agent-compare" in body
    anonymous = Client().get(COMPARE, {"a": correct.pk, "b": benchmark.pk}).content.decode()
    assert "is not an upload of this agent" in anonymous and "benchmark" not in anonymous
