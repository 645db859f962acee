"""`solarena agent-results` and `agent-compare` send the stored token: the owner reads their private
upload, and without the token the server answers that there is no such upload (issue 38)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cli.support import Server
from tests.platform import factories
from tests.platform.factories import workload_aggregates


def test_the_owner_reads_a_private_upload_and_others_do_not(logged_in: Server, cli: Any,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    runs = {logged_in.problem: workload_aggregates([0.5], [0.5])}
    public = factories.make_agent_upload(logged_in.user, "forge", runs, logged_in.cpu, version="1.0")
    private = factories.make_agent_upload(logged_in.user, "forge", runs, logged_in.cpu, version="2.0",
                                          private=True)
    results = cli("agent-results", str(private.pk), "--json")
    assert results.code == 0, results.err
    assert results.json()["version"] == "2.0"
    compared = cli("agent-compare", str(public.pk), str(private.pk), "--json")
    assert compared.code == 0, compared.err
    assert (compared.json()["b"]["version"], compared.json()["better"]) == ("2.0", None)

    monkeypatch.delenv("SOLARENA_TOKEN")
    refused = cli("agent-results", str(private.pk))
    assert refused.code == 2 and f"no agent submission #{private.pk}" in refused.err
    refused = cli("agent-compare", str(public.pk), str(private.pk))
    assert refused.code == 2 and f"no agent submission #{private.pk}" in refused.err
