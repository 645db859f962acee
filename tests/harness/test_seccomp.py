"""The seccomp filter of the solution's process (evaluator/harness/seccomp.py): installed on a live
process with threads, it refuses what reaches into another process, new namespaces and calls of
other ABIs, and leaves what kernels and their builds need: threads, fork, a compiler started as a
subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator.harness import seccomp

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import ctypes, errno, json, os, subprocess, threading, time
from evaluator.harness import seccomp

sleeper = threading.Thread(target=time.sleep, args=(3,), daemon=True)
sleeper.start()  # a thread that exists before the filter: TSYNC gives it the filter too
seccomp.install()
libc = ctypes.CDLL(None, use_errno=True)

def outcome(result):
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")

found = {}
found["ptrace"] = outcome(libc.ptrace(16, os.getppid(), None, None))
found["process_vm_readv"] = outcome(libc.process_vm_readv(os.getppid(), None, 0, None, 0, 0))
found["unshare_user"] = outcome(libc.unshare(0x10000000))
numbers = seccomp.architecture()
found["perf_event_open"] = outcome(libc.syscall(numbers.numbers["perf_event_open"], None, 0, -1, -1, 0))
found["clone3"] = outcome(libc.syscall(numbers.clone3, None, 0))
threaded = []
worker = threading.Thread(target=lambda: threaded.append(1))
worker.start(); worker.join()
found["thread"] = "ok" if threaded else "failed"
pid = os.fork()
if pid == 0:
    os._exit(7)
found["fork"] = "ok" if os.waitpid(pid, 0)[1] >> 8 == 7 else "failed"
found["subprocess"] = "ok" if subprocess.run(["true"]).returncode == 0 else "failed"
status = open(f"/proc/self/task/{sleeper.native_id}/status").read()
found["older_thread_filtered"] = "ok" if "Seccomp:\\t2" in status else "failed"
print(json.dumps(found))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="seccomp is Linux's")
def test_the_filter_refuses_what_reaches_into_other_processes_and_keeps_the_rest() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found == {"ptrace": "EPERM", "process_vm_readv": "EPERM", "unshare_user": "EPERM",
                     "perf_event_open": "EPERM", "clone3": "ENOSYS", "thread": "ok", "fork": "ok",
                     "subprocess": "ok", "older_thread_filtered": "ok"}


def test_every_denied_call_has_a_number_on_each_architecture() -> None:
    for arch in (seccomp.X86_64, seccomp.AARCH64):
        program = seccomp.program(arch)
        assert set(seccomp.DENIED) <= set(arch.numbers)
        denied = {k for code, _, _, k in program if code == seccomp.BPF_JEQ_K}
        assert {arch.numbers[name] for name in seccomp.DENIED} <= denied
        assert program[-3:] == [(seccomp.BPF_RET_K, 0, 0, seccomp.SECCOMP_RET_ALLOW),
                                (seccomp.BPF_RET_K, 0, 0, seccomp.SECCOMP_RET_ERRNO | 1),
                                (seccomp.BPF_RET_K, 0, 0, seccomp.SECCOMP_RET_ERRNO | 38)]
