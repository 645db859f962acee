"""The sandbox interface: run this command on this job directory with these limits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

OUTPUT_CAP = 64 * 1024  # bytes of stdout/stderr kept
JOB_DIR_BYTES = 4 << 30  # default size limit of the job directory (caches and builds included)


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 1800.0
    cpu_seconds: float | None = None
    # Memory of the whole sandbox: resident memory of the process tree plus the files in its
    # private memory-backed filesystems (/tmp, /dev/shm), which a per-process count misses.
    memory_bytes: int | None = None
    max_processes: int | None = None  # processes in the tree (threads count towards RLIMIT_NPROC)
    max_open_files: int | None = 4096
    job_dir_bytes: int | None = JOB_DIR_BYTES  # disk used in the job directory (its quota)


@dataclass(frozen=True)
class RunResult:
    exit_code: int | None
    stdout: str
    stderr: str
    wall_seconds: float
    # "exit", "timeout", "watchdog", or the limit of the sandbox that was reached: "memory",
    # "processes" or "disk" (the job directory's quota)
    ended_by: str
    signal: int | None = None
    reason: str = ""  # why it was ended, for people: names the limit

    @property
    def ok(self) -> bool:
        return self.ended_by == "exit" and self.exit_code == 0


# Called about every 0.2 s while the command runs; returning True ends it ("watchdog").
Watchdog = Callable[[], bool]


class Backend(Protocol):
    name: str

    def run(
        self,
        argv: Sequence[str],
        job_dir: Path,
        limits: Limits,
        env: Mapping[str, str],
        watchdog: Watchdog | None = None,
        *,
        stdin_data: bytes = b"",
        stdout_path: Path | None = None,
    ) -> RunResult:
        """Run argv on job_dir, the only writable place besides a private tmp. The working
        directory is not job_dir but one the command cannot write (an empty read-only one under
        bubblewrap, the read-only root under docker; under `none` a fresh empty one, which
        the same user could still write), so a trusted interpreter finds nothing planted there.
        stdin_data is fed to its standard input and then closed; with stdout_path its standard
        output goes to that file, live (RunResult.stdout is then empty)."""
        ...


BACKENDS = ("none", "bubblewrap", "docker")


def get_backend(name: str) -> Backend:
    if name in ("none", "subprocess"):
        from .subprocess_backend import SubprocessBackend

        return SubprocessBackend()
    if name == "bubblewrap":
        from .bubblewrap_backend import BubblewrapBackend

        return BubblewrapBackend()
    if name == "docker":
        from .docker_backend import DockerBackend

        return DockerBackend()
    raise ValueError(f"unknown sandbox backend {name!r}; available: {', '.join(BACKENDS)}")


def init_exit_status(code: int) -> tuple[int | None, int | None]:
    """(exit code, signal) of a command run under an init that reports a death by signal N as
    exit code 128 + N (bwrap, docker-init)."""
    if 128 < code <= 128 + 64:
        return None, code - 128
    return code, None


def memory_reason(limits: Limits) -> str:
    if limits.memory_bytes:
        return f"the memory limit of {describe_bytes(limits.memory_bytes)} was reached"
    return "the host ran out of memory"


def describe_bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n} bytes"
