"""Limit evasion (class 25), disk behind an unlink: a correct kernel whose first call opens a file
in its job directory, unlinks it, writes 512 MiB into it and keeps it open for the rest of its
process's life, answering right all along. The blocks are used on the worker's disk, but no
directory lists the file, so a quota that walks the job directory never sees them.
"""

import os
import time
from pathlib import Path

import torch

HOARD_BYTES = 512 << 20
CHUNK = b"\x5a" * (16 << 20)
JOB = Path(__file__).resolve().parent.parent
HELD: list[object] = []


def _first_call() -> bool:
    try:
        os.mkdir(JOB / "hoarded")
    except FileExistsError:
        return False
    return True


def _hoard() -> None:
    path = JOB / "hoarded" / "hidden.bin"
    fh = open(path, "wb")
    HELD.append(fh)
    path.unlink()
    for _ in range(HOARD_BYTES // len(CHUNK)):
        fh.write(CHUNK)
    fh.flush()
    os.fsync(fh.fileno())


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if _first_call():
        _hoard()
        time.sleep(3.0)  # long enough for any watch to see it
    return x * 2.0 + bias[None, :]
