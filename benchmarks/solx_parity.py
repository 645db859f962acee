"""Same kernel, same number: runs SOL-ExecBench's own CLI and `solarena eval` one after the other
on the same examples and solutions (visible workloads), reads both as SOL-ExecBench traces, and
reports each workload's latency and reference latency side by side.

    python benchmarks/solx_parity.py OUT_DIR --examples DIR [--only triton/rmsnorm,...]
        [--solx-cli sol-execbench] [--timing-budget 5]

DIR holds <language>/<problem>/ folders (definition.json, workload.jsonl, solution_*.json), as
SOL-ExecBench's examples/ does. A pair agrees when the two latencies are within max(5%, 1 us).
Writes OUT_DIR/solx_parity.json and OUT_DIR/solx_parity.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE_SHARE, TOLERANCE_MS = 0.05, 0.001


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--examples", type=Path, required=True)
    parser.add_argument("--only", default="", help="language/problem folders, comma-separated")
    parser.add_argument("--solx-cli", default="sol-execbench")
    parser.add_argument("--timing-budget", default="5")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    wanted = set(filter(None, args.only.split(",")))
    rows, runs = [], []
    for problem in sorted(p.parent for p in args.examples.glob("*/*/definition.json")):
        name = f"{problem.parent.name}/{problem.name}"
        if wanted and name not in wanted:
            continue
        for solution in sorted(problem.glob("solution*.json")):
            theirs, ours, run = _run_both(problem, solution, args)
            runs.append(run)
            print(f"{name} {solution.name}: theirs {run['theirs']}, ours {run['ours']}", flush=True)
            rows += _pairs(name, theirs, ours)
    report = {"date": time.strftime("%Y-%m-%d"), "runs": runs, "rows": rows,
              "agree": sum(r["agree"] for r in rows if r["agree"] is not None),
              "compared": sum(r["agree"] is not None for r in rows)}
    (args.out / "solx_parity.json").write_text(json.dumps(report, indent=1))
    (args.out / "solx_parity.md").write_text(_markdown(report))
    print(f"{report['agree']} of {report['compared']} latencies within max(5%, 1 us)")
    return 0


def _run_both(problem: Path, solution: Path, args: argparse.Namespace
              ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]], dict[str, Any]]:
    stem = f"{problem.parent.name}__{problem.name}__{solution.stem}"
    theirs_path, ours_path = args.out / f"{stem}.theirs.jsonl", args.out / f"{stem}.ours.jsonl"
    run: dict[str, Any] = {"problem": f"{problem.parent.name}/{problem.name}", "solution": solution.name}
    started = time.monotonic()
    command = [args.solx_cli, str(problem), "--solution", str(solution), "-o", str(theirs_path)]
    done = subprocess.run(command, capture_output=True, text=True)
    run["theirs"] = f"exit {done.returncode} in {time.monotonic() - started:.0f} s"
    if done.returncode:
        run["theirs_error"] = (done.stderr or done.stdout)[-1500:]
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "solarena.cli", "eval", "--problem", str(problem),
                           "--solution", str(solution), "--workloads", "visible", "--timing-budget",
                           args.timing_budget, "--trace-out", str(ours_path), "--json"],
                          capture_output=True, text=True, cwd=ROOT)
    run["ours"] = f"exit {done.returncode} in {time.monotonic() - started:.0f} s"
    if done.returncode:
        run["ours_error"] = done.stderr[-1500:]
    return _read(theirs_path), _read(ours_path), run


def _read(path: Path) -> dict[str, dict[str, Any]]:
    """uuid -> trace record."""
    if not path.exists():
        return {}
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["workload"]["uuid"]: r for r in records}


def _pairs(name: str, theirs: dict[str, dict[str, Any]],
           ours: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for uuid in sorted(set(theirs) | set(ours)):
        t, o = theirs.get(uuid, {}), ours.get(uuid, {})
        for what, key in (("solution", "latency_ms"), ("reference", "reference_latency_ms")):
            a = ((t.get("evaluation") or {}).get("performance") or {}).get(key)
            b = ((o.get("evaluation") or {}).get("performance") or {}).get(key)
            agree = None if not (a and b) else abs(a - b) <= max(TOLERANCE_SHARE * a, TOLERANCE_MS)
            rows.append({"problem": name, "uuid": uuid, "what": what, "theirs_ms": a, "ours_ms": b,
                         "theirs_status": (t.get("evaluation") or {}).get("status"),
                         "ours_status": (o.get("evaluation") or {}).get("status"), "agree": agree})
    return rows


def _markdown(report: dict[str, Any]) -> str:
    lines = [f"# SOL-ExecBench's CLI and solarena on the same examples ({report['date']})", "",
             "Produced by `python benchmarks/solx_parity.py`; latencies in microseconds; agree: within "
             "max(5%, 1 us).", "",
             f"{report['agree']} of {report['compared']} latencies agree.", "",
             "| problem | workload | what | theirs us | ours us | statuses | agree |",
             "|---|---|---|---|---|---|---|"]
    for r in report["rows"]:
        theirs = f"{r['theirs_ms'] * 1e3:.2f}" if r["theirs_ms"] else "-"
        ours = f"{r['ours_ms'] * 1e3:.2f}" if r["ours_ms"] else "-"
        lines.append(f"| {r['problem']} | {r['uuid']} | {r['what']} | {theirs} | {ours} | "
                     f"{r['theirs_status']} / {r['ours_status']} | {r['agree']} |")
    lines += ["", "## Runs", ""]
    lines += [f"- {r['problem']} {r['solution']}: theirs {r['theirs']}, ours {r['ours']}"
              for r in report["runs"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
