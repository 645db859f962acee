"""Wall time of one CPU smoke evaluation under each sandbox backend (docs/benchmarks/).

    python benchmarks/sandbox_backends.py OUT.json [--runs 3] [--backends none,bubblewrap,docker]

Evaluates the Triton softmax of problems/softmax (Triton's interpreter, the smoke workloads,
visible and hidden, the harness's default options) through evaluator.supervise.run_harness, as a
CPU worker does, `--runs` times per backend, and writes each run's seconds with the median. Under
docker the image is SOLARENA_DOCKER_IMAGE (default solarena-evaluator:cpu, scripts/docker-images);
a container start and the interpreter's imports are part of every run, as in production.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from evaluator.harness.hidden import draw_hidden
from evaluator.harness.problem import load_problem
from evaluator.jobs import SolutionFiles, write_job
from evaluator.supervise import SuperviseOptions, run_harness

ROOT = Path(__file__).resolve().parent.parent
PROBLEM = ROOT / "problems" / "softmax"
SOLUTION = PROBLEM / "solutions" / "triton.py"


def evaluate_once(backend: str, scratch: Path) -> dict[str, Any]:
    problem = load_problem(PROBLEM)
    workloads = problem.smoke_workloads + draw_hidden(problem, "benchmark-secret", smoke=True)
    job = scratch / "job"
    write_job(job, problem, SolutionFiles.from_path(SOLUTION), workloads, seed=1234, device="cpu")
    started = time.monotonic()
    outcome = run_harness(job, [w.uuid for w in workloads],
                          SuperviseOptions(cpu_interpreter=True, backend=backend))
    seconds = time.monotonic() - started
    statuses = sorted({r["status"] for r in outcome.results.values()})
    return {"seconds": round(seconds, 2), "workloads": len(workloads), "statuses": statuses}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--backends", default="none,bubblewrap,docker")
    args = parser.parse_args()
    os.environ.setdefault("SOLARENA_DOCKER_IMAGE", "solarena-evaluator:cpu")
    report: dict[str, Any] = {"host": {"cpus": os.cpu_count(), "machine": platform.machine(),
                                       "load_before": os.getloadavg()[0]},
                              "problem": "softmax", "solution": "solutions/triton.py", "backends": {}}
    for backend in args.backends.split(","):
        runs = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="solarena-bench-") as scratch:
                runs.append(evaluate_once(backend, Path(scratch)))
            print(backend, runs[-1], flush=True)
        report["backends"][backend] = {"runs": runs,
                                       "median_seconds": statistics.median(r["seconds"] for r in runs)}
    report["host"]["load_after"] = os.getloadavg()[0]
    args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
