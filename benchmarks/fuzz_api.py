"""A long fuzzing run: tests/fuzz/test_api_schema_fuzz.py with many examples per operation and caller
(a fresh random seed unless given) and tests/fuzz/test_bundle_fuzz.py with many byte flips per
archive format; writes what was sent and what came back to OUT_DIR/<date>-fuzz.json and .md.

    python benchmarks/fuzz_api.py OUT_DIR [--examples 500] [--flips 1000] [--seed N]

The tests run as CI runs them, against PostgreSQL (DATABASE_URL, default the solarena_fuzz
database; pytest-django makes its own test database beside it). Exits 1 when a test failed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TESTS = ["tests/fuzz/test_api_schema_fuzz.py", "tests/fuzz/test_bundle_fuzz.py"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--examples", type=int, default=500, help="per API operation and caller")
    parser.add_argument("--flips", type=int, default=1000, help="seeded byte-flipped archives per format")
    parser.add_argument("--seed", type=int, default=None, help="default: a new random one")
    parser.add_argument("--note", default="", help="a sentence for the report")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    with tempfile.TemporaryDirectory(prefix="solarena-fuzz-") as tmp:
        log, junit = Path(tmp) / "calls.jsonl", Path(tmp) / "junit.xml"
        env = {**os.environ, "SOLARENA_FUZZ_EXAMPLES": str(args.examples), "SOLARENA_FUZZ_SEED": str(seed),
               "SOLARENA_FUZZ_LOG": str(log), "SOLARENA_FUZZ_FLIPS": str(args.flips),
               "DATABASE_URL": os.environ.get("DATABASE_URL",
                                              "postgres://postgres@127.0.0.1:5432/solarena_fuzz")}
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pytest", *TESTS, "-p", "no:cacheprovider", "-q",
                               f"--junitxml={junit}"], cwd=ROOT, env=env, capture_output=True, text=True)
        seconds = time.monotonic() - started
        print(done.stdout[-6000:], done.stderr[-2000:])
        calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        tests = outcomes(junit) if junit.exists() else []
    report = summary(args, seed, seconds, calls, tests)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    stem = args.out_dir / f"{report['date']}-fuzz"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    stem.with_suffix(".md").write_text(render(report), encoding="utf-8")
    print(render(report))
    return 0 if done.returncode == 0 and not report["failed"] else 1


def outcomes(junit: Path) -> list[tuple[str, str]]:
    """Each test and its outcome: passed, failed or skipped (with the first line of the failure)."""
    result = []
    for case in ElementTree.parse(junit).iter("testcase"):
        name = f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}"
        failure = case.find("failure")
        if failure is None:  # (an Element without children is falsy, so no `or` here)
            failure = case.find("error")
        if failure is not None:
            result.append((name, "failed: " + ((failure.get("message") or "").splitlines() or [""])[0][:300]))
        else:
            result.append((name, "skipped" if case.find("skipped") is not None else "passed"))
    return result


def summary(args: argparse.Namespace, seed: int, seconds: float, calls: list[dict[str, Any]],
            tests: list[tuple[str, str]]) -> dict[str, Any]:
    statuses: dict[str, Counter[int]] = defaultdict(Counter)
    for call in calls:
        statuses[f"{call['operation']} ({call['caller']})"][call["status"]] += 1
    return {
        "date": datetime.now().strftime("%Y-%m-%d"),
        "note": args.note,
        "machine": f"{platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "examples_per_operation_and_caller": args.examples, "seed": seed, "flips_per_format": args.flips,
        "seconds": round(seconds, 1), "requests": len(calls),
        "server_errors": sum(1 for call in calls if call["status"] >= 500),
        "statuses": {op: dict(sorted(counts.items())) for op, counts in sorted(statuses.items())},
        "tests": len(tests), "failed": [f"{name}: {why}" for name, why in tests if why.startswith("failed")],
    }


def render(r: dict[str, Any]) -> str:
    lines = [
        f"# Fuzzing ({r['date']})",
        "",
        f"`benchmarks/fuzz_api.py --examples {r['examples_per_operation_and_caller']} --flips "
        f"{r['flips_per_format']} --seed {r['seed']}`: tests/fuzz/test_api_schema_fuzz.py (schemathesis "
        "generating requests for every operation of `/api/v1/schema/`, signed in with a token and "
        "anonymous, against the Django app on PostgreSQL; checks: no server error, response bodies and "
        "content types as the schema says) and tests/fuzz/test_bundle_fuzz.py (the bad-bundle sweep, "
        "and seeded byte flips of a good zip and tar.gz: each a 4xx with a message and no row left, "
        "or accepted whole).",
        "",
        *([f"**{r['note']}**", ""] if r["note"] else []),
        f"- machine: {r['machine']}; {r['seconds']} s",
        f"- API requests sent: {r['requests']}; server errors: **{r['server_errors']}**",
        f"- tests: {r['tests']}, failed: **{len(r['failed'])}** {r['failed'] or ''}",
        "",
        "| operation (caller) | status codes (count) |",
        "|---|---|",
        *(f"| `{op}` | {', '.join(f'{code}: {n}' for code, n in counts.items())} |"
          for op, counts in r["statuses"].items()),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
