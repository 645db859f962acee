"""`solarena eval` as a user meets it: the table, the --json document, exit codes and errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, SCALE_SHIFT, TEST_SECRET

CORRECT = "def run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
REQUIRED_ROW_KEYS = {"uuid", "axes", "visibility", "status", "message", "latency_ms",
                     "reference_latency_ms", "baseline_latency_ms", "sol_ms", "score", "roofline"}


def solarena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "solarena.cli", *args], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)


def write(tmp_path: Path, text: str, name: str = "solution.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_json_document_has_the_documented_schema(tmp_path: Path) -> None:
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, CORRECT)),
                      "--hardware", "cpu", "--secret", TEST_SECRET, "--seed", "5", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["schema"] == "solarena.eval/1"
    assert report["problem"] == "scale_shift"
    assert report["hardware"] == "cpu"
    assert report["workload_selection"] == "smoke"  # the default without a GPU
    assert report["seed"] == 5
    rows = report["workloads"]
    assert {r["visibility"] for r in rows} == {"visible", "hidden"}
    for row in rows:
        assert REQUIRED_ROW_KEYS <= set(row)
        assert row["status"] == "PASSED"
        assert 0 < row["score"] <= 1
        assert row["sol_ms"] > 0
        assert row["roofline"]["bound"] == "memory" and row["roofline"]["share_of_roof"] > 0
    aggregates = report["aggregates"]
    assert {"score", "visible_score", "hidden_score", "generalization_gap", "conditional_correctness",
            "geomean_speedup", "fast_p"} <= set(aggregates)
    assert aggregates["conditional_correctness"] == 1.0


def test_hidden_workloads_depend_on_the_secret(tmp_path: Path) -> None:
    solution = str(write(tmp_path, CORRECT))

    def hidden_axes(secret: str) -> list[dict]:
        result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", solution, "--hardware",
                          "cpu", "--secret", secret, "--json", "--correctness-rounds", "1")
        assert result.returncode == 0, result.stderr
        return [r["axes"] for r in json.loads(result.stdout)["workloads"] if r["visibility"] == "hidden"]

    assert hidden_axes("one") != hidden_axes("two")


def test_table_output_names_verdicts_and_messages(tmp_path: Path) -> None:
    wrong = write(tmp_path, "def run(x, bias):\n    return x * 3.0 + bias[None, :]\n")
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(wrong), "--hardware", "cpu",
                      "--secret", TEST_SECRET, "--correctness-rounds", "1")
    assert result.returncode == 0, result.stderr  # it ran: the verdicts are in the output
    assert "INCORRECT_NUMERICAL" in result.stdout
    assert "of elements within atol" in result.stdout
    assert "score 0  " in result.stdout  # three significant digits: a zero is 0
    assert "roof" in result.stdout and "mem" in result.stdout  # the roof, no share for a wrong answer


def test_bundled_problem_by_name(tmp_path: Path) -> None:
    result = solarena("eval", "--problem", "no_such_problem", "--solution", str(write(tmp_path, CORRECT)),
                      "--hardware", "cpu")
    assert result.returncode == 2
    assert "no problem of that folder, slug or name" in result.stderr


def test_unusable_arguments_exit_2_with_a_message(tmp_path: Path) -> None:
    good = str(write(tmp_path, CORRECT))
    cases = [
        (["--solution", str(tmp_path / "missing.py")], "no such file"),
        (["--solution", str(write(tmp_path, "x", "notes.txt"))], "a .py file or a solution.json"),
        (["--solution", str(write(tmp_path, "{not json", "solution.json"))], "not valid JSON"),
        (["--solution", good, "--hardware", "tpu9"], "unknown hardware"),
        (["--solution", good, "--hardware", "h200"], "needs a GPU"),
        (["--solution", good, "--correctness-rounds", "0"], "at least 1"),
    ]
    for extra, expected in cases:
        result = solarena("eval", "--problem", str(SCALE_SHIFT), *extra)
        assert result.returncode == 2, (extra, result.stdout, result.stderr)
        assert expected.lower() in result.stderr.lower(), (extra, result.stderr)


def test_non_utf8_solution_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "solution.py"
    path.write_bytes(b"def run(x, bias):\n    return x  # \xff\xfe\n")
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(path), "--hardware", "cpu")
    assert result.returncode == 2
    assert "not UTF-8" in result.stderr


def test_docker_sandbox_without_an_engine_says_what_is_missing(tmp_path: Path) -> None:
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, CORRECT)),
                      "--hardware", "cpu", "--sandbox", "docker")
    if result.returncode == 0:  # a host with an engine and the evaluator image
        return
    assert result.returncode == 2, result.stderr
    assert "docker" in result.stderr.lower()


def test_invalid_problem_directory_is_named(tmp_path: Path) -> None:
    problem = tmp_path / "broken"
    problem.mkdir()
    (problem / "definition.json").write_text('{"name": "broken", "axes": {}}')
    result = solarena("eval", "--problem", str(problem), "--solution", str(write(tmp_path, CORRECT)),
                      "--hardware", "cpu")
    assert result.returncode == 2
    assert "definition.json: axes" in result.stderr


def test_hidden_file_replaces_drawn_hidden_workloads(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden.jsonl"
    hidden.write_text(json.dumps({"uuid": "private-1", "axes": {"rows": 3, "cols": 77}}) + "\n")
    result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", str(write(tmp_path, CORRECT)),
                      "--hardware", "cpu", "--workloads", "all", "--hidden-file", str(hidden),
                      "--json", "--correctness-rounds", "1")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["workloads"]
    hidden_rows = [r for r in rows if r["visibility"] == "hidden"]
    assert [r["uuid"] for r in hidden_rows] == ["private-1"]
    assert hidden_rows[0]["status"] == "PASSED"


def test_calibrate_without_a_gpu_says_so() -> None:
    import torch

    result = solarena("calibrate")
    if torch.cuda.is_available():
        assert result.returncode == 0 and "memory_bandwidth" in result.stdout
    else:
        assert result.returncode == 2
        assert "needs a CUDA GPU" in result.stderr


def test_the_private_modes_run_the_visible_workloads_test_untimed(tmp_path: Path) -> None:
    solution = str(write(tmp_path, CORRECT))
    for mode in ("test", "benchmark"):
        result = solarena("eval", "--problem", str(SCALE_SHIFT), "--solution", solution, "--hardware", "cpu",
                          "--secret", TEST_SECRET, "--correctness-rounds", "1", "--mode", mode, "--json")
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert report["mode"] == mode
        rows = report["workloads"]
        assert rows and {r["visibility"] for r in rows} == {"visible"}
        assert {r["status"] for r in rows} == {"PASSED"}
        timed = [r["latency_ms"] is not None for r in rows]
        assert all(timed) if mode == "benchmark" else not any(timed)
