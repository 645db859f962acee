"""Pausing the solution's side as a unit: a cgroup freezer (trusted side).

The sandbox (sandbox/cgroup.py) makes a cgroup for the solution's side and hands the reporter
open descriptors of its files, named in the environment variable ENV ("v2,freeze=5,state=6,
procs=7"): the reporter moves the solution's process into it as soon as it starts, and every
process or thread that process starts is born inside. Freezing stops every task of the cgroup
where it stands (no signal to catch, ignore or continue, nothing exempt, a task forked meanwhile
frozen too) and is done once the kernel says the whole cgroup is frozen.

Where the sandbox has no cgroups to give, the reporter pauses process by process with SIGSTOP
(processes.py), with the gaps docs/security.md states.
"""

from __future__ import annotations

import os
import time

ENV = "SOLARENA_FREEZER"
FREEZE_SECONDS = 5.0
SPIN_SECONDS = 0.002


class FreezeFailed(RuntimeError):
    """The cgroup did not reach the frozen state in time."""


class Freezer:
    def __init__(self, version: int, freeze: int, state: int, procs: int) -> None:
        self.version, self._freeze, self._state, self._procs = version, freeze, state, procs
        self.frozen = False

    @classmethod
    def from_environment(cls) -> Freezer | None:
        """The freezer the sandbox handed over, taken out of the environment (so that no process
        started later inherits the word); None where there is none."""
        value = os.environ.pop(ENV, "")
        if not value:
            return None
        version, *fields = value.split(",")
        handles = dict(field.split("=", 1) for field in fields)
        fds = [int(handles[role]) for role in ("freeze", "state", "procs")]
        try:  # a wrapper in between (ncu) may have closed them: then signals it is
            for fd in fds:
                os.set_inheritable(fd, False)
        except OSError:
            return None
        return cls(int(version.lstrip("v")), *fds)

    @property
    def name(self) -> str:
        return f"cgroup v{self.version} freezer"

    def adopt(self, pid: int) -> None:
        """Move the process `pid` (and so everything it starts later) into the frozen cgroup."""
        os.write(self._procs, str(pid).encode())

    def freeze(self) -> None:
        os.pwrite(self._freeze, b"1" if self.version == 2 else b"FROZEN", 0)
        started = time.monotonic()
        while not self._is_frozen():
            now = time.monotonic()
            if now - started > FREEZE_SECONDS:
                raise FreezeFailed(f"the solution's side did not freeze within {FREEZE_SECONDS:.0f} s")
            if now - started > SPIN_SECONDS:
                time.sleep(0.0001)
        self.frozen = True

    def thaw(self) -> None:
        os.pwrite(self._freeze, b"0" if self.version == 2 else b"THAWED", 0)
        self.frozen = False

    def _is_frozen(self) -> bool:
        state = os.pread(self._state, 4096, 0)
        if self.version == 2:
            return b"frozen 1" in state
        return state.strip() == b"FROZEN"
