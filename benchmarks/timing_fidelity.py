"""Timing fidelity on the local GPU: how close the harness's times are to the GPU's own activity
records, how steady they are, and how they compare with the common alternatives.

Each kernel of a panel (elementwise from 64K to 256M elements, a tiny and a large softmax, bf16
GEMMs from 1024 to 8192, the bundled example Triton solutions) is timed five times (independent
repetitions) by four methods, all with a cold L2 before every call:

- harness: evaluator.harness.timing.time_callable, the harness's own timing (fresh input copies,
  persisting-L2 reset, flush, whole-device sync, CUPTI activity spans, its stopping rule);
- activity: raw CUPTI records through torch.profiler with no harness code: per call, the span
  from the first to the last GPU activity after each flush;
- do_bench: triton.testing.do_bench, median;
- events: CUDA events around each call with a device sync per call, median.

The harness and the raw activity method also read the SM clock (NVML) after every call; the
report gives each repetition's median, which shows when the card was running below its top clock.

    python benchmarks/timing_fidelity.py OUT_DIR [--reps 5] [--quick]

Writes OUT_DIR/timing_fidelity.json and OUT_DIR/timing_fidelity.md (targets checked in both).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evaluator.harness.gpu_clock import sm_clock_mhz  # noqa: E402
from evaluator.harness.inputs import make_inputs  # noqa: E402
from evaluator.harness.modules import import_file  # noqa: E402
from evaluator.harness.problem import load_problem  # noqa: E402
from evaluator.harness.timing import TimingOptions, time_callable  # noqa: E402

CALLS = 50  # calls per repetition for the activity and events methods
FLUSH_VALUE = 7  # the flush writes this, so its kernel is told apart from the timed ones


@dataclass
class Kernel:
    name: str
    fn: Callable[..., Any]
    inputs: list[Any]


def panel(device: torch.device, quick: bool) -> list[Kernel]:
    kernels = []
    sizes = [1 << 16, 1 << 20, 1 << 24] + ([] if quick else [1 << 28])
    for n in sizes:
        x = torch.randn(n, device=device)
        kernels.append(Kernel(f"elementwise x*2 n={n}", lambda a: torch.mul(a, 2.0), [x]))
    kernels.append(Kernel("softmax 4x128", lambda a: torch.softmax(a, -1),
                          [torch.randn(4, 128, device=device)]))
    kernels.append(Kernel("softmax 8192x8192", lambda a: torch.softmax(a, -1),
                          [torch.randn(8192, 8192, device=device)]))
    for n in [1024, 2048, 4096] + ([] if quick else [8192]):
        a = torch.randn(n, n, device=device, dtype=torch.bfloat16)
        b = torch.randn(n, n, device=device, dtype=torch.bfloat16)
        kernels.append(Kernel(f"bf16 gemm {n}", torch.mm, [a, b]))
    for problem_name in ["softmax", "rmsnorm", "silu_and_mul", "gemm_bf16", "layernorm", "rope"]:
        kernels.append(_example(problem_name, device))
    return kernels


def _example(problem_name: str, device: torch.device) -> Kernel:
    problem = load_problem(ROOT / "problems" / problem_name)
    workload = problem.workloads[len(problem.workloads) // 2]
    definition = problem.definition
    axes = definition.resolve_axes(workload.axes)
    reference = import_file(ROOT / "problems" / problem_name / "reference.py", f"ref_{problem_name}")
    custom = (getattr(reference, definition.custom_inputs_entrypoint)
              if definition.custom_inputs_entrypoint else None)
    inputs = make_inputs(definition, workload, axes, 1, device, problem.directory, custom)
    module = import_file(ROOT / "problems" / problem_name / "solutions" / "triton.py", f"sol_{problem_name}")
    return Kernel(f"example {problem_name} {workload.axes}", module.run, inputs)


def flush_buffer(device: torch.device) -> torch.Tensor:
    l2 = torch.cuda.get_device_properties(device).L2_cache_size
    return torch.empty(2 * l2, dtype=torch.uint8, device=device)


def by_harness(k: Kernel, device: torch.device, overrides: dict[str, Any]) -> tuple[float, float | None]:
    """The harness's median and the median SM clock of its timed calls."""
    pool = [[t.clone() if isinstance(t, torch.Tensor) else t for t in k.inputs] for _ in range(2)]
    timing = time_callable(lambda i: [t.clone() if isinstance(t, torch.Tensor) else t for t in pool[i % 2]],
                           lambda args: k.fn(*args), lambda i, r: None, device,
                           TimingOptions.for_device(device, overrides))
    return timing.latency_ms, timing.sm_clock_mhz


def by_activity(k: Kernel, device: torch.device, flush: torch.Tensor) -> tuple[float, float | None]:
    """The raw records' median per-call span and the median SM clock after the calls."""
    from torch.profiler import ProfilerActivity, profile

    for _ in range(3):
        k.fn(*k.inputs)
    torch.cuda.synchronize(device)
    clocks = []
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(CALLS):
            flush.fill_(FLUSH_VALUE)
            torch.cuda.synchronize(device)
            k.fn(*k.inputs)
            torch.cuda.synchronize(device)
            clocks.append(sm_clock_mhz(device))
    events = sorted((e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA),
                    key=lambda e: e.time_range.start)
    calls: list[list[Any]] = []
    for e in events:
        if _is_flush(e):
            calls.append([])
        elif calls:
            calls[-1].append(e)
    spans = [(max(c.time_range.end for c in call) - min(c.time_range.start for c in call)) / 1e3
             for call in calls if call]
    read = [c for c in clocks if c is not None]
    return statistics.median(spans), statistics.median(read) if read else None


def _is_flush(event: Any) -> bool:
    return "FillFunctor<unsigned char>" in event.name


def by_do_bench(k: Kernel) -> float:
    import triton.testing

    return float(triton.testing.do_bench(lambda: k.fn(*k.inputs), return_mode="median"))


def by_events(k: Kernel, device: torch.device, flush: torch.Tensor) -> float:
    for _ in range(3):
        k.fn(*k.inputs)
    times = []
    for _ in range(CALLS):
        flush.fill_(FLUSH_VALUE)
        torch.cuda.synchronize(device)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        k.fn(*k.inputs)
        end.record()
        torch.cuda.synchronize(device)
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def cv(values: list[float]) -> float:
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean > 0 else float("inf")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="skip the largest sizes")
    parser.add_argument("--only", default="", help="only kernels whose name contains this")
    parser.add_argument("--timing", default="{}", help="JSON overrides of the harness's TimingOptions")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    device = torch.device("cuda", 0)
    flush = flush_buffer(device)
    rows = []
    overrides = json.loads(args.timing)
    for k in panel(device, args.quick):
        if args.only not in k.name:
            continue
        started = time.perf_counter()
        reps: dict[str, list[float]] = {"harness": [], "activity": [], "do_bench": [], "events": []}
        clocks: dict[str, list[float | None]] = {"harness": [], "activity": []}
        for _ in range(args.reps):  # interleaved, so drift hits every method alike
            for method, measured in (("harness", by_harness(k, device, overrides)),
                                     ("activity", by_activity(k, device, flush))):
                reps[method].append(measured[0])
                clocks[method].append(measured[1])
            reps["do_bench"].append(by_do_bench(k))
            reps["events"].append(by_events(k, device, flush))
        rows.append(_row(k.name, reps, clocks, time.perf_counter() - started))
        print(_line(rows[-1]), flush=True)
        del k
        torch.cuda.empty_cache()
        report = {"date": time.strftime("%Y-%m-%d"), "environment": _environment(device),
                  "reps": args.reps, "rows": rows, "targets": _targets(rows)}
        (args.out / "timing_fidelity.json").write_text(json.dumps(report, indent=1))  # as it goes
        (args.out / "timing_fidelity.md").write_text(_markdown(report))
    print(json.dumps(report["targets"], indent=1))
    return 0


def _row(name: str, reps: dict[str, list[float]], clocks: dict[str, list[float | None]],
         seconds: float) -> dict[str, Any]:
    means = {m: statistics.fmean(v) for m, v in reps.items()}
    activity = means["activity"]
    gap = abs(means["harness"] - activity)
    mean_clocks = {m: statistics.fmean(c) if c and None not in c else None for m, c in clocks.items()}
    return {
        "kernel": name, "reps": reps, "mean_ms": means, "cv": {m: cv(v) for m, v in reps.items()},
        "clocks_mhz": clocks, "mean_clock_mhz": mean_clocks,
        "harness_vs_activity": gap / activity if activity else None,
        "within_fidelity": gap <= max(0.02 * activity, 0.3e-3),
        "seconds": seconds,
    }


def _targets(rows: list[dict[str, Any]]) -> dict[str, Any]:
    steady = [r for r in rows if r["mean_ms"]["activity"] >= 2e-3]
    small = [r for r in rows if r["mean_ms"]["activity"] < 10e-3]
    return {
        "fidelity (within max(2%, 0.3 us) of activity)": all(r["within_fidelity"] for r in rows),
        "cv <= 1% for kernels >= 2 us": all(r["cv"]["harness"] <= 0.01 for r in steady),
        "steadier than do_bench under 10 us": all(r["cv"]["harness"] <= r["cv"]["do_bench"] for r in small),
        "misses": [r["kernel"] for r in rows if not r["within_fidelity"]]
        + [f"cv {r['kernel']}" for r in steady if r["cv"]["harness"] > 0.01]
        + [f"vs do_bench {r['kernel']}" for r in small if r["cv"]["harness"] > r["cv"]["do_bench"]],
    }


def _environment(device: torch.device) -> dict[str, Any]:
    import triton

    props = torch.cuda.get_device_properties(device)
    return {"gpu": props.name, "driver": _driver(), "torch": torch.__version__, "triton": triton.__version__,
            "cuda": torch.version.cuda, "python": platform.python_version()}


def _driver() -> str:
    import subprocess

    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _line(row: dict[str, Any]) -> str:
    m, c = row["mean_ms"], row["cv"]
    return (f"{row['kernel'][:48]:48s} harness {m['harness'] * 1e3:10.2f} us (cv {c['harness']:.2%})  "
            f"activity {m['activity'] * 1e3:10.2f}  do_bench {m['do_bench'] * 1e3:10.2f} "
            f"(cv {c['do_bench']:.2%})  events {m['events'] * 1e3:10.2f}  "
            f"gap {row['harness_vs_activity']:.2%}  clocks {row['mean_clock_mhz']}")


def _mhz(row: dict[str, Any], method: str) -> str:
    clock = row["mean_clock_mhz"][method]
    return f"{clock:.0f}" if clock else "n/a"


def _markdown(report: dict[str, Any]) -> str:
    env = report["environment"]
    lines = [
        f"# Timing fidelity on {env['gpu']} ({report['date']})", "",
        f"Driver {env['driver']}, CUDA {env['cuda']}, torch {env['torch']}, triton {env['triton']}. "
        f"Means of {report.get('reps', 5)} repetitions in microseconds; cv across the repetitions; "
        "gap = |harness - activity| / activity; SM MHz: mean of each repetition's median SM clock "
        "(NVML) read after the calls. Produced by `python benchmarks/timing_fidelity.py`.", "",
        "| kernel | harness us | cv | activity us | cv | do_bench us | cv | events us | cv | gap | "
        "SM MHz harness / activity |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        m, c = r["mean_ms"], r["cv"]
        lines.append(f"| {r['kernel']} | " + " | ".join(
            f"{m[k] * 1e3:.2f} | {c[k]:.2%}" for k in ("harness", "activity", "do_bench", "events"))
            + f" | {r['harness_vs_activity']:.2%} | {_mhz(r, 'harness')} / {_mhz(r, 'activity')} |")
    lines += ["", "## Targets", ""]
    for key, value in report["targets"].items():
        lines.append(f"- {key}: {value}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
