"""Work launched after the call's window by a helper thread (scale_shift). The helper is started
with `_thread` at import (Python's thread list never shows it) and sleeps on a lock, so it looks
like a library's idle pool; run() hands it the inputs and returns an empty output, and the helper
watches the main thread's frames until the harness is in `keep` (after the window, before it
copies the output), then launches a spin of about 0.3 ms and the real work there.

A harness that counts only what is launched inside the window never sees that GPU time, and a
rule that lets idle helper threads stay must still catch the launch."""

import _thread
import sys
import threading
import time

import torch

SPIN_CYCLES = 600_000  # about 0.3 ms at the H200's clock
_pending: list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = []
_wake = _thread.allocate_lock()
_wake.acquire()
_main = threading.main_thread().ident


def _in_keep() -> bool:
    frame = sys._current_frames().get(_main)
    while frame is not None:
        if frame.f_code.co_name == "keep":
            return True
        frame = frame.f_back
    return False


def _helper() -> None:
    while True:
        _wake.acquire()
        deadline = time.perf_counter() + 0.05
        while not _in_keep() and time.perf_counter() < deadline:
            time.sleep(0.00005)
        x, bias, y = _pending.pop()
        with torch.cuda.device(x.device):
            torch.cuda._sleep(SPIN_CYCLES)
            torch.mul(x, 2.0, out=y)
            y.add_(bias[None, :])


_thread.start_new_thread(_helper, ())


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    y[:1, :1].zero_()  # one tiny kernel inside the window, so that the window has a GPU span
    _pending.append((x, bias, y))
    _wake.release()
    return y
