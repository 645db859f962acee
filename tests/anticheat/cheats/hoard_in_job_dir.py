"""Limit evasion (class 25), disk: a correct kernel whose first call writes 512 MiB of junk into
its job directory (the one writable place on the host's disk) and goes on answering right.

A sandbox with no quota on the job directory lets a solution fill the worker's disk and pass."""

import os
import time
from pathlib import Path

import torch

HOARD_BYTES = 512 << 20
CHUNK = b"\x5a" * (16 << 20)
JOB = Path(__file__).resolve().parent.parent


def _first_call() -> bool:
    try:
        os.mkdir(JOB / "hoarded")
    except FileExistsError:
        return False
    return True


def _hoard() -> None:
    with open(JOB / "hoarded" / "junk.bin", "wb") as fh:
        for _ in range(HOARD_BYTES // len(CHUNK)):
            fh.write(CHUNK)
        fh.flush()
        os.fsync(fh.fileno())


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if _first_call():
        _hoard()
        time.sleep(3.0)  # long enough for any watch to see it
    return x * 2.0 + bias[None, :]
