"""`solarena eval --trace-out FILE` on the CPU: one SOL-ExecBench trace per workload of the report,
each keeping to their format (tests/trace_format.py), beside the usual output; a path it cannot
write is refused before the run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from solarena.cli import main
from tests import trace_format
from tests.conftest import ROOT, SCALE_SHIFT, TEST_SECRET

CORRECT = "def run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
QUICK = ("--hardware", "cpu", "--secret", TEST_SECRET, "--correctness-rounds", "1", "--timing-budget", "0.2")


def solarena_eval(solution: Path, trace: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "solarena.cli", "eval", "--problem", str(SCALE_SHIFT),
                           "--solution", str(solution), "--trace-out", str(trace), *QUICK, *extra],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)


def read_traces(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines()
    assert lines and all(line.strip() for line in lines)
    return [json.loads(line) for line in lines]


def test_traces_match_the_report_one_per_workload(tmp_path: Path) -> None:
    solution = tmp_path / "scale_shift_torch.py"
    solution.write_text(CORRECT)
    trace_path = tmp_path / "traces.jsonl"
    result = solarena_eval(solution, trace_path, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # the traces went to the file, not into the JSON
    records = read_traces(trace_path)
    assert f"wrote {len(records)} trace(s) to {trace_path}" in result.stderr
    assert [r["workload"]["uuid"] for r in records] == [row["uuid"] for row in report["workloads"]]
    for record, row in zip(records, report["workloads"], strict=True):
        assert trace_format.problems(record) == []
        assert record["definition"] == "scale_shift"
        assert record["solution"] == "scale_shift_torch"
        assert record["workload"]["axes"] == row["axes"]
        evaluation = record["evaluation"]
        assert evaluation["status"] == row["status"] == "PASSED"
        assert evaluation["performance"]["latency_ms"] == row["latency_ms"]
        assert evaluation["performance"]["speedup_factor"] == pytest.approx(row["speedup_vs_reference"])
        assert evaluation["correctness"]["max_absolute_error"] == row["correctness"]["max_abs_error"]
        assert evaluation["environment"]["hardware"] == "Generic CPU (Triton interpreter)"
        assert evaluation["environment"]["libs"]["torch"] == report["environment"]["torch"]


def test_wrong_solution_json_traces_its_verdict_name_and_errors(tmp_path: Path) -> None:
    solution = tmp_path / "solution.json"
    solution.write_text(json.dumps({
        "name": "thrice", "definition": "scale_shift",
        "spec": {"language": "python", "entry_point": "main.py::run", "destination_passing_style": False},
        "sources": [{"path": "main.py",
                     "content": "def run(x, bias):\n    return x * 3.0 + bias[None, :]\n"}],
    }))
    trace_path = tmp_path / "traces.jsonl"
    result = solarena_eval(solution, trace_path)
    assert result.returncode == 0, result.stderr
    assert "INCORRECT_NUMERICAL" in result.stdout  # the table was printed as usual
    for record in read_traces(trace_path):
        assert trace_format.problems(record) == []
        assert record["solution"] == "thrice"
        evaluation = record["evaluation"]
        assert evaluation["status"] == "INCORRECT_NUMERICAL"
        assert evaluation["performance"] is None
        assert evaluation["correctness"]["max_absolute_error"] > 0
        assert evaluation["correctness"]["max_relative_error"] > 0
        assert "of elements within atol" in evaluation["log"]


@pytest.mark.parametrize(("target", "message"), [
    ("missing/traces.jsonl", "no directory"),
    (".", "is a directory; give a file name"),
])
def test_unwritable_trace_path_is_refused_before_the_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, message: str) -> None:
    solution = tmp_path / "solution.py"
    solution.write_text(CORRECT)
    code = main(["eval", "--problem", str(SCALE_SHIFT), "--solution", str(solution), "--hardware", "cpu",
                 "--trace-out", str(tmp_path / target)])
    assert code == 2
    assert message in capsys.readouterr().err
