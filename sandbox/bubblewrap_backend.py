"""The `bubblewrap` backend: the harness in new namespaces (no network, its own PIDs and IPC), a
read-only view of the system, a private /tmp, only the job directory writable, GPU device nodes
passed through where present, and an environment holding only what the harness needs.

Limits and the wall clock are the subprocess backend's; bwrap is the command's prefix, and the
sandboxed tree dies with it (--die-with-parent, and the PID namespace's init is its child).
"""

from __future__ import annotations

import glob
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from .subprocess_backend import SubprocessBackend


class BubblewrapUnavailable(RuntimeError):
    pass


class BubblewrapBackend(SubprocessBackend):
    name = "bubblewrap"

    def __init__(self) -> None:
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise BubblewrapUnavailable("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
        self.bwrap = bwrap

    def command(self, argv: Sequence[str], job_dir: Path, env: Mapping[str, str]) -> list[str]:
        job = str(Path(job_dir).resolve())
        prefix = [
            self.bwrap,
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
            "--tmpfs", "/tmp",
            "--bind", job, job,
            "--chdir", job,
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--clearenv",
        ]
        for device in sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/dri/*")):
            prefix += ["--dev-bind", device, device]
        for key, value in env.items():
            prefix += ["--setenv", key, value]
        return [*prefix, *argv]

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        return {}  # bwrap starts from nothing (--clearenv) and sets the job's variables itself
