"""A forbidden function called from a thread outside run(): at import the solution starts a
low-level thread (_thread, which threading.enumerate() does not list) that waits for each call to
end and then runs the vendor's torch.mm (by a name built at run time) on that call's inputs.
run() computes the product itself.

A harness whose tripwires are armed only while run() runs never sees the thread's calls."""

import _thread
import sys
import time

import torch

_pending: list[tuple[torch.Tensor, torch.Tensor]] = []
_MAIN = _thread.get_ident()


def _main_thread_in_run() -> bool:
    frame = sys._current_frames().get(_MAIN)
    while frame is not None:
        if frame.f_code is run.__code__:
            return True
        frame = frame.f_back
    return False


def _worker() -> None:
    vendor = getattr(torch, "m" + "m")
    while True:
        if _pending and not _main_thread_in_run():
            a, b = _pending.pop()
            try:
                vendor(a, b)
            except Exception:
                pass
        time.sleep(0.0005)


_thread.start_new_thread(_worker, ())


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    _pending.append((a.clone(), b.clone()))
    return (a[:, :, None] * b[None, :, :]).sum(1)
