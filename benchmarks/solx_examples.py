"""Runs each SOL-ExecBench example's own solution through `solarena eval` (visible workloads) and
reports how many workloads each passed, per language: the check that their solutions run here as
they are.

    python benchmarks/solx_examples.py OUT_DIR --examples DIR [--only cutlass/gemm,...]
        [--jobs 4] [--timing-budget 1]

DIR holds <language>/<problem>/ folders (definition.json, workload.jsonl, solution_*.json), as
SOL-ExecBench's examples/ does. Evaluations run `--jobs` at a time: their verdicts hold, their
timings do not (benchmarks/solx_parity.py compares timings, one evaluation at a time).
Languages need their parts where the evaluator runs (docs/solution-format.md): CUTLASS's headers
under CUTLASS_DIR, cuDNN from the nvidia-cudnn package beside torch, the CuTe DSL package
(nvidia-cutlass-dsl) importable; cuTile needs a GPU it supports. Writes OUT_DIR/<example>.json
for each evaluation and OUT_DIR/solx_examples.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--examples", type=Path, required=True)
    parser.add_argument("--only", default="", help="language/problem folders, comma-separated")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timing-budget", default="1")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(filter(None, args.only.split(",")))
    cases = [(problem, solution)
             for problem in sorted(p.parent for p in args.examples.glob("*/*/definition.json"))
             if not wanted or f"{problem.parent.name}/{problem.name}" in wanted
             for solution in sorted(problem.glob("solution*.json"))]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(lambda case: evaluate(*case, args), cases))
    (args.out / "solx_examples.md").write_text(markdown(rows))
    passed = sum(r["passed"] == r["workloads"] and r["workloads"] > 0 for r in rows)
    print(f"{passed} of {len(rows)} example solutions passed every workload")
    return 0


def evaluate(problem: Path, solution: Path, args: argparse.Namespace) -> dict[str, Any]:
    name = f"{problem.parent.name}/{problem.name}"
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "solarena.cli", "eval", "--problem", str(problem),
                           "--solution", str(solution), "--workloads", "visible", "--timing-budget",
                           args.timing_budget, "--json"], capture_output=True, text=True, cwd=ROOT)
    row: dict[str, Any] = {"example": name, "solution": solution.name, "passed": 0, "workloads": 0,
                           "wall_s": round(time.monotonic() - started, 1), "problems": []}
    try:
        report = json.loads(done.stdout)
    except ValueError:
        row["problems"] = [f"exit {done.returncode}: {done.stderr.strip()[-300:]}"]
        print(f"{name}: {row['problems'][0]}", flush=True)
        return row
    (args.out / f"{name.replace('/', '__')}.json").write_text(json.dumps(report, indent=1))
    results = report["workloads"]
    row.update(passed=sum(r["status"] == "PASSED" for r in results), workloads=len(results),
               problems=sorted({f"{r['status']}: {r['message'][:160]}" for r in results
                                if r["status"] != "PASSED"})[:3])
    print(f"{name}: {row['passed']}/{row['workloads']} passed in {row['wall_s']} s {row['problems'][:1]}",
          flush=True)
    return row


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [f"# SOL-ExecBench's examples through solarena ({time.strftime('%Y-%m-%d')})", "",
             "Produced by `python benchmarks/solx_examples.py`; visible workloads of each example, "
             "its own solution.", "",
             "| example | solution | passed | wall s | what failed |", "|---|---|---|---|---|"]
    for r in rows:
        failed = "; ".join(r["problems"]).replace("|", "/") or "-"
        lines.append(f"| {r['example']} | {r['solution']} | {r['passed']}/{r['workloads']} | "
                     f"{r['wall_s']} | {failed} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
