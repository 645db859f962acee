"""The sandbox interface: run this command on this job directory with these limits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

OUTPUT_CAP = 64 * 1024  # bytes of stdout/stderr kept


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 1800.0
    cpu_seconds: float | None = None
    memory_bytes: int | None = None
    max_processes: int | None = None
    max_open_files: int | None = 4096


@dataclass(frozen=True)
class RunResult:
    exit_code: int | None
    stdout: str
    stderr: str
    wall_seconds: float
    ended_by: str  # "exit", "timeout", "watchdog"
    signal: int | None = None

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
    ) -> RunResult: ...


BACKENDS = ("none", "bubblewrap")


def get_backend(name: str) -> Backend:
    if name in ("none", "subprocess"):
        from .subprocess_backend import SubprocessBackend

        return SubprocessBackend()
    if name == "bubblewrap":
        from .bubblewrap_backend import BubblewrapBackend

        return BubblewrapBackend()
    raise ValueError(f"unknown sandbox backend {name!r}; available: {', '.join(BACKENDS)}")
