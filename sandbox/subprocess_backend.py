"""The `none` backend: a plain child process in its own session, with rlimits, a wall clock, and a
watch on the memory and the number of processes of its whole tree and on the disk used in its
job directory; besides, where the host lets this process make cgroups (cgroup.py), kernel limits
on the memory and the tasks of the whole tree, and a freezer for the solution's side.

It isolates crashes, hangs and bombs, not malicious code: for a researcher's own machine only.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .base import OUTPUT_CAP, Limits, RunResult, Watchdog, memory_reason
from .cgroup import FREEZER_ENV, RunCgroup
from .disk_usage import CHECK_SECONDS, HeldOpen, JobDirQuota, held_open
from .process_tree import TreeUsage, tree_usage

POLL_SECONDS = 0.1


@dataclass
class _Watch:
    """One run's limits and clock, and what its processes last held in hidden open files."""

    started: float
    limits: Limits
    quota: JobDirQuota
    watchdog: Watchdog | None
    job_device: int
    group: RunCgroup | None = None
    held: HeldOpen = field(default_factory=HeldOpen)
    next_held_check: float = 0.0

    def held_open(self, usage: TreeUsage) -> HeldOpen:
        """Refreshed every CHECK_SECONDS: every open file of every process is looked at."""
        now = time.monotonic()
        if now >= self.next_held_check:
            self.next_held_check = now + CHECK_SECONDS
            self.held = held_open(usage.pids, self.job_device)
        return self.held


class SubprocessBackend:
    name = "none"
    # Processes of the backend itself in the tree (bubblewrap's own), not counted against limits.
    own_processes = 0

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
        rlimits = self.rlimits(limits)
        group = RunCgroup.create(limits)
        watch = _Watch(time.monotonic(), limits, JobDirQuota(Path(job_dir), limits.job_dir_bytes), watchdog,
                       os.stat(job_dir).st_dev, group)
        with tempfile.TemporaryFile() as captured, tempfile.TemporaryFile() as err, \
                _output(stdout_path, captured) as out, _empty_directory() as cwd, _removed(group):
            handles, env = _freezer_handles(group, env)
            try:
                proc = subprocess.Popen(
                    self.command(argv, job_dir, env, limits), cwd=cwd, env=self.environment(env),
                    stdout=out, stderr=err, stdin=subprocess.PIPE, start_new_session=True,
                    preexec_fn=lambda: _prepare(rlimits, group), pass_fds=handles,
                )
            finally:
                for fd in handles:
                    os.close(fd)
            threading.Thread(target=_feed, args=(proc.stdin, stdin_data), daemon=True).start()
            ended_by, reason = self._follow(proc, watch)
            code = proc.wait()
            _kill_group(proc)  # anything the command left behind in its session
            at_limit = group is not None and (group.oom_killed() or (code != 0 and group.limit_hit()))
            if ended_by == "exit" and at_limit:
                ended_by, reason = "memory", memory_reason(limits)
            exit_code, signal_number = self.exit_status(code)
            return RunResult(
                exit_code=exit_code,
                stdout="" if stdout_path else _tail(captured),
                stderr=_tail(err),
                wall_seconds=time.monotonic() - watch.started,
                ended_by=ended_by,
                signal=signal_number,
                reason=reason,
            )

    def _follow(self, proc: subprocess.Popen[bytes], watch: _Watch) -> tuple[str, str]:
        """Polls until the command exits ("exit") or a limit or the watchdog ends it."""
        while proc.poll() is None:
            ended_by, reason = self._check(proc, watch)
            if ended_by != "exit":
                _kill_group(proc)
                return ended_by, reason
            time.sleep(POLL_SECONDS)
        return "exit", ""

    def _check(self, proc: subprocess.Popen[bytes], watch: _Watch) -> tuple[str, str]:
        limits = watch.limits
        if time.monotonic() - watch.started > limits.wall_seconds:
            return "timeout", f"the time limit of {limits.wall_seconds:.0f} s was reached"
        usage = tree_usage(proc.pid)
        if limits.max_processes and usage.processes > limits.max_processes + self.own_processes:
            return "processes", f"the process limit of {limits.max_processes} was reached"
        held = watch.held_open(usage)
        if limits.memory_bytes and self.memory_used(proc.pid, usage) + held.memfd_bytes > limits.memory_bytes:
            return "memory", memory_reason(limits)
        if watch.group is not None and limits.memory_bytes and watch.group.oom_killed():
            return "memory", memory_reason(limits)
        if watch.quota.exceeded(held.unlinked_bytes):
            return "disk", watch.quota.reason
        if watch.watchdog is not None and watch.watchdog():
            return "watchdog", ""
        return "exit", ""

    def memory_used(self, root: int, usage: TreeUsage) -> int:
        """What counts against the memory limit: here the tree's resident memory (this backend's
        /tmp is the host's, not its own)."""
        return usage.rss_bytes

    def exit_status(self, code: int) -> tuple[int | None, int | None]:
        """(exit code, signal) from Popen's return code (negative: killed by that signal)."""
        return (code, None) if code >= 0 else (None, -code)

    def command(self, argv: Sequence[str], job_dir: Path, env: Mapping[str, str],
                limits: Limits | None = None) -> list[str]:
        return list(argv)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return dict(env)

    def rlimits(self, limits: Limits) -> list[tuple[int, int]]:
        result = []
        if limits.cpu_seconds:
            result.append((resource.RLIMIT_CPU, int(limits.cpu_seconds)))
        if limits.max_open_files:
            result.append((resource.RLIMIT_NOFILE, limits.max_open_files))
        return result


def _freezer_handles(group: RunCgroup | None, env: Mapping[str, str]) -> tuple[list[int], Mapping[str, str]]:
    """The solution's cgroup's descriptors for the command, and its environment naming them."""
    if group is None:
        return [], env
    handles, value = group.freezer_handles()
    return handles, {**env, FREEZER_ENV: value}


def _prepare(rlimits: list[tuple[int, int]], group: RunCgroup | None) -> None:
    """In the child, before exec: its rlimits, and its cgroup where there is one."""
    for which, value in rlimits:
        resource.setrlimit(which, (value, value))
    if group is not None:
        group.enter()


@contextlib.contextmanager
def _removed(group: RunCgroup | None) -> Iterator[None]:
    try:
        yield
    finally:
        if group is not None:
            group.remove()


def _feed(pipe: IO[bytes] | None, data: bytes) -> None:
    if pipe is None:
        return
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError):
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


@contextlib.contextmanager
def _output(path: Path | None, captured: IO[bytes]) -> Iterator[IO[bytes]]:
    """Standard output to path (appending, for a live reader) or to the captured file."""
    if path is None:
        yield captured
        return
    with open(path, "ab") as handle:
        yield handle


@contextlib.contextmanager
def _empty_directory() -> Iterator[str]:
    """A fresh empty working directory, read-only to its mode (a process of the same user may
    change that: this backend defends nothing), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="solarena-cwd-") as path:
        os.chmod(path, 0o555)
        try:
            yield path
        finally:
            os.chmod(path, 0o755)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _tail(handle: IO[bytes]) -> str:
    handle.seek(0, os.SEEK_END)
    size = handle.tell()
    handle.seek(max(0, size - OUTPUT_CAP))
    return handle.read().decode("utf-8", errors="replace")
