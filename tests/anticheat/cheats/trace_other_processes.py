"""Unpaused helpers (class 28): the solution tries to take over any other process its sandbox
shows (the reporter, or a helper of the harness's that is never paused), as a debugger would:
attach with ptrace, read and write another process's memory directly (process_vm_readv/writev),
read its memory, descriptors or environment through /proc, and steal a descriptor through a
pidfd. Each attempt and its outcome is written down in the job directory; it computes the right
answer either way.

Where a helper runs as the same user, is dumpable and nothing forbids ptrace, the solution could
make it compute while the solution's side is paused."""

import ctypes
import errno
import json
import os
from pathlib import Path

import torch

JOB = Path(__file__).resolve().parent.parent
FOUND = JOB / "traced.json"
PTRACE_ATTACH, PTRACE_SEIZE = 16, 0x4206
_tried = False


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def _others() -> list[int]:
    mine = {os.getpid()}
    return sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine)


def _attempts(pid: int, libc: ctypes.CDLL) -> dict[str, str]:
    outcome = {}

    def note(name: str, result: int) -> None:
        outcome[name] = "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")

    for name, request in (("ptrace_attach", PTRACE_ATTACH), ("ptrace_seize", PTRACE_SEIZE)):
        note(name, libc.ptrace(request, pid, None, None))
        if outcome[name] == "ok":
            libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
    buffer = ctypes.create_string_buffer(8)
    local, remote = _IoVec(ctypes.addressof(buffer), 8), _IoVec(0x400000, 8)
    note("process_vm_readv", libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
    note("process_vm_writev", libc.process_vm_writev(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0))
    for name in ("mem", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as fh:
                fh.read(1)
            outcome[f"proc_{name}"] = "ok"
        except OSError as exc:
            outcome[f"proc_{name}"] = errno.errorcode.get(exc.errno or 0, "?")
    try:  # the numbers of its descriptors may show; what they lead to must not
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                os.close(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDONLY))
                outcome[f"proc_fd_{fd}"] = "ok"
            except OSError as exc:
                outcome.setdefault("proc_fd_open", errno.errorcode.get(exc.errno or 0, "?"))
    except OSError as exc:
        outcome["proc_fd_open"] = errno.errorcode.get(exc.errno or 0, "?")
    try:
        pidfd = os.pidfd_open(pid)
        note("pidfd_getfd", libc.syscall(438, pidfd, 1, 0))
        os.close(pidfd)
    except OSError as exc:
        outcome["pidfd_getfd"] = errno.errorcode.get(exc.errno or 0, "?")
    return outcome


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    global _tried
    if not _tried:
        _tried = True
        libc = ctypes.CDLL(None, use_errno=True)
        FOUND.write_text(json.dumps({pid: _attempts(pid, libc) for pid in _others()}))
    return x * 2.0 + bias[None, :]
