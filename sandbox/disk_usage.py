"""Bytes a sandbox keeps in files: in its job directory (its disk quota), in the memory-backed
filesystems private to it, and in files it holds open that no directory shows (memfd, files
unlinked after opening), which counts against its memory limit or its quota."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .base import describe_bytes

BLOCK = 4096  # the least an entry costs: a flood of empty files or directories counts too
CHECK_SECONDS = 1.0  # the job directory is walked, not read from one file: not on every poll


class JobDirQuota:
    """The job directory's disk limit, checked at most every CHECK_SECONDS."""

    def __init__(self, job_dir: Path, limit: int | None) -> None:
        self.job_dir, self.limit = job_dir, limit
        self.next_check = 0.0

    def exceeded(self, unlinked_bytes: int = 0) -> bool:
        """unlinked_bytes: files of the job directory's filesystem held open after an unlink."""
        now = time.monotonic()
        if not self.limit or now < self.next_check:
            return False
        self.next_check = now + CHECK_SECONDS
        return directory_bytes(self.job_dir, self.limit) + unlinked_bytes > self.limit

    @property
    def reason(self) -> str:
        return f"the disk limit of {describe_bytes(self.limit or 0)} for the job directory was reached"


def directory_bytes(top: Path, stop_above: int | None = None) -> int:
    """Disk used under top: the blocks allocated to every entry (a sparse file costs only what
    it holds), at least BLOCK each, links not followed. Counting stops once past stop_above,
    so a directory of millions of files costs one bounded walk."""
    total, pending = 0, [str(top)]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue  # removed meanwhile, or not readable
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            total += max(info.st_blocks * 512, BLOCK)
            if stat.S_ISDIR(info.st_mode):
                pending.append(entry.path)
            if stop_above is not None and total > stop_above:
                return total
    return total


def filesystem_bytes(path: str) -> int | None:
    """Bytes in use on the filesystem that holds path (statvfs), or None when it cannot be read."""
    try:
        info = os.statvfs(path)
    except OSError:
        return None
    return (info.f_blocks - info.f_bfree) * info.f_frsize


def private_filesystems_bytes(pids: Iterable[int], mounts: Iterable[str]) -> int:
    """Bytes in use on the mounts (e.g. /tmp) as the processes of a sandbox see them, read
    through /proc/<pid>/root of the first process that lets us look."""
    mounts = list(mounts)
    for pid in sorted(pids):
        used = [filesystem_bytes(f"/proc/{pid}/root{mount}") for mount in mounts]
        if all(value is not None for value in used):
            return sum(value for value in used if value is not None)
    return 0


@dataclass(frozen=True)
class HeldOpen:
    memfd_bytes: int = 0  # anonymous memory files (memfd_create): memory no RSS shows until mapped
    unlinked_bytes: int = 0  # files of the job directory's filesystem held open after an unlink


def held_open(pids: Iterable[int], job_device: int) -> HeldOpen:
    """What the processes hold in open files that no directory lists, each file counted once."""
    seen: set[tuple[int, int]] = set()
    memfd = unlinked = 0
    for pid in pids:
        for target, info in _open_files(pid):
            if not stat.S_ISREG(info.st_mode) or info.st_nlink or (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            if target.startswith("/memfd:"):
                memfd += info.st_blocks * 512
            elif info.st_dev == job_device:
                unlinked += info.st_blocks * 512
    return HeldOpen(memfd, unlinked)


def _open_files(pid: int) -> Iterable[tuple[str, os.stat_result]]:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return
    for fd in fds:
        path = f"/proc/{pid}/fd/{fd}"
        try:
            yield os.readlink(path), os.stat(path)
        except OSError:
            continue  # closed meanwhile
