"""A cgroup v2 memory limit for the `none` and `bubblewrap` backends, where the host offers one.

Opt-in: SOLARENA_SANDBOX_CGROUP names a cgroup v2 directory delegated to the worker's user whose
cgroup.subtree_control enables the memory controller (e.g. a systemd unit with Delegate=yes and
the worker process itself moved to a sibling leaf). Each run gets a child cgroup there holding
the whole sandbox, with memory.max at the memory limit, no swap, and memory.oom.group set: the
kernel then counts everything the sandbox keeps in memory (tmpfs files, memfd and System V shared
memory included, which the /proc watch cannot see) and kills the whole sandbox past the limit.

Without it the watch (process_tree.py, disk_usage.py) is the memory limit. cgroup v1 hosts, such
as the development machines, cannot use it; the tests check the files it writes on a stand-in.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

from .base import Limits

ENV = "SOLARENA_SANDBOX_CGROUP"
EMPTY_WAIT_SECONDS = 2.0


class CgroupUnavailable(RuntimeError):
    """SOLARENA_SANDBOX_CGROUP is set but names no usable cgroup v2 directory."""


class MemoryCgroup:
    """One run's cgroup: created before the run, joined by its first process, removed after."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.procs = str(path / "cgroup.procs")

    @classmethod
    def create(cls, limits: Limits, parent: str | None = None) -> MemoryCgroup | None:
        """The run's cgroup, or None when no parent is configured or there is no memory limit."""
        parent = parent if parent is not None else os.environ.get(ENV, "")
        if not parent or not limits.memory_bytes:
            return None
        base = Path(parent)
        if "memory" not in _read(base / "cgroup.subtree_control").split():
            raise CgroupUnavailable(f"{ENV}={parent}: not a cgroup v2 directory whose "
                                    "cgroup.subtree_control enables the memory controller")
        path = base / f"solarena-{os.getpid()}-{secrets.token_hex(4)}"
        path.mkdir()
        (path / "memory.max").write_text(str(limits.memory_bytes))
        for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
            if (path / name).exists():  # absent without swap accounting, or on older kernels
                (path / name).write_text(value)
        return cls(path)

    def enter(self) -> None:
        """Moves the calling process in; called in the child between fork and exec."""
        fd = os.open(self.procs, os.O_WRONLY)
        try:
            os.write(fd, b"0")
        finally:
            os.close(fd)

    def oom_killed(self) -> bool:
        for line in _read(self.path / "memory.events").splitlines():
            name, _, count = line.partition(" ")
            if name == "oom_kill" and count.strip().isdigit() and int(count) > 0:
                return True
        return False

    def remove(self) -> None:
        """Kills what is left inside (cgroup.kill, Linux 5.14+) and removes the cgroup."""
        if (self.path / "cgroup.kill").exists():
            self.path.joinpath("cgroup.kill").write_text("1")
        deadline = time.monotonic() + EMPTY_WAIT_SECONDS
        while _read(self.path / "cgroup.procs").strip() and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            self.path.rmdir()
        except OSError:
            pass  # still busy: the parent's owner clears it


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
