"""`solarena agents` shows the board's generalization figures, `agent-results ID` one upload problem
by problem, `agent-compare A B` two uploads with their deltas, and `submit-agent` with a version
already uploaded stops with the server's message (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from leaderboard.models import Problem
from tests.api.test_agent_submissions_api import another_problem
from tests.cli.support import Server
from tests.platform import factories
from tests.platform.factories import workload_aggregates


def uploads(server: Server) -> tuple[Any, Any]:
    other = another_problem("norm")
    Problem.objects.filter(pk=other.pk).update(task_type="optimize_triton")
    before = {server.problem: workload_aggregates([0.9], [None])}
    after = {server.problem: workload_aggregates([0.9], [0.7]), other: workload_aggregates([0.4], [0.4])}
    first = factories.make_agent_upload(server.user, "forge", before, server.cpu, version="1.0")
    later = factories.make_agent_upload(server.user, "forge", after, server.cpu, version="2.0")
    return first, later


def test_the_board_results_and_compare(logged_in: Server, cli: Any) -> None:
    first, later = uploads(logged_in)
    board = cli("agents", "--hardware", "cpu")
    assert board.code == 0, board.err
    text = " ".join(board.out.split())
    assert "correctness gap" in text and "speed gap" in text and "one row per upload" in text
    lines = [line for line in board.out.splitlines() if "forge" in line]
    assert len(lines) == 2 and "2.0" in lines[0] and "1.0" in lines[1]
    triton = cli("agents", "--hardware", "cpu", "--task-type", "optimize_triton", "--json").json()
    assert [e["version"] for e in triton["entries"]] == ["2.0"]

    results = cli("agent-results", str(first.pk))
    assert results.code == 0, results.err
    assert "left out (each counts 0): norm" in results.out and "0/2" not in results.out
    assert cli("agent-results", str(first.pk), "--json").json()["hardware"][0]["missing_problems"] == ["norm"]

    versus = cli("agent-compare", str(first.pk), str(later.pk))
    assert versus.code == 0, versus.err
    assert "problem by problem, b - a" in versus.out and "+0.375" in versus.out  # the suite score's delta
    compared = cli("agent-compare", str(first.pk), str(later.pk), "--json").json()
    assert [row["change"] for row in compared["problems"]] == ["left out -> all workloads",
                                                               "visible only -> all workloads"]
    assert "b scores higher on 2 problems and lower on 0" in versus.out
    missing = cli("agent-compare", str(first.pk), "999999")
    assert missing.code == 2 and "no agent submission #999999" in missing.err


def test_a_repeated_version_stops_with_the_servers_message(logged_in: Server, tmp_path: Path,
                                                           cli: Any) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "manifest.json").write_text(json.dumps({"name": "forge", "version": "1.0", "model": "m"}))
    (bundle / "scale_shift.py").write_text(factories.CORRECT)
    assert cli("submit-agent", str(bundle), "--hardware", "cpu").code == 0
    again = cli("submit-agent", str(bundle), "--hardware", "cpu")
    assert again.code == 2 and "'forge' version '1.0' is already uploaded" in again.err
    checked = cli("submit-agent", str(bundle), "--hardware", "cpu", "--check")
    assert checked.code == 2 and "give this run another version" in checked.err
    assert cli("submit-agent", str(bundle), "--hardware", "cpu", "--check", "--mode", "test").code == 0
