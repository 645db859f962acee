"""Limit evasion (class 25), memory kept in an anonymous file: a correct kernel whose first call
writes 2 GiB into a memfd_create file it never maps, keeps it open for the rest of its process's
life and goes on answering right. Its pages are memory, yet in no process's resident set and in
no filesystem that a sandbox could measure from outside.

A memory limit that sums resident memory and the sandbox's tmpfs usage never sees it."""

import os
import time
from pathlib import Path

import torch

HOARD_BYTES = 2 << 30
CHUNK = b"\xa5" * (64 << 20)
JOB = Path(__file__).resolve().parent.parent
HELD: list[int] = []


def _first_call() -> bool:
    try:
        os.mkdir(JOB / "hoarded")
    except FileExistsError:
        return False
    return True


def _hoard() -> None:
    fd = os.memfd_create("hoard")
    HELD.append(fd)
    for _ in range(HOARD_BYTES // len(CHUNK)):
        os.write(fd, CHUNK)


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if _first_call():
        _hoard()
        time.sleep(3.0)  # long enough for any watch to see it
    return x * 2.0 + bias[None, :]
