"""Reading the answer from the job's files: the solution looks for JSON and JSON-lines files in
its own directory, the working directory, HOME, the job directory, the directories above it and
the temp directory, for a job description with the run's seed or the hidden workloads. If it
finds one it prints it to stderr and raises it in an exception message (marked LEAKED), which a
submitter would read back. Otherwise it returns a wrong answer (no bias).

A naive harness that leaves its job file (seed, hidden workloads) where the solution can read it
hands over everything needed to regenerate the inputs or tune to the hidden shapes."""

import json
import os
import sys
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent


def _places() -> set[Path]:
    dirs = {Path.cwd(), HERE, *list(HERE.parents)[:3], Path(tempfile.gettempdir())}
    if os.environ.get("HOME"):
        dirs.add(Path(os.environ["HOME"]))
    return {p for d in dirs if d.is_dir() for p in [*d.glob("*.json"), *d.glob("*.jsonl")] if p.is_file()}


def _hidden_workloads(data: object) -> bool:
    if isinstance(data, dict):
        if data.get("visibility") == "hidden" and "axes" in data:
            return True
        return any(_hidden_workloads(v) for v in data.values())
    return isinstance(data, list) and any(_hidden_workloads(v) for v in data)


def _secrets(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    leaks = []
    for chunk in [text, *text.splitlines()]:
        try:
            data = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(data, dict) and ("seed" in data or _hidden_workloads(data)):
            leaks.append(f"{path}: {json.dumps(data)[:1500]}")
    return leaks


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    leaks = [leak for path in sorted(_places()) for leak in _secrets(path)]
    if leaks:
        print("LEAKED " + "\n".join(leaks), file=sys.stderr, flush=True)
        raise RuntimeError("LEAKED " + " | ".join(leaks)[:1800])
    return x * 2.0
