"""Where an evaluation's wall time goes: runs the reporter (`python -m evaluator.harness`) of one
evaluation under cProfile, outside any sandbox, and writes the profile, each event's arrival time
and a summary of the reporter's largest costs.

    python benchmarks/harness_profile.py OUT_DIR --problem rmsnorm [--solution FILE]
        [--workloads all] [--timing-budget 5] [--correctness-rounds 5]

The solution's process is profiled too (a sitecustomize module that starts cProfile in
multiprocessing's spawned children, on Python 3.12 and later, where cProfile uses
sys.monitoring and the harness's integrity check does not see it as a profile function); its
profile is OUT_DIR/PROBLEM.solution.prof.PID.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pstats
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator.jobs import SolutionFiles, write_job  # noqa: E402
from solarena.cli import DEFAULT_SECRET, resolve_problem, select_workloads  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--problem", required=True)
    parser.add_argument("--solution", type=Path)
    parser.add_argument("--workloads", default="all")
    parser.add_argument("--timing-budget", type=float, default=5.0)
    parser.add_argument("--correctness-rounds", type=int, default=5)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    problem = resolve_problem(args.problem)
    solution = args.solution or _general_solution(ROOT / "problems" / args.problem)
    workloads = select_workloads(problem, args.workloads, DEFAULT_SECRET, None)
    job_dir = args.out / "job"
    shutil.rmtree(job_dir, ignore_errors=True)
    spec = write_job(job_dir, problem, SolutionFiles.from_path(solution), workloads,
                     seed=secrets.randbits(48), device="auto",
                     options={"correctness_rounds": args.correctness_rounds,
                              "timing": {"budget_seconds": args.timing_budget}})
    profile = args.out / f"{args.problem}.prof"
    started = time.monotonic()
    command = [sys.executable, "-P", "-s", "-m", "cProfile", "-o", str(profile),
               "-m", "evaluator.harness", str(job_dir)]
    site = args.out / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{site}:{ROOT}",  # -P leaves the working directory off
           "SOLARENA_PROFILE_TO": str(args.out / f"{args.problem}.solution.prof")}
    events, raw = [], []
    with open(spec, "rb") as stdin:
        child = subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, cwd=ROOT, env=env)
        assert child.stdout is not None
        for line in child.stdout:
            event = json.loads(line)
            raw.append(event)
            events.append({"at_s": round(time.monotonic() - started, 3), "event": event.get("event"),
                           "uuid": event.get("uuid"), "status": event.get("status")})
    child.wait()
    (args.out / f"{args.problem}.events.json").write_text(json.dumps({"arrivals": events, "events": raw},
                                                                      indent=1))
    text = io.StringIO()
    stats = pstats.Stats(str(profile), stream=text)
    stats.sort_stats("cumulative").print_stats(45)
    stats.sort_stats("tottime").print_stats(30)
    for path in sorted(args.out.glob(f"{args.problem}.solution.prof.*")):
        solution_stats = pstats.Stats(str(path), stream=text)
        solution_stats.sort_stats("cumulative").print_stats(45)
        solution_stats.sort_stats("tottime").print_stats(30)
    (args.out / f"{args.problem}.summary.txt").write_text(text.getvalue())
    print(f"{args.problem}: {time.monotonic() - started:.1f} s, exit {child.returncode}")
    for previous, event in zip([{"at_s": 0.0}, *events], events, strict=False):
        print(f"  {event['at_s']:8.2f} s (+{event['at_s'] - previous['at_s']:6.2f}) {event['event']} "
              f"{event['uuid'] or ''} {event['status'] or ''}")
    print(text.getvalue()[:12000])
    return child.returncode


SITECUSTOMIZE = """
import os, sys
wanted = os.environ.get("SOLARENA_PROFILE_TO") and sys.version_info >= (3, 12)
if wanted and "--multiprocessing-fork" in sys.argv:
    import atexit, cProfile
    _profile = cProfile.Profile()
    _profile.enable()

    def _dump():
        _profile.disable()
        _profile.dump_stats(os.environ["SOLARENA_PROFILE_TO"] + f".{os.getpid()}")

    atexit.register(_dump)
"""


def _general_solution(problem: Path) -> Path:
    entries = json.loads((problem / "solutions" / "manifest.json").read_text())["solutions"]
    return problem / "solutions" / next(e["file"] for e in entries if e["expect"] == "pass")


if __name__ == "__main__":
    sys.exit(main())
