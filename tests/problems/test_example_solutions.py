"""Every example solution and starter of the bundled suite, through `solarena eval --json` on the
CPU interpreter (smoke workloads, visible and hidden), held to what its manifest promises."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, TEST_SECRET

PROBLEMS = ROOT / "problems"


def _cases() -> list[Any]:
    cases = []
    for manifest in sorted(PROBLEMS.glob("*/solutions/manifest.json")):
        problem = manifest.parent.parent
        for entry in json.loads(manifest.read_text())["solutions"]:
            cases.append(pytest.param(problem, problem / "solutions" / entry["file"], entry["expect"],
                                      id=f"{problem.name}/{entry['file']}"))
        if (problem / "starter.py").is_file():
            cases.append(pytest.param(problem, problem / "starter.py", "pass",
                                      id=f"{problem.name}/starter.py"))
    return cases


def solarena_eval(problem: Path, solution: Path, *extra: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-m", "solarena.cli", "eval", "--problem", str(problem),
         "--solution", str(solution), "--hardware", "cpu", "--workloads", "smoke",
         "--secret", TEST_SECRET, "--json", *extra],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(("problem", "solution", "expect"), _cases())
def test_example_solution_meets_its_manifest(problem: Path, solution: Path, expect: str) -> None:
    report = solarena_eval(problem, solution)
    rows = report["workloads"]
    visible = [r for r in rows if r["visibility"] == "visible"]
    hidden = [r for r in rows if r["visibility"] == "hidden"]
    assert visible and hidden
    failures = {r["uuid"]: f"{r['status']}: {r['message']}" for r in visible if r["status"] != "PASSED"}
    assert not failures, failures
    if expect == "pass":
        failures = {r["uuid"]: f"{r['status']}: {r['message']}" for r in hidden if r["status"] != "PASSED"}
        assert not failures, failures
        assert report["aggregates"]["conditional_correctness"] == 1.0
        assert all(r["score"] > 0 for r in rows)
    else:
        assert expect == "fail_hidden"
        failed = [r for r in hidden if r["status"] != "PASSED"]
        assert failed, "a hard-coded solution passed every hidden workload"
        for row in failed:
            assert row["status"] in ("INCORRECT_NUMERICAL", "INCORRECT_SHAPE", "RUNTIME_ERROR",
                                     "COMPILE_ERROR")
            assert row["message"]
        assert report["aggregates"]["conditional_correctness"] < 1.0
