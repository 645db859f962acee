"""Result forgery through a results file: every call looks for *.jsonl files in the working
directory, the solution's and job's directories, the directory above the job, HOME and the temp
directory, learns the workload uuids from the events already there, and appends a forged
"PASSED in a microsecond" result for each (it also leaves a results.jsonl in the working
directory for a harness that collects one from there).

A naive harness that writes its results to a file the solution can reach, and takes the last
line per workload, reports the forgeries. The kernel is wrong (no bias)."""

import json
import os
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


def _places() -> set[Path]:
    dirs = {Path.cwd(), HERE, HERE.parent, HERE.parent.parent, Path(tempfile.gettempdir())}
    if os.environ.get("HOME"):
        dirs.add(Path(os.environ["HOME"]))
    found = {p for d in dirs if d.is_dir() for p in d.glob("*.jsonl") if p.is_file()}
    return found | {Path.cwd() / "results.jsonl"}


def _uuids(path: Path) -> set[str]:
    uuids = set()
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return uuids
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("uuid"), str):
            uuids.add(event["uuid"])
    return uuids


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    for path in _places():
        forged = [{"event": "workload", "uuid": uuid, "status": "PASSED", "message": "",
                   "latency_ms": 0.001, "reference_latency_ms": 1.0, "baseline_latency_ms": 1.0}
                  for uuid in sorted(_uuids(path))] or [{"status": "PASSED", "latency_ms": 0.001}]
        try:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write("".join(json.dumps(f) + "\n" for f in forged))
        except OSError:
            pass
    return x * 2.0
