"""Kernel-enforced limits and pausing for the `none` and `bubblewrap` backends, where the host lets
this process make cgroups (as root, or in a delegated cgroup v2 subtree).

Each run gets a cgroup holding the whole sandbox, with the memory limit (`memory.max`, or cgroup
v1's `memory.limit_in_bytes` with swap at the same limit) and the task limit (`pids.max`: every
process and thread counts): the kernel then counts everything the sandbox keeps in memory (tmpfs
files, memfd and System V shared memory included, mapped or not) and refuses a task past the
limit, whatever a watch from outside could see. Under it, a child cgroup for the solution's side
alone, which the reporter freezes as a unit (cgroup v2's `cgroup.freeze`, cgroup v1's freezer):
the reporter gets the files that freeze it and move a process into it as open file descriptors,
never as paths, and nothing inside the sandbox can open them (bubblewrap shows /sys read-only;
the reporter is not dumpable, so its descriptors cannot be taken through /proc).

SOLARENA_SANDBOX_CGROUP: `auto` (the default) uses cgroup v2 where /sys/fs/cgroup is one with the
memory and pids controllers, else cgroup v1's memory, pids and freezer hierarchies, wherever this
process may write there; `off` uses none (the /proc watch is then the memory limit and the
reporter pauses the solution's side with signals: docs/security.md); a path names a delegated
cgroup v2 directory whose cgroup.subtree_control enables memory and pids.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from evaluator.harness.freezer import ENV as FREEZER_ENV  # noqa: F401  (re-exported for the backends)

from .base import Limits

ENV = "SOLARENA_SANDBOX_CGROUP"
ROOT = Path("/sys/fs/cgroup")
EMPTY_WAIT_SECONDS = 2.0
V1_CONTROLLERS = ("memory", "pids", "freezer")
# Tasks (processes and threads) of one sandbox: a hard stop for fork and thread bombs behind the
# process-count watch, high enough for torch's thread pools.
TASK_LIMIT = 4096


class CgroupUnavailable(RuntimeError):
    """SOLARENA_SANDBOX_CGROUP names no usable cgroup v2 directory."""


@dataclass
class RunCgroup:
    """One run's cgroups: `groups` hold the whole sandbox (one directory under cgroup v2, one per
    controller under v1), `solution` the solution's side, to be frozen."""

    version: int
    groups: list[Path]
    solution: Path

    @classmethod
    def create(cls, limits: Limits, setting: str | None = None,
               task_limit: int = TASK_LIMIT) -> RunCgroup | None:
        """The run's cgroups, or None where the setting or the host gives none."""
        setting = setting if setting is not None else os.environ.get(ENV, "auto")
        if setting == "off":
            return None
        if setting != "auto":
            return cls._create_v2(Path(setting), limits, task_limit)
        if _is_v2(ROOT) and {"memory", "pids"} <= set(_read(ROOT / "cgroup.controllers").split()):
            parent = ROOT / "solarena"
            if _writable(ROOT):
                try:
                    parent.mkdir(exist_ok=True)
                    _enable(ROOT, ("memory", "pids"))
                    _enable(parent, ("memory", "pids"))
                except OSError:
                    return None
                return cls._create_v2(parent, limits, task_limit)
            return None
        if all(_writable(ROOT / c) for c in V1_CONTROLLERS):
            return cls._create_v1(limits, task_limit)
        return None

    @classmethod
    def _create_v2(cls, parent: Path, limits: Limits, task_limit: int) -> RunCgroup:
        enabled = set(_read(parent / "cgroup.subtree_control").split())
        if not {"memory", "pids"} <= enabled:
            raise CgroupUnavailable(f"{ENV}={parent}: not a cgroup v2 directory whose "
                                    "cgroup.subtree_control enables the memory and pids controllers")
        run = parent / _name()
        run.mkdir()
        if limits.memory_bytes:
            (run / "memory.max").write_text(str(limits.memory_bytes))
        (run / "pids.max").write_text(str(task_limit))
        for name, value in (("memory.swap.max", "0"), ("memory.oom.group", "1")):
            if (run / name).exists():  # absent without swap accounting, or on older kernels
                (run / name).write_text(value)
        solution = run / "solution"
        solution.mkdir()
        return cls(2, [run], solution)

    @classmethod
    def _create_v1(cls, limits: Limits, task_limit: int) -> RunCgroup:
        name = _name()
        groups = []
        for controller in V1_CONTROLLERS:
            parent = ROOT / controller / "solarena"
            parent.mkdir(exist_ok=True)
            (parent / name).mkdir()
            groups.append(parent / name)
        memory, pids, freezer = groups
        if limits.memory_bytes:
            (memory / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
            if (memory / "memory.memsw.limit_in_bytes").exists():
                (memory / "memory.memsw.limit_in_bytes").write_text(str(limits.memory_bytes))
            # No OOM killer choosing one victim: a task at the limit waits, and the backend's
            # watch ends the whole sandbox (under_oom), as cgroup v2's memory.oom.group does.
            (memory / "memory.oom_control").write_text("1")
        (pids / "pids.max").write_text(str(task_limit))
        (freezer / "solution").mkdir()
        return cls(1, groups, freezer / "solution")

    def enter(self) -> None:
        """Moves the calling process in; called in the child between fork and exec."""
        for group in self.groups:
            fd = os.open(group / "cgroup.procs", os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)

    def freezer_handles(self) -> tuple[list[int], str]:
        """Open descriptors of the solution's cgroup (inheritable, for the sandboxed command),
        and the value of FREEZER_ENV that tells the reporter what they are.
        The caller closes them once the command has started."""
        if self.version == 2:
            files = (("freeze", "cgroup.freeze", os.O_WRONLY), ("state", "cgroup.events", os.O_RDONLY),
                     ("procs", "cgroup.procs", os.O_WRONLY))
        else:
            files = (("freeze", "freezer.state", os.O_WRONLY), ("state", "freezer.state", os.O_RDONLY),
                     ("procs", "cgroup.procs", os.O_WRONLY))
        fds, parts = [], [f"v{self.version}"]
        for role, name, mode in files:
            fd = os.open(self.solution / name, mode)
            os.set_inheritable(fd, True)
            fds.append(fd)
            parts.append(f"{role}={fd}")
        return fds, ",".join(parts)

    def oom_killed(self) -> bool:
        """Whether the sandbox reached its memory limit (cgroup v2: the kernel killed it there;
        v1: a task of it waits at the limit, for the backend to end the sandbox)."""
        if self.version == 2:
            return _count(self.groups[0] / "memory.events", "oom_kill") > 0
        control = self.groups[0] / "memory.oom_control"
        return _count(control, "oom_kill") > 0 or _count(control, "under_oom") > 0

    def limit_hit(self) -> bool:
        """Whether the sandbox's memory reached its limit at all (an allocation or a write into a
        memory file may then have failed with ENOMEM rather than being killed)."""
        if self.version == 2:
            return _count(self.groups[0] / "memory.events", "max") > 0 or self.oom_killed()
        memory = self.groups[0]
        peak, limit = (_read(memory / name).strip() for name in ("memory.max_usage_in_bytes",
                                                                  "memory.limit_in_bytes"))
        return (peak.isdigit() and limit.isdigit() and int(peak) >= int(limit)) or self.oom_killed()

    def tasks_refused(self) -> bool:
        """Whether the kernel refused a task at the task limit."""
        pids = self.groups[0] if self.version == 2 else self.groups[1]
        return _count(pids / "pids.events", "max") > 0

    def remove(self) -> None:
        """Kills what is left inside and removes the cgroups."""
        if self.version == 2:
            self._thaw()
            if (self.groups[0] / "cgroup.kill").exists():
                (self.groups[0] / "cgroup.kill").write_text("1")
        else:
            for pid in _listed(self.groups[0]) | _listed(self.solution):
                _kill(pid)
            self._thaw()  # a frozen task dies only once thawed
        deadline = time.monotonic() + EMPTY_WAIT_SECONDS
        while any(_listed(g) for g in self.groups) and time.monotonic() < deadline:
            time.sleep(0.05)
        for path in (self.solution, *self.groups):
            try:
                path.rmdir()
            except OSError:
                pass  # still busy: the parent's owner clears it

    def _thaw(self) -> None:
        name, value = ("cgroup.freeze", "0") if self.version == 2 else ("freezer.state", "THAWED")
        try:
            (self.solution / name).write_text(value)
        except OSError:
            pass


def _name() -> str:
    return f"solarena-{os.getpid()}-{secrets.token_hex(4)}"


def _is_v2(path: Path) -> bool:
    return (path / "cgroup.controllers").exists()


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK)


def _enable(path: Path, controllers: tuple[str, ...]) -> None:
    missing = [c for c in controllers if c not in _read(path / "cgroup.subtree_control").split()]
    if missing:
        (path / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in missing))


def _count(path: Path, key: str) -> int:
    for line in _read(path).splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _listed(group: Path) -> set[int]:
    return {int(p) for p in _read(group / "cgroup.procs").split() if p.isdigit()}


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
