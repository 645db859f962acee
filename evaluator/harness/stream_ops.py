"""CUDA stream memory operations (the driver's cuStreamWaitValue32 and cuStreamWriteValue32):
a stream waits until a 32-bit word in device memory reaches a value, or writes one, in stream
order, without a kernel and without the host. The reporter brackets each call of the
solution's on the GPU with them (gpu_bracket.py): the solution's stream waits for the reporter's
"go" word, and the reporter's stream, queued before the call starts, waits for the solution's
"done" word; neither side's host is in between.

Through ctypes: torch exposes no stream memory operations, and these are two driver calls.
"""

from __future__ import annotations

import ctypes
from functools import cache

WAIT_GEQ = 0x0  # (int32)(*addr - value) >= 0: wraps around like a sequence number
WRITE_DEFAULT = 0x0  # with a memory barrier: writes before it are visible once the word is


class StreamOpsUnavailable(RuntimeError):
    """The CUDA driver offers no stream memory operations here."""


@cache
def _driver() -> tuple[ctypes._CFuncPtr, ctypes._CFuncPtr]:
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
    except OSError as exc:
        raise StreamOpsUnavailable(f"the CUDA driver library could not be loaded: {exc}") from None
    functions = []
    for name in ("cuStreamWaitValue32", "cuStreamWriteValue32"):
        function = getattr(libcuda, f"{name}_v2", None) or getattr(libcuda, name, None)
        if function is None:
            raise StreamOpsUnavailable(f"the CUDA driver has no {name}")
        function.restype = ctypes.c_int
        function.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
        functions.append(function)
    return functions[0], functions[1]


def wait_value(stream: int, address: int, value: int, flags: int = WAIT_GEQ) -> None:
    """Queue on `stream` (its raw handle) a wait until the word at `address` reaches `value`."""
    _check(_driver()[0](ctypes.c_void_p(stream), address, value & 0xFFFFFFFF, flags), "cuStreamWaitValue32")


def write_value(stream: int, address: int, value: int, flags: int = WRITE_DEFAULT) -> None:
    """Queue on `stream` a write of `value` into the word at `address`."""
    _check(_driver()[1](ctypes.c_void_p(stream), address, value & 0xFFFFFFFF, flags), "cuStreamWriteValue32")


def _check(result: int, name: str) -> None:
    if result != 0:
        raise StreamOpsUnavailable(f"{name} failed with CUDA driver error {result}")
