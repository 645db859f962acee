"""Entry point: python -m evaluator.harness JOB_DIR --out RESULTS.jsonl [--skip UUID ...]

Writes one JSON object a line to the results file as it goes (environment, start and result of
each workload, done), so whoever supervises the run knows how far it got if it dies.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.harness")
    parser.add_argument("job_dir", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--skip", nargs="*", default=[], help="workload uuids already done")
    args = parser.parse_args(argv)

    from .runner import Job, run_job  # after argument parsing: importing torch is slow

    job = Job.load(args.job_dir)
    with open(args.out, "a", encoding="utf-8") as out:

        def emit(event: dict[str, Any]) -> None:
            out.write(json.dumps(_finite(event), allow_nan=False, default=str) + "\n")
            out.flush()
            os.fsync(out.fileno())

        run_job(job, emit, skip=args.skip)
    return 0


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
