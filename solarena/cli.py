"""The `solarena` command. `solarena eval` runs the same harness and scoring as the server, on
the researcher's own GPU (or the CPU interpreter)."""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

import sandbox
from evaluator import traces
from evaluator.harness.hidden import draw_hidden, load_hidden_file
from evaluator.harness.importer import find_problem_dirs
from evaluator.harness.problem import Problem, ProblemError, Workload, load_problem
from evaluator.jobs import UNTIMED, SolutionError, SolutionFiles, write_job
from evaluator.scoring import numbers
from evaluator.scoring.hardware import HARDWARE, HardwareSpec, get_hardware
from evaluator.scoring.report import build_report
from evaluator.supervise import SuperviseOptions, run_harness
from solarena import client_commands
from solarena.client import ClientError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SECRET = "solarena-local"
GPU_NAMES = {"H200": "h200", "H100": "h100", "B200": "b200", "A100": "a100", "MI300X": "mi300x"}


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
    ev.add_argument("--mode", choices=("ranked", "test", "benchmark"), default="ranked",
                    help="as on the server: test checks correctness on the visible workloads and times "
                         "nothing; benchmark times the visible workloads; ranked (default) runs the "
                         "selection of --workloads")
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
    cpu = hardware.slug == "cpu"
    selection = args.workloads or ("smoke" if cpu else "all")
    secret = args.secret or os.environ.get("SOLARENA_HIDDEN_SECRET") or DEFAULT_SECRET
    workloads = select_workloads(problem, selection, secret, args.hidden_file)
    if args.mode != "ranked":  # the private modes never touch hidden workloads
        workloads = [w for w in workloads if w.visibility == "visible"]
    seed = args.seed if args.seed is not None else secrets.randbits(48)
    options: dict[str, Any] = dict(UNTIMED) if args.mode == "test" else {}
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
    with tempfile.TemporaryDirectory(prefix="solarena-job-") as tmp:
        job_dir = Path(tmp) / "job"
        write_job(job_dir, problem, solution, workloads, seed=seed, device="cpu" if cpu else "cuda",
                  options=options)
        outcome = _run_with_progress(job_dir, workloads, supervise, console, quiet=args.json)
    report = build_report(problem.definition, workloads, outcome, hardware)
    report["solution"] = str(args.solution)
    report["seed"] = seed
    report["mode"] = args.mode
    report["workload_selection"] = selection
    if args.json:
        print(json.dumps(report, indent=2, allow_nan=False))
    else:
        width = None if sys.stdout.isatty() else 140
        print_report(report, Console(width=width, markup=False))
    if args.trace_out is not None:  # after the report, which a failed write must not lose
        write_traces(args.trace_out, report, workloads, solution, args.solution, hardware)
    return 0


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
                bar.update(task, description=f"workload {event['uuid'][:24]}")
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
    parts = [f"score {numbers.significant(agg['score'])}"]
    for key, label in (("visible_score", "visible"), ("hidden_score", "hidden"),
                       ("generalization_gap", "gap"), ("geomean_speedup", "geomean speedup")):
        if agg.get(key) is not None:
            parts.append(f"{label} {numbers.significant(agg[key])}")
    console.print("  ".join(parts))
    if report.get("solution_error"):
        console.print(Text.assemble(("solution failed to load:", "red"), f" {report['solution_error']}"))


def _ms(value: float | None) -> str:
    return numbers.duration(value)


if __name__ == "__main__":
    sys.exit(main())
