"""A solution's process that dies for want of memory is said to have reached the memory limit,
not to have exited for no reason: when the allocation fails outside the solution's own call (the
process exits with a status of its own), and when the attempt it died in ends at the limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from evaluator.harness import executor, status
from tests.conftest import evaluate_source

MEMORY_LIMIT = 3 << 29  # 1.5 GiB
ROOT = Path(__file__).resolve().parents[2]


STARVED = """
import socket

from evaluator.harness import executor
from evaluator.harness.buffers import HostArena
from evaluator.harness.channel import Channel


def starved(self, limit):  # the next message cannot be received for want of memory
    raise MemoryError


Channel.receive = starved
mine, theirs = socket.socketpair()
executor.main([str(theirs.fileno()), str(HostArena().fd)])
"""


def test_a_memory_error_between_calls_exits_with_its_own_status() -> None:
    done = subprocess.run([sys.executable, "-c", STARVED], cwd=ROOT, timeout=120, capture_output=True)
    assert done.returncode == executor.OUT_OF_MEMORY_EXIT, done.stderr.decode()[-2000:]


DIES_THEN_HOARDS = '''
import os
from pathlib import Path

JOB = Path(__file__).resolve().parent.parent
HOARD_BYTES = 2 << 30  # past the limit: the attempt ends there
HELD = []


def _first(name):
    try:
        os.mkdir(JOB / name)
    except FileExistsError:
        return False
    return True


def run(x, bias):
    if _first("died"):
        os._exit(1)  # gone with no word, as an allocation failing outside a call leaves it
    if _first("hoarded"):
        HELD.append(b"\\xa5" * HOARD_BYTES)
    return x * 2.0 + bias[None, :]
'''


def test_a_death_in_an_attempt_that_ends_at_the_memory_limit_names_the_limit(tmp_path: Path) -> None:
    evaluated = evaluate_source(tmp_path, DIES_THEN_HOARDS, supervise={"memory_bytes": MEMORY_LIMIT})
    rows = [evaluated.result(w.uuid) for w in evaluated.workloads]
    assert (tmp_path / "job" / "hoarded").is_dir(), "the solution never hoarded"
    limit = "the memory limit of 1.5 GiB was reached"
    assert rows[0]["status"] == status.RUNTIME_ERROR
    died = "the solution's process exited with code 1 in the middle of a call"
    assert rows[0]["message"] == f"{limit} ({died})"
    assert rows[1]["status"] == status.RUNTIME_ERROR and rows[1]["message"].startswith(limit)
    assert [r["status"] for r in rows[2:]] == [status.PASSED] * (len(rows) - 2)


def test_a_death_in_an_attempt_that_ends_well_keeps_its_own_words(tmp_path: Path) -> None:
    source = DIES_THEN_HOARDS.replace("HOARD_BYTES = 2 << 30", "HOARD_BYTES = 1 << 20")
    assert "1 << 20" in source
    evaluated = evaluate_source(tmp_path, source, supervise={"memory_bytes": MEMORY_LIMIT})
    rows = [evaluated.result(w.uuid) for w in evaluated.workloads]
    assert rows[0] == {**rows[0], "status": status.RUNTIME_ERROR,
                       "message": "the solution's process exited with code 1 in the middle of a call"}
    assert [r["status"] for r in rows[1:]] == [status.PASSED] * (len(rows) - 1)
