"""Every script in benchmarks/ runs, at a tiny size, so a benchmark that no longer runs fails CI.
The full runs stay out of CI (docs/benchmarks/README.md). The scripts that need a GPU or
SOL-ExecBench's CLI run their dry part: arguments, what they read from the repository, the report.

Each script gets a PostgreSQL database of its own beside DATABASE_URL's, and Redis databases of
their own (13 and 14 on SOLARENA_BENCHMARK_REDIS, default redis://127.0.0.1:6379), which they
empty. common.py and pages_seed.py are modules the scripts import, run with them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/solarena").rsplit("/", 1)[0]
REDIS = os.environ.get("SOLARENA_BENCHMARK_REDIS", "redis://127.0.0.1:6379")


def run(script: str, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, f"benchmarks/{script}", *args], cwd=ROOT, text=True,
                          capture_output=True, timeout=timeout, env={**os.environ, **env})
    print(done.stdout[-3000:], done.stderr[-3000:])
    return done


def only_report(out: Path, pattern: str) -> dict:
    written = sorted(out.glob(pattern))
    assert len(written) == 1, sorted(p.name for p in out.iterdir())
    return json.loads(written[0].read_text())


def test_pages(tmp_path: Path) -> None:
    done = run("pages.py", str(tmp_path), "--submissions", "1000", "--results", "5000", "--users", "12",
               "--clients", "2", "--requests", "2", "--alone", "1", "--web-workers", "1", "--writes", "5",
               "--database-url", f"{SERVER}/solarena_pages_smoke", "--cache-url", f"{REDIS}/14")
    assert done.returncode in (0, 1), "1: a target missed, which a tiny run may; anything else broke"
    report = only_report(tmp_path, "*-pages.json")
    assert report["seeded"]["submissions"] == 1000 and report["seeded"]["results"] == 5000
    assert all(kind["statuses"] == {"200": 2} for kind in report["kinds"].values()), report["kinds"]
    assert report["writes"]["done"] > 0


def test_load(tmp_path: Path) -> None:
    done = run("load.py", str(tmp_path), "--clients", "2", "--submissions", "4", "--scored", "0",
               "--web-workers", "1", "--eval-workers", "1", "--drain-seconds", "120",
               "--database-url", f"{SERVER}/solarena_load_smoke")
    assert done.returncode in (0, 1)
    report = only_report(tmp_path, "*-load.json")
    assert report["accepted"] == 4 and report["checks"]["problems"] == [], report


def test_dispatch_latency(tmp_path: Path) -> None:
    out = tmp_path / "dispatch.md"
    done = run("dispatch_latency.py", "-n", "1", "--database-url", f"{SERVER}/solarena_dispatch_smoke",
               "--broker-url", f"{REDIS}/13", "--out", str(out))
    assert done.returncode == 0
    assert "- median: " in out.read_text()


def test_fuzz_api(tmp_path: Path) -> None:
    done = run("fuzz_api.py", str(tmp_path), "--examples", "1", "--flips", "1", "--seed", "1",
               DATABASE_URL=f"{SERVER}/solarena_fuzz_smoke")
    report = only_report(tmp_path, "*-fuzz.json")
    assert done.returncode == 0 and report["requests"] > 0 and not report["failed"], report


def test_harness_profile(tmp_path: Path) -> None:
    """The reporter runs under cProfile to the end; on a machine without a GPU the Triton solution
    cannot run (no driver), so each workload's verdict is an error, reported as any other."""
    done = run("harness_profile.py", str(tmp_path), "--problem", "softmax", "--workloads", "smoke",
               "--timing-budget", "0.05", "--correctness-rounds", "1")
    assert done.returncode == 0
    events = json.loads((tmp_path / "softmax.events.json").read_text())["arrivals"]
    assert sum(1 for event in events if event["event"] == "workload" and event["status"]) >= 3, events
    assert "function calls" in (tmp_path / "softmax.summary.txt").read_text()


def test_suite_smoke_gpu_dry(tmp_path: Path) -> None:
    """On a GPU it evaluates the whole suite; here only the selection and the summary."""
    done = run("suite_smoke_gpu.py", str(tmp_path), "--problems", "softmax", "--expect", "none-such")
    assert done.returncode == 0
    assert json.loads((tmp_path / "summary.json").read_text()) == []


def test_solx_parity_dry(tmp_path: Path) -> None:
    """With SOL-ExecBench's CLI and examples it compares timings; here an empty examples folder."""
    (tmp_path / "examples").mkdir()
    done = run("solx_parity.py", str(tmp_path / "out"), "--examples", str(tmp_path / "examples"))
    assert done.returncode == 0
    assert json.loads((tmp_path / "out" / "solx_parity.json").read_text())["compared"] == 0


def test_timing_fidelity_arguments() -> None:
    """It needs CUDA for everything it measures: only its arguments are checked here."""
    done = run("timing_fidelity.py", "--help")
    assert done.returncode == 0 and "--reps" in done.stdout


def test_launch_gaps_without_a_gpu(tmp_path: Path) -> None:
    """It times GPU kernels; on the CPU it says so and writes nothing (its split: test_launch_gaps)."""
    done = run("launch_gaps.py", str(tmp_path / "out"), "--problem", "attention_decode", "--workloads",
               "llama3-8b-b1-s4096", "--processes", "1")
    assert done.returncode == 2 and "no CUDA GPU is visible" in done.stderr
    assert not (tmp_path / "out").exists()


def test_solx_examples(tmp_path: Path) -> None:
    """A SOL-ExecBench-style examples folder with one small problem and its own PyTorch solution."""
    from tests.harness.test_importer import RMSNORM_REFERENCE, sol_execbench_problem

    problem = sol_execbench_problem(tmp_path / "examples" / "pytorch" / "rmsnorm")
    (problem / "solution_python.json").write_text(json.dumps({
        "name": "rmsnorm_torch", "definition": "rmsnorm_h4096", "author": "test",
        "spec": {"languages": ["pytorch"], "entry_point": "kernel.py::run",
                 "destination_passing_style": False},
        "sources": [{"path": "kernel.py", "content": RMSNORM_REFERENCE}]}))
    done = run("solx_examples.py", str(tmp_path / "out"), "--examples", str(tmp_path / "examples"),
               "--timing-budget", "0.3")  # enough calls that one meets a quiet host
    assert done.returncode == 0 and "1 of 1 example solutions passed every workload" in done.stdout
    table = (tmp_path / "out" / "solx_examples.md").read_text()
    assert "| pytorch/rmsnorm | solution_python.json | 2/2 |" in table


def test_score_noise(tmp_path: Path) -> None:
    done = run("score_noise.py", str(tmp_path), "--runs", "2", "--problems", "softmax", "--hardware", "cpu",
               "--workloads", "smoke", timeout=600)
    assert done.returncode in (0, 1), "1: the band is over the target, which the CPU's may be"
    report = only_report(tmp_path, "*-score-noise-cpu.json")
    [row] = report["problems"]
    assert row["problem"] == "softmax" and len(row["scores"]) == 2 and not row["failures"]
    assert report["band"] == row["half_range_share"] >= 0
    assert report["band_shared_yardsticks"] == row["shared_yardsticks"]["half_range_share"] >= 0
    again = run("score_noise.py", str(tmp_path / "again"), "--from-runs", str(tmp_path / "runs"))
    assert again.returncode in (0, 1)
    kept = only_report(tmp_path / "again", "*-score-noise-cpu.json")
    assert kept["problems"][0]["scores"] == row["scores"] and kept["workloads"] == "smoke"


def test_sandbox_backends(tmp_path: Path) -> None:
    """One evaluation under the `none` backend (bubblewrap's and docker's own runs: tests/sandbox)."""
    out = tmp_path / "backends.json"
    done = run("sandbox_backends.py", str(out), "--runs", "1", "--backends", "none", timeout=600)
    assert done.returncode == 0
    [only] = json.loads(out.read_text())["backends"]["none"]["runs"]
    assert only["statuses"] == ["PASSED"] and only["workloads"] > 0 and only["seconds"] > 0
