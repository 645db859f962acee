"""`solarena agent-frontier --hardware H` prints the agent board's score-versus-cost frontier (the
server's, cheapest first), the uploads it beats and those whose manifest gives no cost; `--json` the
API's document; `agent-results` shows each problem's cost, tokens and wall time."""

from __future__ import annotations

from typing import Any

from submissions.models import Submission
from tests.cli.support import Server
from tests.platform import factories
from tests.platform.factories import workload_aggregates


def test_the_frontier_the_beaten_and_the_uncosted(logged_in: Server, cli: Any) -> None:
    problem, cpu, user = logged_in.problem, logged_in.cpu, logged_in.user
    cheap = factories.make_agent_upload(user, "forge", {problem: workload_aggregates([0.9], [None])}, cpu,
                                        version="1.0", cost_usd=1.0, tokens=1000)
    better = factories.make_agent_upload(user, "forge", {problem: workload_aggregates([0.9], [0.7])}, cpu,
                                         version="1.1", cost_usd=4.5)
    factories.make_agent_upload(user, "tuner", {problem: workload_aggregates([0.6], [0.6])}, cpu,
                                version="0.1", cost_usd=10)
    factories.make_agent_upload(user, "free", {problem: workload_aggregates([0.9], [0.9])}, cpu)

    shown = cli("agent-frontier", "--hardware", "cpu")
    assert shown.code == 0, shown.err
    text = " ".join(shown.out.split())
    assert "the frontier: no other upload scores at least as high for at most the cost" in text
    assert "beaten on both counts by an upload of the frontier" in text
    assert "no cost given (not compared): free 1.0" in text
    forge = [line for line in shown.out.splitlines() if "forge" in line]
    assert "1.0" in forge[0] and "1000" in forge[0] and "1.1" in forge[1]  # cheapest first
    document = cli("agent-frontier", "--hardware", "cpu", "--json").json()
    assert [e["agent_submission"] for e in document["frontier"]] == [cheap.pk, better.pk]
    assert cli("agent-frontier", "--hardware", "tpu").code == 2

    Submission.objects.filter(agent_submission=cheap).update(agent_usage={
        "cost_usd": 0.75, "tokens_input": 600, "tokens_output": 150, "wall_seconds": 42})
    results = cli("agent-results", str(cheap.pk))
    assert results.code == 0, results.err
    assert "cost USD" in results.out and all(cell in results.out for cell in ("0.750", "600/150", "42.0"))


def test_an_empty_board_says_so(logged_in: Server, cli: Any) -> None:
    shown = cli("agent-frontier", "--hardware", "cpu")
    assert shown.code == 0 and "no entries yet" in shown.out
