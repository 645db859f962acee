"""The fake `ncu` of the CPU tests (tests/fixtures/ncu/fake_ncu.py), installed in a directory of its
own to put first on PATH, and what it was asked."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

from tests.conftest import FIXTURES

SCRIPT = FIXTURES / "ncu" / "fake_ncu.py"
DETAILS = FIXTURES / "ncu" / "details.csv"  # what it prints for a report it wrote
MARK = b"fake Nsight Compute report of "  # what its reports start with


def install(directory: Path, mode: str = "works") -> Path:
    """`directory`/ncu, run by this interpreter; mode: works, refuses or no-report. What it reads
    lies beside it, where a sandbox that runs it lets it read (bubblewrap binds its directory)."""
    directory.mkdir(parents=True, exist_ok=True)
    csv = directory / DETAILS.name
    csv.write_text(DETAILS.read_text())
    (directory / "ncu.json").write_text(json.dumps({"mode": mode, "csv": str(csv)}))
    ncu = directory / "ncu"
    ncu.write_text(f"#!{sys.executable}\n" + SCRIPT.read_text())
    ncu.chmod(ncu.stat().st_mode | stat.S_IXUSR)
    return ncu


def calls(directory: Path) -> list[list[str]]:
    """Each call's arguments, in order."""
    log = directory / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
