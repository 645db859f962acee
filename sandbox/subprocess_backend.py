"""The `none` backend: a plain child process in its own session, with rlimits and a wall clock.

It isolates crashes and hangs, not malicious code: for a researcher's own machine only.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from .base import OUTPUT_CAP, Limits, RunResult, Watchdog


class SubprocessBackend:
    name = "none"

    def run(
        self,
        argv: Sequence[str],
        job_dir: Path,
        limits: Limits,
        env: Mapping[str, str],
        watchdog: Watchdog | None = None,
    ) -> RunResult:
        started = time.monotonic()
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            proc = subprocess.Popen(
                self.command(argv, job_dir, env), cwd=job_dir, env=self.environment(env),
                stdout=out, stderr=err,
                stdin=subprocess.DEVNULL, start_new_session=True,
                preexec_fn=lambda: _apply_limits(limits),
            )
            ended_by = "exit"
            while proc.poll() is None:
                if time.monotonic() - started > limits.wall_seconds:
                    ended_by = "timeout"
                elif watchdog is not None and watchdog():
                    ended_by = "watchdog"
                if ended_by != "exit":
                    _kill_group(proc)
                    break
                time.sleep(0.2)
            code = proc.wait()
            _kill_group(proc)  # anything the command left behind in its session
            return RunResult(
                exit_code=code if code >= 0 else None,
                stdout=_tail(out),
                stderr=_tail(err),
                wall_seconds=time.monotonic() - started,
                ended_by=ended_by,
                signal=-code if code < 0 else None,
            )


    def command(self, argv: Sequence[str], job_dir: Path, env: Mapping[str, str]) -> list[str]:
        return list(argv)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return dict(env)


def _apply_limits(limits: Limits) -> None:
    if limits.cpu_seconds:
        cpu = int(limits.cpu_seconds)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    if limits.memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    if limits.max_open_files:
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.max_open_files, limits.max_open_files))
    if limits.max_processes:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _tail(handle: object) -> str:
    handle.seek(0, os.SEEK_END)  # type: ignore[attr-defined]
    size = handle.tell()  # type: ignore[attr-defined]
    handle.seek(max(0, size - OUTPUT_CAP))  # type: ignore[attr-defined]
    return handle.read().decode("utf-8", errors="replace")  # type: ignore[attr-defined]
