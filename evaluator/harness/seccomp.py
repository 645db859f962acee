"""A seccomp filter for the solution's side: the system calls that reach into another process
(ptrace, process_vm_readv/writev, pidfd_getfd, kcmp), that read the machine's performance
counters (perf_event_open), or that change the system or make new namespaces are refused with
EPERM. Kernels and their builds never need them; code that wants to take over a helper process,
read the reporter's memory or escape pausing does.

The filter is installed in the solution's process by the harness itself before any code of the
solution's is imported, on every thread the process has (SECCOMP_FILTER_FLAG_TSYNC), and every
thread and process started later inherits it; no_new_privs comes with it, and nothing can remove
a filter once installed. Written as a classic BPF program (seccomp's own format) so that it needs
no library: a dozen instructions per architecture, checked by tests/harness/test_seccomp.py.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct
from dataclasses import dataclass

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
# BPF instruction classes and modes (linux/filter.h)
BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JSET_K = 0x45
BPF_JGE_K = 0x35
BPF_RET_K = 0x06
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET = 0, 4, 16
# clone(2) flags that make a new namespace: a process in a new user namespace holds capabilities
# there, which nothing in a kernel's build needs
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

DENIED = ("ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp", "perf_event_open",
          "bpf", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load",
          "kexec_file_load", "init_module", "finit_module", "delete_module", "keyctl", "add_key",
          "request_key", "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_tree",
          "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "swapon", "swapoff",
          "reboot", "acct", "quotactl", "open_by_handle_at", "name_to_handle_at", "syslog",
          "settimeofday", "clock_settime", "clock_adjtime", "adjtimex")


@dataclass(frozen=True)
class Architecture:
    audit: int  # AUDIT_ARCH_* as seccomp_data.arch reports it
    seccomp: int  # the number of the seccomp system call itself
    clone: int
    clone3: int
    numbers: dict[str, int]
    # x86_64 also answers the x32 ABI's calls, numbered from this bit up
    x32_bit: int | None = None


X86_64 = Architecture(
    audit=0xC000003E, seccomp=317, clone=56, clone3=435, x32_bit=0x40000000,
    numbers={"ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438,
             "kcmp": 312, "perf_event_open": 298, "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425,
             "io_uring_enter": 426, "io_uring_register": 427, "kexec_load": 246, "kexec_file_load": 320,
             "init_module": 175, "finit_module": 313, "delete_module": 176, "keyctl": 250,
             "add_key": 248, "request_key": 249, "mount": 165, "umount2": 166, "pivot_root": 155,
             "chroot": 161, "unshare": 272, "setns": 308, "open_tree": 428, "move_mount": 429,
             "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
             "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163, "quotactl": 179,
             "open_by_handle_at": 304, "name_to_handle_at": 303, "syslog": 103, "settimeofday": 164,
             "clock_settime": 227, "clock_adjtime": 305, "adjtimex": 159},
)
AARCH64 = Architecture(
    audit=0xC00000B7, seccomp=277, clone=220, clone3=435,
    numbers={"ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "pidfd_getfd": 438,
             "kcmp": 272, "perf_event_open": 241, "bpf": 280, "userfaultfd": 282, "io_uring_setup": 425,
             "io_uring_enter": 426, "io_uring_register": 427, "kexec_load": 104, "kexec_file_load": 294,
             "init_module": 105, "finit_module": 273, "delete_module": 106, "keyctl": 219,
             "add_key": 217, "request_key": 218, "mount": 40, "umount2": 39, "pivot_root": 41,
             "chroot": 51, "unshare": 97, "setns": 268, "open_tree": 428, "move_mount": 429,
             "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
             "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89, "quotactl": 60,
             "open_by_handle_at": 265, "name_to_handle_at": 264, "syslog": 116, "settimeofday": 170,
             "clock_settime": 112, "clock_adjtime": 266, "adjtimex": 171},
)
ARCHITECTURES = {"x86_64": X86_64, "aarch64": AARCH64, "arm64": AARCH64}


class SeccompUnavailable(RuntimeError):
    """This machine's architecture or kernel has no seccomp filter for the harness."""


def architecture() -> Architecture:
    arch = ARCHITECTURES.get(platform.machine())
    if arch is None:
        raise SeccompUnavailable(f"no seccomp filter is written for {platform.machine()}")
    return arch


def program(arch: Architecture) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions. Calls of another architecture (32-bit ones
    through int 0x80 on x86_64) and of the x32 ABI are refused, and so is clone3, whose flags a
    filter cannot read (it answers ENOSYS, and the C library falls back to clone, whose flags
    it can: a new namespace is refused there).

        ld arch; jeq native else DENY; ld nr; [jge x32 -> DENY]
        jeq denied[i] -> DENY ...; jeq clone3 -> ENOSYS; jeq clone else ALLOW
        ld args[0]; jset namespaces -> DENY
        ALLOW: ret allow;  DENY: ret EPERM;  ENOSYS: ret ENOSYS
    """
    denied = sorted({arch.numbers[name] for name in DENIED})
    x32 = [arch.x32_bit] if arch.x32_bit is not None else []
    checks = 3 + len(x32) + len(denied)  # instructions before the clone3 test
    allow = checks + 4
    deny, enosys = allow + 1, allow + 2

    def to(target: int, at: int) -> int:
        return target - at - 1

    code = [(BPF_LD_W_ABS, 0, 0, ARCH_OFFSET), (BPF_JEQ_K, 0, to(deny, 1), arch.audit),
            (BPF_LD_W_ABS, 0, 0, NR_OFFSET)]
    code += [(BPF_JGE_K, to(deny, len(code)), 0, bit) for bit in x32]
    for number in denied:
        code.append((BPF_JEQ_K, to(deny, len(code)), 0, number))
    code.append((BPF_JEQ_K, to(enosys, len(code)), 0, arch.clone3))
    code.append((BPF_JEQ_K, 0, to(allow, len(code)), arch.clone))
    code.append((BPF_LD_W_ABS, 0, 0, ARG0_OFFSET))
    code.append((BPF_JSET_K, to(deny, len(code)), 0, CLONE_NAMESPACES))
    code += [(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW), (BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM),
             (BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS)]
    assert len(code) == enosys + 1 and all(0 <= c[1] < 256 and 0 <= c[2] < 256 for c in code)
    return code


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> None:
    """Install the filter on every thread of this process (and so on everything it starts)."""
    arch = architecture()
    instructions = program(arch)
    raw = b"".join(struct.pack("=HBBI", *ins) for ins in instructions)
    buffer = ctypes.create_string_buffer(raw, len(raw))
    prog = _SockFprog(len(instructions), ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SeccompUnavailable(f"no_new_privs: {errno.errorcode.get(ctypes.get_errno(), '?')}")
    result = libc.syscall(ctypes.c_long(arch.seccomp), ctypes.c_long(SECCOMP_SET_MODE_FILTER),
                          ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(prog))
    if result != 0:
        error = ctypes.get_errno()
        detail = (f"thread {result} could not take the filter" if result > 0
                  else errno.errorcode.get(error, str(error)))
        raise SeccompUnavailable(f"seccomp: {detail}")
