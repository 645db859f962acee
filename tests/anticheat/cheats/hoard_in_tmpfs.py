"""Limit evasion (class 25), memory kept in files: a correct kernel whose first call writes 2 GiB
into a memory-backed filesystem of the sandbox (/tmp, or /dev/shm), keeps it there for the rest
of the evaluation and goes on answering right. Files on a tmpfs are memory, but no process's
resident memory: a limit that only sums the processes' RSS never sees them.

A sandbox whose memory limit does not cover its own tmpfs lets a solution hold any amount of the
host's memory and still pass."""

import os
import time
from pathlib import Path

import torch

PLACE = "/tmp"
HOARD_BYTES = 2 << 30
CHUNK = b"\xa5" * (64 << 20)  # not zeros: nothing may dedupe or compress it
JOB = Path(__file__).resolve().parent.parent


def _first_call() -> bool:
    try:
        os.mkdir(JOB / "hoarded")
    except FileExistsError:
        return False
    return True


def _hoard() -> int:
    written = 0
    try:
        with open(os.path.join(PLACE, "hoard.bin"), "wb") as fh:
            while written < HOARD_BYTES:
                fh.write(CHUNK)
                written += len(CHUNK)
    except OSError:
        pass  # full: keep what is there
    return written


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if _first_call():
        (JOB / "hoarded" / "bytes").write_text(str(_hoard()))
        time.sleep(2.0)  # long enough for any watch to see it
    return x * 2.0 + bias[None, :]
