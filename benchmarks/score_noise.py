"""Score noise: the same kernel evaluated again and again on one machine, each time with a fresh
input seed, as the server would evaluate two submissions of it. Per problem: the spread of the
problem score over the runs; over all: the band within which a kernel's score moves run to run,
which boards use to tell a real difference from noise (docs/scoring.md, "Uncertainty").

    python benchmarks/score_noise.py OUT_DIR [--runs 10] [--problems softmax,rmsnorm]
        [--timing-budget 0.5] [--workloads all] [--hardware h200]

It runs `solarena eval --json` on each problem's general solution (the one its manifest expects to
pass) `--runs` times in a row, one evaluation at a time. Writes OUT_DIR/<date>-score-noise-<hw>.json
and .md, and each run's whole report as OUT_DIR/runs/<problem>-<run>.json (which workload moved a
score). Target (issue 21): each problem's score within ±1% of its mean run to run on the H200.

Two spreads per problem. *Own yardsticks*: the scores as each run gave them, the baseline timed in
the run, as `solarena eval` and a top-3 confirmation run do. *Shared yardsticks*: the same runs
scored against one baseline time per workload (its median over the runs), as every ranked
evaluation on the server is (evaluator/baselines.py): what is left is the solution's own timing.

    python benchmarks/score_noise.py OUT_DIR --from-runs KEPT/runs   # a report from kept runs
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from evaluator.scoring.score import workload_score  # noqa: E402  (the server's own formula)

TARGET = 0.01  # ±1% of the mean score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--problems", default="", help="comma-separated; every bundled problem if empty")
    parser.add_argument("--timing-budget", default="")
    parser.add_argument("--workloads", default="all", help="all, visible or smoke (solarena eval's)")
    parser.add_argument("--hardware", default="",
                        help="solarena eval's --hardware (the local GPU's if empty)")
    parser.add_argument("--from-runs", type=Path,
                        help="report on the runs kept in this folder (<problem>-<run>.json), running none")
    args = parser.parse_args(argv)
    if args.runs < 2:
        parser.error("--runs must be at least 2: one run has no spread")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.from_runs:
        return _report_kept(args)
    problems = [p for p in _general_solutions() if not args.problems or p[0].name in args.problems.split(",")]
    if not problems:
        parser.error(f"no bundled problem named in --problems {args.problems!r}")
    rows: list[dict[str, Any]] = []
    for problem, solution in problems:  # the report is written again after each problem
        rows.append(_problem_noise(problem, solution, args))
        report = write(args, rows)
    print(markdown(report, report["hardware"]))
    return 0 if report["band"] is not None and report["band"] <= TARGET else 1


def write(args: argparse.Namespace, rows: list[dict[str, Any]]) -> dict[str, Any]:
    hardware = next((r["hardware"] for r in rows if r.get("hardware")), args.hardware or "unknown")
    report = {"date": date.today().isoformat(), "hardware": hardware, "runs": args.runs,
              "workloads": args.workloads, "timing_budget": args.timing_budget or "default", "problems": rows,
              "band": _band(rows), "band_shared_yardsticks": _band([r["shared_yardsticks"] for r in rows])}
    stem = args.out / f"{report['date']}-score-noise-{hardware}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=1))
    stem.with_suffix(".md").write_text(markdown(report, hardware))
    return report


def _band(spreads: list[dict[str, Any]]) -> float | None:
    return max((r["half_range_share"] for r in spreads if r["half_range_share"] is not None), default=None)


def _report_kept(args: argparse.Namespace) -> int:
    by_problem: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(args.from_runs.glob("*-[0-9][0-9].json")):
        by_problem.setdefault(path.stem.rsplit("-", 1)[0], []).append(json.loads(path.read_text()))
    if not by_problem:
        raise SystemExit(f"no kept runs (<problem>-<run>.json) in {args.from_runs}")
    rows = [_row(problem, "", reports, [], []) for problem, reports in by_problem.items()]
    args.runs = max(len(reports) for reports in by_problem.values())
    args.workloads = next(iter(by_problem.values()))[0].get("workload_selection", args.workloads)
    report = write(args, rows)
    print(markdown(report, report["hardware"]))
    return 0 if report["band"] is not None and report["band"] <= TARGET else 1


def _general_solutions() -> list[tuple[Path, Path]]:
    found = []
    for manifest in sorted((ROOT / "problems").glob("*/solutions/manifest.json")):
        entries = [e for e in json.loads(manifest.read_text())["solutions"] if e["expect"] == "pass"]
        if entries:
            found.append((manifest.parent.parent, manifest.parent / entries[0]["file"]))
    return found


def _problem_noise(problem: Path, solution: Path, args: argparse.Namespace) -> dict[str, Any]:
    reports: list[dict[str, Any]] = []
    walls: list[float] = []
    failures: list[str] = []
    for run in range(args.runs):
        command = [sys.executable, "-m", "solarena.cli", "eval", "--problem", str(problem),
                   "--solution", str(solution), "--workloads", args.workloads, "--json"]
        if args.timing_budget:
            command += ["--timing-budget", args.timing_budget]
        if args.hardware:
            command += ["--hardware", args.hardware]
        started = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        walls.append(time.monotonic() - started)
        if result.returncode != 0:
            failures.append(f"run {run}: {result.stderr.strip()[-300:]}")
            continue
        report = json.loads(result.stdout)
        runs_dir = args.out / "runs"  # each run's whole report: which workload moved a score
        runs_dir.mkdir(exist_ok=True)
        (runs_dir / f"{problem.name}-{run + 1:02d}.json").write_text(result.stdout)
        failed = [r["uuid"] for r in report["workloads"] if r["status"] != "PASSED"]
        if failed:
            failures.append(f"run {run}: not passed: {', '.join(failed[:4])}")
        reports.append(report)
        print(f"{problem.name:22s} run {run + 1:2d}/{args.runs} score {report['aggregates']['score']:.4f} "
              f"({walls[-1]:.1f} s)", flush=True)
    return _row(problem.name, solution.name, reports, walls, failures)


def _row(problem: str, solution: str, reports: list[dict[str, Any]], walls: list[float],
         failures: list[str]) -> dict[str, Any]:
    hardware = next((r["hardware"] for r in reports if r.get("hardware")), "")
    return {"problem": problem, "solution": solution, "hardware": hardware,
            **spread([r["aggregates"]["score"] for r in reports]),
            "shared_yardsticks": spread(shared_yardstick_scores(reports)),
            "wall_s_mean": round(statistics.fmean(walls), 1) if walls else None, "failures": failures}


def shared_yardstick_scores(reports: list[dict[str, Any]]) -> list[float]:
    """Each run's problem score with every passed workload scored against one baseline time, the
    median of that workload's over the runs (as a shared calibration gives every evaluation), and
    the run's own solution time; a workload that did not pass counts 0, as in the problem score."""
    baselines: dict[str, list[float]] = {}
    for report in reports:
        for row in report["workloads"]:
            if row["status"] == "PASSED" and row.get("baseline_latency_ms"):
                baselines.setdefault(row["uuid"], []).append(row["baseline_latency_ms"])
    shared = {uuid: statistics.median(times) for uuid, times in baselines.items()}
    scores = []
    for report in reports:
        rows = report["workloads"]
        counted = [workload_score(row["latency_ms"], shared[row["uuid"]], row["sol_ms"]).score
                   if row["status"] == "PASSED" and row.get("latency_ms") else 0.0 for row in rows]
        scores.append(math.fsum(counted) / len(rows) if rows else 0.0)
    return scores


def spread(scores: list[float]) -> dict[str, Any]:
    """The runs' scores and how far they stray: relative standard deviation and half the range,
    both as shares of the mean."""
    if len(scores) < 2:
        return {"scores": scores, "mean": None, "stdev_share": None, "half_range_share": None}
    mean = statistics.fmean(scores)
    return {"scores": [round(s, 5) for s in scores], "mean": round(mean, 5),
            "stdev_share": round(statistics.stdev(scores) / mean, 5) if mean else None,
            "half_range_share": round((max(scores) - min(scores)) / 2 / mean, 5) if mean else None}


def markdown(report: dict[str, Any], hardware: str) -> str:
    band = report["band"]
    verdict = (f"**±{band:.2%}**, target {'met' if band <= TARGET else 'NOT met'}." if band is not None
               else "none (too few runs passed).")
    lines = [f"# Score noise on {hardware} ({report['date']})", "",
             f"`python benchmarks/score_noise.py OUT --runs {report['runs']} "
             f"--workloads {report['workloads']}` (timing budget: {report['timing_budget']}): each "
             f"problem's general solution evaluated {report['runs']} times in a row, one at a time, a "
             "fresh input seed each time.", "",
             f"Target: every problem's score within ±{TARGET:.0%} of its mean run to run. Band measured "
             f"(the largest half-range over the problems), each run's own yardsticks: {verdict}", "",
             f"With shared yardsticks (one baseline time per workload, the runs' median, as ranked "
             f"evaluations on the server are scored): {_percent(report.get('band_shared_yardsticks'))}.", "",
             "| problem | runs | mean score | rel. stdev | half-range | min | max | half-range, shared "
             "yardsticks | wall s | failures |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["problems"]:
        shared = _percent(r.get("shared_yardsticks", {}).get("half_range_share"))
        wall = r["wall_s_mean"] if r["wall_s_mean"] is not None else "–"
        tail = f"| {shared} | {wall} | {len(r['failures'])} |"
        if r["mean"] is None:
            lines.append(f"| {r['problem']} | {len(r['scores'])} | – | – | – | – | – {tail}")
            continue
        low, high = min(r["scores"]), max(r["scores"])
        lines.append(f"| {r['problem']} | {len(r['scores'])} | {r['mean']:.4f} | {r['stdev_share']:.2%} "
                     f"| ±{r['half_range_share']:.2%} | {low:.4f} | {high:.4f} {tail}")
    return "\n".join(lines) + "\n"


def _percent(share: float | None) -> str:
    return f"±{share:.2%}" if share is not None else "–"


if __name__ == "__main__":
    sys.exit(main())
