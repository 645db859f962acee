"""`solarena agents` shows the board's generalization figures, `agent-results ID` one upload problem
by problem, `agent-compare A B` two uploads with their deltas, and `submit-agent` with a version
already uploaded stops with the server's message (exit 2); `submit-agent --check` reads C++/CUDA
sources as the API's dry run does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from leaderboard.models import Problem
from tests.api.test_agent_submissions_api import another_problem
from tests.cli.support import Server
from tests.platform import factories
from tests.platform.factories import workload_aggregates


def cells(out: str, key: int = 0) -> list[list[str]]:
    """The body rows of the first table in `out` as lists of cell texts, the lines the CLI's width
    wraps a row into joined back (a row's continuation lines leave its `key` cell, a short number,
    empty)."""
    rows: list[list[str]] = []
    body = out.split("┡", 1)[1].split("└", 1)[0]
    for line in body.splitlines():
        if not line.startswith("│"):
            continue
        parts = [part.strip() for part in line.strip().strip("│").split("│")]
        if parts[key] or not rows:
            rows.append(parts)
        else:
            rows[-1] = [a + b for a, b in zip(rows[-1], parts, strict=True)]
    return rows


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
    # 2.0: scale_shift 0.9 visible, 0.7 hidden (passed, slower); norm 0.4 both. 1.0: scale_shift's
    # hidden workload failed, norm left out. Score, solved, all visible, all workloads, visible,
    # hidden, gap, correctness gap, speed gap, conditional correctness:
    figures = [row[6:16] for row in cells(board.out)]
    assert figures == [["0.600", "2", "2", "2", "0.650", "0.550", "0.100", "0", "0.100", "100%"],
                       ["0.225", "1", "1", "0", "0.450", "0", "0.450", "1.00", "-", "0%"]]
    entries = cli("agents", "--hardware", "cpu", "--json").json()["entries"]
    assert [(e["version"], e["correctness_gap"], e["speed_gap"]) for e in entries] == [
        ("2.0", 0.0, pytest.approx(0.1)), ("1.0", 1.0, None)]
    assert [(e["visible_score"], e["hidden_score"], e["generalization_gap"]) for e in entries] == [
        pytest.approx((0.65, 0.55, 0.1)), pytest.approx((0.45, 0.0, 0.45))]
    triton = cli("agents", "--hardware", "cpu", "--task-type", "optimize_triton", "--json").json()
    assert [e["version"] for e in triton["entries"]] == ["2.0"]

    results = cli("agent-results", str(first.pk))
    assert results.code == 0, results.err
    assert "left out (each counts 0): norm" in results.out and "0/2" not in results.out
    assert cli("agent-results", str(first.pk), "--json").json()["hardware"][0]["missing_problems"] == ["norm"]
    shown = cli("agent-results", str(later.pk))
    assert cells(shown.out, key=1)[0][1:11] == [  # the suite, as on the board
        "0.600", "2", "2", "2", "0.650", "0.550", "0.100", "0", "0.100", "100%"]
    problems = cells(shown.out.split("problems on cpu", 1)[1], key=3)
    assert [row[:10] for row in problems] == [  # problem, task type, outcome, score, visible, hidden,
        # visible passed, hidden passed, correctness gap, speed gap
        ["norm", "optimize_triton", "scored", "0.400", "0.400", "0.400", "1/1", "1/1", "0", "0"],
        ["scale_shift", "from_reference", "scored", "0.800", "0.900", "0.700", "1/1", "1/1", "0", "0.200"]]

    versus = cli("agent-compare", str(first.pk), str(later.pk))
    assert versus.code == 0, versus.err
    assert "problem by problem, b - a" in versus.out and "+0.375" in versus.out  # the suite score's delta
    compared = cli("agent-compare", str(first.pk), str(later.pk), "--json").json()
    assert [row["change"] for row in compared["problems"]] == ["left out -> all workloads",
                                                               "visible only -> all workloads"]
    assert "b ranks above a on 2 problems and below it on 0" in versus.out
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


def test_submit_agent_check_reads_cuda_sources_too(logged_in: Server, tmp_path: Path, cli: Any) -> None:
    from tests.api.test_agent_dry_run import KERNEL_CU, cuda_bundle

    factories.make_hardware("h200")
    bundle = tmp_path / "bundle"
    broken = KERNEL_CU.replace("    (void)close;\n}\n", "    (void)close;\n")
    for files, code in ((cuda_bundle(), 0), (cuda_bundle(**{"kernel.cu": broken}), 2)):
        for path, text in files.items():
            (bundle / path).parent.mkdir(parents=True, exist_ok=True)
            (bundle / path).write_text(text)
        checked = cli("submit-agent", str(bundle), "--hardware", "h200", "--check")
        assert checked.code == code, checked.err
    assert "scale_shift: kernel.cu:14: '{' is never closed" in checked.err
    assert cli("agent-submissions", "--json").json() == []  # the checks stored nothing
