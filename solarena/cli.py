"""The `solarena` command. `solarena eval` runs the same harness and scoring as the server, on
the researcher's own GPU (or the CPU interpreter)."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

import sandbox
from evaluator import ncu_runs, traces
from evaluator.harness import ncu, profiling
from evaluator.harness.hidden import draw_hidden, load_hidden_file
from evaluator.harness.importer import find_problem_dirs
from evaluator.harness.problem import Problem, ProblemError, Workload, load_problem
from evaluator.jobs import UNTIMED, SolutionError, SolutionFiles, write_job
from evaluator.scoring import numbers
from evaluator.scoring.hardware import HARDWARE, HardwareSpec, get_hardware
from evaluator.scoring.report import build_report
from evaluator.supervise import HarnessOutcome, SuperviseOptions, run_harness
from solarena import client_commands
from solarena.client import ClientError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SECRET = "solarena-local"
GPU_NAMES = {"H200": "h200", "H100": "h100", "B200": "b200", "A100": "a100", "MI300X": "mi300x"}
NCU_SECONDS = 600.0  # the least workload and start-up limit under ncu, which replays each kernel


class UsageError(Exception):
    """Arguments or files that cannot be used; printed as is, exit code 2."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ClientError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="solarena", description="GPU kernel leaderboard tools",
                                     epilog=client_commands.EXIT_CODES_HELP,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    ev = sub.add_parser("eval", help="check and time a solution locally, as the server would")
    ev.add_argument("--problem", required=True,
                    help="a problem directory, or the folder, slug or name of a problem of the suite")
    ev.add_argument("--solution", required=True, type=Path, help="a .py file or a solution.json")
    ev.add_argument("--hardware", default="auto",
                    help=f"auto (detect), or one of: {', '.join(HARDWARE)} (cpu: Triton interpreter)")
    ev.add_argument("--workloads", choices=("smoke", "visible", "all"), default=None,
                    help="smoke: small visible+hidden (default on cpu); visible; all: visible+hidden")
    ev.add_argument("--mode", choices=("ranked", "test", "benchmark", "profile"), default=None,
                    help="as on the server: test checks correctness on the visible workloads and times "
                         "nothing; benchmark times the visible workloads; profile checks them and lists "
                         "the top kernels of each (--profile); ranked (default) runs the selection of "
                         "--workloads")
    ev.add_argument("--profile", action="store_true",
                    help="the profile mode: Nsight Compute where ncu and a GPU are there, else torch's "
                         "profiler; timings never scored (docs/measuring.md, \"Profile mode\")")
    ev.add_argument("--workload", default=None, metavar="UUID",
                    help="with --profile: profile just this visible workload (smoke-sized or full-size)")
    ev.add_argument("--profile-dir", type=Path, default=Path("solarena-ncu"), metavar="DIR",
                    help="where --profile writes the .ncu-rep files (default: ./solarena-ncu)")
    ev.add_argument("--json", action="store_true", help="print one JSON document (docs/result-format.md)")
    ev.add_argument("--trace-out", type=Path, metavar="FILE",
                    help="also write SOL-ExecBench traces there, one JSON object per workload a line")
    ev.add_argument("--secret", default=None,
                    help="secret for drawing hidden workloads (default: $SOLARENA_HIDDEN_SECRET)")
    ev.add_argument("--hidden-file", type=Path, help="private JSONL file of hidden workloads")
    ev.add_argument("--seed", type=int, default=None, help="input seed (default: random per run)")
    ev.add_argument("--sandbox", choices=sandbox.BACKENDS, default="none",
                    help="how to isolate the solution: none (a plain child process), bubblewrap, "
                         "or docker (the evaluator image, docker/evaluator.Dockerfile)")
    ev.add_argument("--workload-timeout", type=float, default=60.0, metavar="SECONDS")
    ev.add_argument("--timeout", type=float, default=1800.0, metavar="SECONDS",
                    help="limit for the whole evaluation")
    ev.add_argument("--correctness-rounds", type=int, default=None, metavar="N")
    ev.add_argument("--timing-budget", type=float, default=None, metavar="SECONDS",
                    help="time budget for timing each of solution, reference and baseline per workload")
    ev.set_defaults(func=cmd_eval)
    client_commands.register(sub)
    cal = sub.add_parser("calibrate", help="measure this GPU's bandwidth and matrix peaks "
                         "(store them with manage.py load_calibration SLUG FILE)")
    cal.add_argument("--json", action="store_true", help="print the peaks as JSON")
    cal.add_argument("--out", type=Path, help="also write the JSON to this file")
    cal.set_defaults(func=cmd_calibrate)
    return parser


def cmd_calibrate(args: argparse.Namespace) -> int:
    import torch

    from evaluator.harness.calibrate import calibrate

    if not torch.cuda.is_available():
        raise UsageError("calibration needs a CUDA GPU, and none is visible")
    peaks = calibrate(torch.device("cuda", torch.cuda.current_device()))
    name = torch.cuda.get_device_name()
    document = {"gpu": name, "hardware": local_hardware_slug(name), "peaks": peaks}
    if args.out:
        args.out.write_text(json.dumps(document, indent=1), encoding="utf-8")
    if args.json:
        print(json.dumps(document, indent=1))
    else:
        for key, value in peaks.items():
            unit = "TB/s" if key == "memory_bandwidth" else "TFLOP/s"
            print(f"{key:18s} {value / 1e12:10.1f} {unit}")
    return 0


# ---------------------------------------------------------------- eval


def cmd_eval(args: argparse.Namespace) -> int:
    problem = resolve_problem(args.problem)
    try:
        solution = SolutionFiles.from_path(args.solution)
    except SolutionError as exc:
        raise UsageError(str(exc)) from None
    hardware = resolve_hardware(args.hardware)
    if args.trace_out is not None:
        check_trace_out(args.trace_out)
    try:
        sandbox.get_backend(args.sandbox)
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    mode = resolve_mode(args)
    cpu = hardware.slug == "cpu"
    selection = args.workloads or ("smoke" if cpu else "all")
    secret = args.secret or os.environ.get("SOLARENA_HIDDEN_SECRET") or DEFAULT_SECRET
    if args.workload is not None:
        workloads, selection = [one_workload(problem, mode, args)], "visible"
    else:
        workloads = select_workloads(problem, selection, secret, args.hidden_file)
    if mode != "ranked":  # the private modes never touch hidden workloads
        workloads = [w for w in workloads if w.visibility == "visible"]
    seed = args.seed if args.seed is not None else secrets.randbits(48)
    options: dict[str, Any] = dict(UNTIMED) if mode in ("test", "profile") else {}
    ncu_path = ncu_for(cpu) if mode == "profile" else None
    if mode == "profile":
        options["profile"] = profiling_tool(ncu_path, cpu)
    if args.correctness_rounds is not None:
        if args.correctness_rounds < 1:
            raise UsageError("--correctness-rounds must be at least 1")
        options["correctness_rounds"] = args.correctness_rounds
    if args.timing_budget is not None:
        if args.timing_budget <= 0:
            raise UsageError("--timing-budget must be positive")
        options["timing"] = {"budget_seconds": args.timing_budget}
    supervise = SuperviseOptions(workload_seconds=args.workload_timeout, total_seconds=args.timeout,
                                 cpu_interpreter=cpu, backend=args.sandbox)
    console = Console(stderr=True, markup=False)
    device = "cpu" if cpu else "cuda"
    with tempfile.TemporaryDirectory(prefix="solarena-job-") as tmp:
        if ncu_path is not None:
            job = ncu_runs.ProfileJob(problem, solution, workloads, seed, device, options)
            outcome = profile_with_ncu(ncu_path, Path(tmp), job, supervise, args.profile_dir, console,
                                       quiet=args.json)
        else:
            job_dir = Path(tmp) / "job"
            write_job(job_dir, problem, solution, workloads, seed=seed, device=device, options=options)
            outcome = _run_with_progress(job_dir, workloads, supervise, console, quiet=args.json)
    report = build_report(problem.definition, workloads, outcome, hardware)
    report["solution"] = str(args.solution)
    report["seed"] = seed
    report["mode"] = mode
    report["workload_selection"] = selection
    if mode == "profile":
        for row in report["workloads"]:  # beside the scored fields, never among them
            row["profile"] = outcome.results.get(row["uuid"], {}).get("profile")
    if args.json:
        print(json.dumps(report, indent=2, allow_nan=False))
    else:
        width = None if sys.stdout.isatty() else 140
        print_report(report, Console(width=width, markup=False))
    if args.trace_out is not None:  # after the report, which a failed write must not lose
        write_traces(args.trace_out, report, workloads, solution, args.solution, hardware)
    return 0


def resolve_mode(args: argparse.Namespace) -> str:
    if args.profile and args.mode not in (None, "profile"):
        raise UsageError(f"--profile is a mode of its own: it cannot go with --mode {args.mode}")
    return "profile" if args.profile else args.mode or "ranked"


def one_workload(problem: Problem, mode: str, args: argparse.Namespace) -> Workload:
    """The one visible workload --workload asks a profile run for, as the server picks it."""
    if mode != "profile":
        raise UsageError("--workload goes with --profile (or --mode profile)")
    if args.workloads is not None:
        raise UsageError("--workload names the one workload to profile: leave --workloads out")
    for workload in problem.workloads + problem.smoke_workloads:
        if workload.uuid == args.workload:
            return workload
    raise UsageError(f"problem {problem.name} has no visible workload {args.workload!r}")


def profiling_tool(ncu_path: str | None, cpu: bool) -> str:
    """Which profiler a profile run uses, said in one line."""
    if ncu_path is not None:
        print(f"profiling with Nsight Compute ({ncu_path})", file=sys.stderr)
        return profiling.NCU
    why = "on the CPU" if cpu else "ncu is not on PATH"
    print(f"profiling with torch's profiler ({why}): kernel names and times, no hardware counters",
          file=sys.stderr)
    return profiling.TORCH


def ncu_for(cpu: bool) -> str | None:
    """The Nsight Compute to profile with: ncu on PATH, on a GPU (the seam tests put a fake one in)."""
    return None if cpu else ncu.find_ncu()


def profile_with_ncu(ncu_path: str, tmp: Path, job: ncu_runs.ProfileJob, supervise: SuperviseOptions,
                     out_dir: Path, console: Console, quiet: bool) -> HarnessOutcome:
    """ncu_runs.profile, each report copied to out_dir as <problem>-<workload>.ncu-rep; where ncu
    failed, torch's profiler, said in one line."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--profile-dir {out_dir}: {exc.strerror or exc}") from None
    slow = replace(supervise, workload_seconds=max(supervise.workload_seconds, NCU_SECONDS),
                   startup_seconds=max(supervise.startup_seconds, NCU_SECONDS))

    def run(job_dir: Path, workloads: list[Workload], options: SuperviseOptions) -> HarnessOutcome:
        return _run_with_progress(job_dir, workloads, options, console, quiet)

    profiled = ncu_runs.profile(ncu_path, tmp, job, slow, run)
    for uuid, export in profiled.reports.items():
        kept = out_dir / f"{job.problem.name}-{uuid}.ncu-rep"
        try:
            with ncu_runs.open_report(export) as source, open(kept, "wb") as target:
                shutil.copyfileobj(source, target)
        except (OSError, ncu.NcuError) as exc:
            print(f"{uuid}: the Nsight Compute report was not copied to {kept}: {exc}", file=sys.stderr)
            continue
        profiled.outcome.results[uuid]["profile"]["report"] = str(kept)
    if profiled.error is not None:
        print(f"Nsight Compute failed ({profiled.error}): profiling with torch's profiler instead, "
              "kernel names and times, no hardware counters", file=sys.stderr)
    if profiled.reports and not quiet:
        print(f"Nsight Compute reports written to {out_dir}/ (open with ncu-ui or ncu --import)",
              file=sys.stderr)
    return profiled.outcome


def check_trace_out(path: Path) -> None:
    """Before a long run: the trace file must be writable where asked."""
    if path.is_dir():
        raise UsageError(f"--trace-out {path}: is a directory; give a file name")
    if not path.parent.is_dir():
        raise UsageError(f"--trace-out {path}: no directory {path.parent}")


def write_traces(path: Path, report: dict[str, Any], workloads: list[Workload], solution: SolutionFiles,
                 solution_path: Path, hardware: HardwareSpec) -> None:
    try:
        records = traces.report_traces(
            report, [w.to_json() for w in workloads], hardware_name=hardware.name,
            solution=traces.solution_name(solution.files, solution.entry, solution_path.stem),
            timestamp=traces.iso_timestamp())
    except traces.TraceError as exc:
        raise UsageError(f"--trace-out: {exc}") from None
    try:
        path.write_text(traces.to_jsonl(records), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--trace-out {path}: {exc.strerror or exc}") from None
    print(f"wrote {len(records)} trace(s) to {path}", file=sys.stderr)


def resolve_problem(value: str) -> Problem:
    """A problem directory, or a problem of the suite (SOLARENA_PROBLEMS_DIR, ours by default,
    laid out flat or in category folders) named by its folder, its slug or its name as written."""
    path = Path(value)
    if not path.exists():
        suite = Path(os.environ.get("SOLARENA_PROBLEMS_DIR", PROJECT_ROOT / "problems"))
        found = find_problem_dirs(suite, value)
        if not found:
            raise UsageError(f"no problem directory {value!r} and no problem of that folder, slug or "
                             f"name in {suite}")
        if len(found) > 1:
            raise UsageError(f"{value!r} names more than one problem in {suite}: "
                             + ", ".join(str(p) for p in found) + "; give the directory")
        path = found[0]
    try:
        return load_problem(path)
    except ProblemError as exc:
        raise UsageError(f"invalid problem: {exc}") from None


def resolve_hardware(value: str) -> HardwareSpec:
    if value == "auto":
        name = gpu_name()
        slug = local_hardware_slug(name)
        if slug is None:
            raise UsageError(f"unknown GPU {name!r}: pass --hardware with one of {', '.join(HARDWARE)}")
        return get_hardware(slug)
    try:
        hardware = get_hardware(value)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if hardware.slug != "cpu":
        import torch

        if not torch.cuda.is_available():
            raise UsageError(f"--hardware {value} needs a GPU and none is visible; use --hardware cpu")
    return hardware


def local_hardware_slug(name: str | None) -> str | None:
    """The hardware slug of a GPU name ("cpu" without a GPU; None for a GPU we have no row for)."""
    if name is None:
        return "cpu"
    return next((slug for marker, slug in GPU_NAMES.items() if marker in name), None)


def gpu_name() -> str | None:
    """The first visible GPU's name, asked of nvidia-smi so this process creates no CUDA context."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and not visible.strip():
        return None
    first = (visible or "0").split(",")[0].strip()
    try:
        out = subprocess.run(["nvidia-smi", "-i", first, "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().splitlines()[0].upper()
    except (OSError, subprocess.TimeoutExpired):
        pass
    import torch

    return torch.cuda.get_device_name().upper() if torch.cuda.is_available() else None


def select_workloads(
    problem: Problem, selection: str, secret: str, hidden_file: Path | None
) -> list[Workload]:
    try:
        if selection == "smoke":
            if not problem.smoke_workloads:
                raise UsageError(f"problem {problem.name} has no smoke workloads (smoke.jsonl)")
            return problem.smoke_workloads + draw_hidden(problem, secret, smoke=True)
        if selection == "visible":
            return list(problem.workloads)
        hidden = (load_hidden_file(hidden_file, problem) if hidden_file
                  else draw_hidden(problem, secret))
        return problem.workloads + hidden
    except ProblemError as exc:
        raise UsageError(str(exc)) from None


def _run_with_progress(job_dir: Path, workloads: list[Workload], options: SuperviseOptions,
                       console: Console, quiet: bool) -> Any:
    uuids = [w.uuid for w in workloads]
    if quiet or not console.is_terminal:
        return run_harness(job_dir, uuids, options)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("starting", total=len(uuids))

        def on_event(event: dict[str, Any]) -> None:
            if event["event"] == "start":
                bar.update(task, description=f"workload {escape(numbers.cut(event['uuid']))}")
            else:
                bar.advance(task)

        return run_harness(job_dir, uuids, options, progress=on_event)


def _roof(line: dict[str, Any] | None) -> str:
    """The share of the roof reached and which roof: "41% mem", "88% comp"; the roof alone
    without a kernel time."""
    if not line:
        return "-"
    roof = "mem" if line["bound"] == "memory" else "comp"
    share = line.get("share_of_roof")
    return roof if share is None else f"{share:.0%} {roof}"


def print_report(report: dict[str, Any], console: Console) -> None:
    table = Table(title=f"{report['problem']} on {report['hardware']}")
    numeric = ("time", "reference", "baseline", "SOL", "roof", "score")
    for column in ("workload", "vis", "axes", "status", *numeric):
        table.add_column(column, overflow="fold", justify="right" if column in numeric else "left")
    notes = []
    for row in report["workloads"]:
        status = Text(row["status"], style="green" if row["status"] == "PASSED" else "red")
        table.add_row(row["uuid"], row["visibility"][:3], ",".join(str(v) for v in row["axes"].values()),
                      status, _ms(row["latency_ms"]), _ms(row["reference_latency_ms"]),
                      _ms(row["baseline_latency_ms"]), _ms(row["sol_ms"]), _roof(row.get("roofline")),
                      numbers.significant(row["score"]))
        if row["message"]:
            notes.append(f"{row['uuid']}: {row['message']}")
    console.print(table)
    console.print("axes: " + ", ".join(report["workloads"][0]["axes"]) if report["workloads"] else "")
    for note in notes:
        console.print(note, highlight=False)
    agg = report["aggregates"]
    parts = [f"score {numbers.with_interval(agg['score'], agg.get('score_ci95'))}"]
    for key, label in (("visible_score", "visible"), ("hidden_score", "hidden"),
                       ("generalization_gap", "gap"), ("geomean_speedup", "geomean speedup")):
        if agg.get(key) is not None:
            parts.append(f"{label} {numbers.with_interval(agg[key], agg.get(f'{key}_ci95'))}")
    console.print("  ".join(parts))
    if report.get("solution_error"):
        console.print(Text.assemble(("solution failed to load:", "red"), f" {report['solution_error']}"))
    print_profiles(report, console)
    note = HARDWARE[report["hardware"]].notes if report["hardware"] in HARDWARE else ""
    if note:
        console.print(Text(f"note: {note}", style="yellow"))


def print_profiles(report: dict[str, Any], console: Console,
                   stored_report: Callable[[str], str] | None = None) -> None:
    """The top kernels of each profiled workload, longest total first. stored_report: where the
    server keeps a workload's Nsight Compute report (`report_bytes` in its profile), by uuid."""
    for row in report["workloads"]:
        profile = row.get("profile")
        if not profile:
            continue
        table = Table(title=f"top kernels of {row['uuid']} ({profile.get('tool')}, "
                            f"{profile.get('calls', '?')} calls)")
        ncu_columns = profile.get("tool") == profiling.NCU
        columns = ["kernel", "kind", "calls", "total", "mean", "grid", "block", "regs", "smem"]
        if ncu_columns:
            columns += ["SM %", "mem %", "DRAM %", "occupancy %"]
        for column in columns:
            justify = "left" if column in ("kernel", "kind") else "right"
            table.add_column(column, overflow="fold", justify=justify)
        for kernel in profile.get("kernels", []):
            cells = [kernel["name"], kernel["kind"], str(kernel["calls"]), _ms(kernel["total_ms"]),
                     _ms(kernel["mean_ms"]), _dims(kernel.get("grid")), _dims(kernel.get("block")),
                     numbers.significant(kernel.get("registers_per_thread")),
                     _bytes(kernel.get("shared_memory_bytes"))]
            if ncu_columns:
                cells += [numbers.significant(kernel.get(k)) for k in
                          ("sm_throughput_pct", "memory_throughput_pct", "dram_throughput_pct",
                           "achieved_occupancy_pct")]
            table.add_row(*cells)
        console.print(table)
        if profile.get("truncated"):
            console.print(f"{row['uuid']}: only the top {len(profile['kernels'])} are listed")
        if profile.get("report"):
            console.print(f"{row['uuid']}: Nsight Compute report {profile['report']}")
        if profile.get("report_bytes") and stored_report is not None:
            console.print(f"{row['uuid']}: Nsight Compute report ({_bytes(profile['report_bytes'])}): "
                          f"{stored_report(row['uuid'])}")
        if profile.get("ncu_error"):
            console.print(Text(f"{row['uuid']}: Nsight Compute failed ({profile['ncu_error']}); these are "
                               "torch's profiler's figures", style="yellow"))


def _dims(value: list[int] | None) -> str:
    return "x".join(str(v) for v in value) if value else numbers.DASH


def _bytes(value: int | None) -> str:
    return numbers.DASH if value is None else numbers.rate(value, "B").replace("/s", "")


def _ms(value: float | None) -> str:
    return numbers.duration(value)


if __name__ == "__main__":
    sys.exit(main())
