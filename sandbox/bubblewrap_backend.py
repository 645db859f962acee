"""The `bubblewrap` backend: the harness in new namespaces (no network, its own PIDs, IPC and
users, no capabilities), a read-only view of the system directories only (no home directories,
no project tree beyond the harness package, no /var, /srv or /work), a private /tmp and
/dev/shm sized to the memory limit, a read-only /dev otherwise, the job directory writable except
its problem/ part, an empty read-only working directory, the device nodes of the GPUs its
CUDA_VISIBLE_DEVICES names (every GPU's when it is unset; gpu_devices.py), and an environment
holding only what the harness needs.

Limits and the wall clock are the subprocess backend's, the memory limit counting the files in
the private /tmp and /dev/shm besides resident memory; bwrap is the command's prefix, and the
sandboxed tree dies with it (--die-with-parent, and the PID namespace's init is its child).
"""

from __future__ import annotations

import glob
import os
import resource
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from .base import Limits, init_exit_status
from .cgroup import TASK_LIMIT
from .disk_usage import private_filesystems_bytes
from .gpu_devices import device_nodes
from .process_tree import TreeUsage
from .subprocess_backend import SubprocessBackend

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/sys")
HARNESS_PACKAGE = Path(__file__).resolve().parent.parent / "evaluator"
# The harness's working directory: empty and read-only, so nothing planted there is imported.
WORKING_DIR = "/var/empty"
# Memory-backed filesystems of the sandbox's own, counted against its memory limit.
MEMORY_MOUNTS = ("/tmp", "/dev/shm")


class BubblewrapUnavailable(RuntimeError):
    pass


class BubblewrapBackend(SubprocessBackend):
    name = "bubblewrap"
    own_processes = 1  # bwrap itself

    def __init__(self) -> None:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise BubblewrapUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
        self.bwrap = bwrap

    def command(self, argv: Sequence[str], job_dir: Path, env: Mapping[str, str],
                limits: Limits | None = None) -> list[str]:
        job = Path(job_dir).resolve()
        size = _tmpfs_size(limits)
        prefix = [self.bwrap, "--dev", "/dev", "--proc", "/proc", *size, "--tmpfs", "/tmp"]
        readable = _readable_paths(argv, env)
        # Code under /tmp is bound after the private /tmp (which would hide it); the directories
        # leading to it are made unwritable, or the project's place would take new files there.
        for directory in _ancestors_in_tmp(readable):
            prefix += ["--perms", "0555", "--dir", directory]
        for path in readable:
            prefix += ["--ro-bind", path, path]
        prefix += ["--bind", str(job), str(job)]
        if (job / "problem").is_dir():
            prefix += ["--ro-bind", str(job / "problem"), str(job / "problem")]
        prefix += [
            "--dir", WORKING_DIR,
            "--remount-ro", "/",  # the skeleton bwrap builds the view on
            "--chdir", WORKING_DIR,
            "--unshare-all",
            # The harness itself is the PID namespace's init: no other process inside holds its
            # standard output (the results channel), and signals from inside cannot kill it.
            "--as-pid-1",
            "--cap-drop", "ALL",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
        ]
        visible = env.get("CUDA_VISIBLE_DEVICES")
        render = sorted(glob.glob("/dev/dri/*")) if visible is None else []  # per GPU, not mapped
        for device in device_nodes(visible) + render:
            prefix += ["--dev-bind", device, device]
        # /dev is a tmpfs of its own: read-only, but for a sized /dev/shm (torch shares tensors
        # between the harness and the solution's process there).
        prefix += [*size, "--tmpfs", "/dev/shm", "--remount-ro", "/dev"]
        for key, value in env.items():
            prefix += ["--setenv", key, value]
        return [*prefix, *argv]

    def memory_used(self, root: int, usage: TreeUsage) -> int:
        """Resident memory plus the files in the sandbox's own /tmp and /dev/shm (memory too),
        read through a process inside: bwrap itself (root) lives outside."""
        inside = [pid for pid in usage.pids if pid != root and _has_own_root(pid)]
        return usage.rss_bytes + private_filesystems_bytes(inside, MEMORY_MOUNTS)

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return {}  # bwrap starts from nothing (--clearenv) and sets the job's variables itself

    def exit_status(self, code: int) -> tuple[int | None, int | None]:
        if code < 0:
            return super().exit_status(code)
        return init_exit_status(code)  # bwrap passes on its command's death by signal as 128 + N

    def rlimits(self, limits: Limits) -> list[tuple[int, int]]:
        return [*super().rlimits(limits), (resource.RLIMIT_NPROC, TASK_LIMIT)]


def _tmpfs_size(limits: Limits | None) -> list[str]:
    """A memory-backed filesystem holds at most the memory limit (a hard stop behind the watch)."""
    if limits is None or not limits.memory_bytes:
        return []
    return ["--size", str(limits.memory_bytes)]


def _has_own_root(pid: int) -> bool:
    """True once the process is in the sandbox's view: before bwrap pivots into it, its /tmp
    would be the host's."""
    try:
        inner, outer = os.stat(f"/proc/{pid}/root"), os.stat("/")
    except OSError:
        return False
    return (inner.st_dev, inner.st_ino) != (outer.st_dev, outer.st_ino)


def _ancestors_in_tmp(paths: Sequence[str]) -> list[str]:
    found: set[str] = set()
    for path in paths:
        parts = Path(path).parts
        if len(parts) > 2 and parts[:2] == ("/", "tmp"):
            found.update(str(Path(*parts[:i])) for i in range(3, len(parts)))
    return sorted(found, key=lambda p: (p.count("/"), p))


def _readable_paths(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    """System directories, the Python installation, CUDA, and of the project only the harness."""
    paths = {p for p in SYSTEM_DIRS if os.path.isdir(p)}
    paths.update({sys.prefix, sys.base_prefix, os.path.realpath(sys.prefix)})
    if argv:
        executable = shutil.which(argv[0]) or argv[0]
        paths.add(str(Path(os.path.realpath(executable)).parent.parent))
        paths.add(str(Path(executable).absolute().parent.parent))
    for key in ("CUDA_HOME", "CUTLASS_DIR"):
        if env.get(key):
            paths.add(env[key])
    paths.add(str(HARNESS_PACKAGE / "__init__.py"))
    paths.add(str(HARNESS_PACKAGE / "harness"))
    # Never the root itself: an interpreter in /bin (whose parent's parent is /) would bind the
    # whole host, home directories and secrets included; the system directories hold it anyway.
    existing = sorted(p for p in paths if os.path.exists(p) and p != "/")
    # A path inside another one already bound adds nothing, except the harness, which lives inside
    # a project tree that is deliberately not bound.
    return [p for p in existing
            if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in existing)
            or p.startswith(str(HARNESS_PACKAGE))]
