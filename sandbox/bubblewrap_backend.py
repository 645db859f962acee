"""The `bubblewrap` backend: the harness in new namespaces (no network, its own PIDs and IPC), a
read-only view of the system, a private /tmp, only the job directory writable, GPU device nodes
passed through where present, and an environment holding only what the harness needs.

Limits and the wall clock are the subprocess backend's; bwrap is the command's prefix, and the
sandboxed tree dies with it (--die-with-parent, and the PID namespace's init is its child).
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
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
        ]
        # The private /tmp hides whatever lives under /tmp outside: show the interpreter and the
        # code the command needs again, read-only.
        for path in _code_paths(argv, env):
            prefix += ["--ro-bind", path, path]
        prefix += [
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


def _code_paths(argv: Sequence[str], env: Mapping[str, str]) -> list[str]:
    candidates = {sys.prefix, sys.base_prefix}
    if argv:
        executable = shutil.which(argv[0]) or argv[0]
        candidates.add(str(Path(os.path.realpath(executable)).parent.parent))
        candidates.add(str(Path(executable).absolute().parent.parent))
    candidates.update(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
    return sorted(p for p in candidates if p.startswith("/tmp/") and Path(p).exists())
