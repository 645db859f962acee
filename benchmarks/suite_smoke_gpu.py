"""Runs `solarena eval` on the bundled suite on the local GPU: every problem's general Triton
solution and every hard-coded one, all workloads (visible + hidden), and writes one JSON report
per evaluation plus a summary (wall time per problem, statuses, scores).

    python benchmarks/suite_smoke_gpu.py OUT_DIR [--timing-budget 0.3] [--problems a,b] [--jobs N]
        [--expect pass]

With --jobs above 1 several evaluations share the GPU: their verdicts hold, their timings do not.

A short check that the GPU path works end to end; the accuracy of the timings is validated
separately (benchmarks/timing_fidelity.py, issue 7).
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
    parser.add_argument("--timing-budget", default="0.3")
    parser.add_argument("--correctness-rounds", default="3")
    parser.add_argument("--problems", default="")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--expect", default="", help="only solutions with this expectation (pass, ...)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(filter(None, args.problems.split(",")))
    cases = []
    for manifest in sorted((ROOT / "problems").glob("*/solutions/manifest.json")):
        problem = manifest.parent.parent
        if not wanted or problem.name in wanted:
            cases += [(problem, entry) for entry in json.loads(manifest.read_text())["solutions"]
                      if not args.expect or entry["expect"] == args.expect]
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        summary = list(pool.map(lambda case: evaluate(*case, args), cases))
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))
    return 0


def evaluate(problem: Path, entry: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "solarena.cli", "eval", "--problem", str(problem),
         "--solution", str(problem / "solutions" / entry["file"]), "--workloads", "all",
         "--timing-budget", args.timing_budget, "--correctness-rounds", args.correctness_rounds,
         "--json"],
        capture_output=True, text=True, cwd=ROOT,
    )
    wall = time.monotonic() - started
    name = f"{problem.name}__{Path(entry['file']).stem}"
    if result.returncode != 0:
        print(f"{name:40s} FAILED TO RUN: {result.stderr[-300:]}", flush=True)
        return {"eval": name, "error": result.stderr[-1000:], "wall_s": wall}
    report = json.loads(result.stdout)
    (args.out / f"{name}.json").write_text(json.dumps(report, indent=1))
    rows = report["workloads"]
    line = {
        "eval": name,
        "expect": entry["expect"],
        "wall_s": round(wall, 1),
        "gpu": report["environment"].get("gpu"),
        "visible_passed": sum(r["status"] == "PASSED" for r in rows if r["visibility"] == "visible"),
        "visible": sum(r["visibility"] == "visible" for r in rows),
        "hidden_passed": sum(r["status"] == "PASSED" for r in rows if r["visibility"] == "hidden"),
        "hidden": sum(r["visibility"] == "hidden" for r in rows),
        "score": round(report["aggregates"]["score"], 4),
        "geomean_speedup": report["aggregates"]["geomean_speedup"],
        "held": _held(rows),
        "failures": sorted({f"{r['status']}: {r['message'][:120]}" for r in rows
                            if r["status"] != "PASSED"})[:4],
    }
    print(f"{name:40s} {line['wall_s']:6.1f}s visible {line['visible_passed']}/{line['visible']} "
          f"hidden {line['hidden_passed']}/{line['hidden']} score {line['score']:.3f} "
          f"held {line['held']} "
          f"{line['failures'][:1]}", flush=True)
    return line


def _held(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """How the reported times sat against the reporter's GPU bracket (docs/security.md, "Time
    cannot be forged downward"): the largest median excess of a workload over its allowance (1 =
    the median call charged), the largest excess in us, and the share of timed calls charged."""
    held = [h for h in ((r.get("timing") or {}).get("outside") for r in rows) if h]
    if not held:
        return None
    calls = sum(h["calls"] for h in held)
    return {"excess_over_allowance": round(max(h["excess_ms"] / h["allowance_ms"] for h in held), 3),
            "largest_excess_us": round(1e3 * max(h["excess_ms"] for h in held), 2),
            "overhead_us": round(1e3 * held[0]["overhead_ms"], 2),
            "charged_share": round(sum(h["charged_calls"] for h in held) / calls, 4) if calls else None}


if __name__ == "__main__":
    sys.exit(main())
