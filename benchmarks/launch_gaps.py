"""Where a short call's time goes, process by process: the same solution timed on one workload in
several fresh processes, each call's GPU span split into kernel time and the idle gaps between its
kernels (the GPU waiting for the host to launch the next one), as the harness times it (a whole-
device sync, the L2 flush left running, then the call; its span from the first to the last GPU
activity it launched).

    python benchmarks/launch_gaps.py OUT_DIR --problem attention_decode --workloads UUID[,UUID]
        [--solution FILE] [--processes 6] [--calls 60] [--pin CPU]

Writes OUT_DIR/launch-gaps-<problem>.json and .md: per process and workload the medians of the
span, of the kernels' own time and of the gaps, and the host time between the call's launches.
Issue 21 asked why attention_decode's two short workloads move between processes by far more
than within one; this is the instrument that answers it (docs/benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODES = ("queued", "idle_gpu", "cold_cpu", "paused")
HOST_CACHE_BYTES = 256 << 20  # more than the host's last-level cache
# Stops the process whose pid it is given (every thread, SIGSTOP) for a millisecond per byte read,
# then answers: the harness's pause while it draws a call's inputs, seen from the paused side.
PAUSER = ("import os, signal, sys, time\npid = int(sys.argv[1])\nwhile sys.stdin.buffer.read(1):\n"
          "    os.kill(pid, signal.SIGSTOP); time.sleep(0.001); os.kill(pid, signal.SIGCONT)\n"
          "    sys.stdout.buffer.write(b'.'); sys.stdout.buffer.flush()\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--problem", required=True)
    parser.add_argument("--workloads", required=True, help="comma-separated uuids")
    parser.add_argument("--solution", type=Path)
    parser.add_argument("--processes", type=int, default=6)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--pin", type=int, help="run every process on this CPU only")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args)))
        return 0
    import torch

    if not torch.cuda.is_available():
        parser.error("it times GPU kernels: no CUDA GPU is visible here")
    args.out.mkdir(parents=True, exist_ok=True)
    processes = []
    for number in range(args.processes):
        command = [sys.executable, __file__, str(args.out), "--problem", args.problem, "--workloads",
                   args.workloads, "--calls", str(args.calls), "--child"]
        if args.solution:
            command += ["--solution", str(args.solution)]
        if args.pin is not None:
            command += ["--pin", str(args.pin)]
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        if done.returncode != 0:
            raise SystemExit(f"process {number + 1} failed:\n{done.stderr[-2000:]}")
        processes.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"process {number + 1}/{args.processes} done", flush=True)
    report = {"problem": args.problem, "pin": args.pin, "calls": args.calls, "processes": processes}
    stem = args.out / f"launch-gaps-{args.problem}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=1))
    text = markdown(report)
    stem.with_suffix(".md").write_text(text)
    print(text)
    return 0


def _child(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    import triton  # noqa: F401  (before a solution file named triton.py is importable, as the harness)

    from evaluator.harness.inputs import empty_outputs, make_inputs
    from evaluator.harness.modules import load_solution
    from evaluator.harness.problem import load_problem

    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})
    problem = load_problem(ROOT / "problems" / args.problem)
    solution_path = args.solution or _general_solution(ROOT / "problems" / args.problem)
    solution = load_solution(solution_path)
    device = torch.device("cuda")
    wanted = args.workloads.split(",")
    result: dict[str, Any] = {"pid": os.getpid(), "workloads": {}}
    for workload in problem.workloads:
        if workload.uuid not in wanted:
            continue
        axes = problem.definition.resolve_axes(workload.axes)
        inputs = [make_inputs(problem.definition, workload, axes, 1000 + j, device, problem.directory)
                  for j in range(4)]
        outs = empty_outputs(problem.definition, axes, device) if solution.destination_passing else []

        def call(j: int, inputs: list[list[Any]] = inputs, outs: list[Any] = outs) -> None:
            solution.run(*inputs[j % len(inputs)], *outs)

        for j in range(10):  # compile and warm up
            call(j)
        torch.cuda.synchronize()
        result["workloads"][workload.uuid] = {
            mode: _calls(call, args.calls, device, mode)
            for mode in MODES
        }
    result["cpu"] = _last_cpu()
    return result


def _calls(call: Any, count: int, device: Any, mode: str) -> dict[str, float]:
    """Time `count` calls as the harness does and split each span. Modes: queued, as the harness
    (the flush still running when the call starts); idle_gpu, the flush waited for (the call's
    launches race the GPU from the start); cold_cpu, the host's caches overwritten and the thread
    asleep for a millisecond before each call; paused, the whole process stopped (SIGSTOP) for a
    millisecond before each call by another process, as the harness does to draw inputs."""
    import numpy
    import torch
    from torch.autograd.profiler import record_function

    from evaluator.harness.timing import ANNOTATION, exported_events, flush_l2, profiler_session

    scratch_memory = numpy.zeros(HOST_CACHE_BYTES // 8) if mode == "cold_cpu" else None
    pauser = (subprocess.Popen([sys.executable, "-c", PAUSER, str(os.getpid())], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE) if mode == "paused" else None)
    with profiler_session() as prof:
        for j in range(count):
            if scratch_memory is not None:
                scratch_memory += 1.0
                time.sleep(0.001)
            if pauser is not None:
                pauser.stdin.write(b".")
                pauser.stdin.flush()
                pauser.stdout.read(1)
            torch.cuda.synchronize(device)
            flush_l2(device, wait=mode == "idle_gpu")
            with record_function(f"{ANNOTATION}{j}"):
                call(j)
            torch.cuda.synchronize(device)
    if pauser is not None:
        pauser.stdin.close()
        pauser.wait()
    return _split(exported_events(prof), count)


def _split(events: list[dict[str, Any]], count: int) -> dict[str, float]:
    """Each call's activities as the harness attributes them (timing.call_activities), split."""
    from evaluator.harness.timing import call_activities

    per_call: dict[int, list[tuple[float, float, float]]] = {}
    for index, activities in call_activities(events).items():
        launched = [(a.start, a.end, a.launched_at) for a in activities if a.launched_at is not None]
        if launched:
            per_call[index] = launched
    spans, busy, gaps, launch_spread, queue = [], [], [], [], []
    for index in range(count):
        work = sorted(per_call.get(index, []))
        if not work:
            continue
        spans.append(max(end for _, end, _ in work) - work[0][0])
        kernel_time, idle, reach = 0.0, 0.0, work[0][0]
        for start, end, _ in work:
            idle += max(0.0, start - reach)
            kernel_time += end - max(start, reach) if end > reach else 0.0
            reach = max(reach, end)
        busy.append(kernel_time)
        gaps.append(idle)
        launch_spread.append(max(t for _, _, t in work) - min(t for _, _, t in work))
        queue.append(work[0][0] - min(t for _, _, t in work))  # first launch to first start
    med = statistics.median
    return {"calls": len(spans), "activities": med(len(per_call[i]) for i in per_call),
            "span_us": med(spans), "kernels_us": med(busy), "gaps_us": med(gaps),
            "launch_spread_us": med(launch_spread), "first_start_after_launch_us": med(queue),
            "span_min_us": min(spans), "span_max_us": max(spans)}


def _general_solution(problem: Path) -> Path:
    manifest = json.loads((problem / "solutions" / "manifest.json").read_text())
    return problem / "solutions" / next(e["file"] for e in manifest["solutions"] if e["expect"] == "pass")


def _last_cpu() -> int:
    return int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[36])


def markdown(report: dict[str, Any]) -> str:
    lines = [f"# Launch gaps: {report['problem']} ({report['calls']} calls per mode and process"
             + (f", pinned to CPU {report['pin']})" if report["pin"] is not None else ")"), "",
             "| process | cpu | workload | mode | span us | kernels us | gaps us | launch spread us | "
             "first start after launch us |", "|---|---|---|---|---|---|---|---|---|"]
    for number, process in enumerate(report["processes"], start=1):
        for uuid, modes in process["workloads"].items():
            for mode, row in modes.items():
                figures = [row[k] for k in ("span_us", "kernels_us", "gaps_us", "launch_spread_us",
                                            "first_start_after_launch_us")]
                lines.append(f"| {number} | {process['cpu']} | {uuid} | {mode} | "
                             + " | ".join(f"{x:.1f}" for x in figures) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
