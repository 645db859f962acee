"""Entry point: python -m evaluator.harness JOB_DIR [--skip UUID ...] < SPEC.json > RESULTS.jsonl

The job's spec (definition, workloads, the run's secret seed, options) comes on standard input and
never touches the job directory, which the solution can read. Events go to standard output, one
JSON object a line, as the run goes (environment, start and result of each workload, done), so
whoever supervises the run knows how far it got if it dies.

This process is the reporter. Before anything else it takes standard output for itself (the
solution's process, started later, inherits standard error in its place), makes itself
non-dumpable, so the solution's process can neither write on the results channel nor read this
process's memory or descriptors through /proc, and takes the cgroup freezer the sandbox handed
it, if any, out of the environment (freezer.py).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
from pathlib import Path
from typing import IO, Any

PR_SET_DUMPABLE = 4


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.harness")
    parser.add_argument("job_dir", type=Path)
    parser.add_argument("--skip", nargs="*", default=[], help="workload uuids already done")
    args = parser.parse_args(argv)
    channel = _take_stdout()
    _not_dumpable()
    from .freezer import Freezer

    freezer = Freezer.from_environment()
    spec = json.loads(sys.stdin.buffer.read())

    from .reporter import Job, run_job  # after the channel is private: importing torch is slow

    job = Job.from_spec(spec, args.job_dir.resolve())
    del spec

    def emit(event: dict[str, Any]) -> None:
        channel.write(json.dumps(_finite(event), allow_nan=False, default=str) + "\n")
        channel.flush()

    run_job(job, emit, skip=args.skip, freezer=freezer)
    return 0


def _take_stdout() -> IO[str]:
    """A private, non-inheritable copy of fd 1 for the results; fd 1 itself becomes stderr."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")  # os.dup is non-inheritable
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def _not_dumpable() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: such floats are reported as null."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


if __name__ == "__main__":
    sys.exit(main())
