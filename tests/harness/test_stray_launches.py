"""GPU work launched between the calls' windows by a thread other than the one that runs the calls
(evaluator/harness/timing.py stray_launches): it would run after a window closed and before the
outputs are copied, in no call's span, so the batch is REWARD_HACK. The running thread's own
launches there are the harness's (inputs, flushes, the copy of the outputs); any thread's launches
inside a window are that call's."""

from __future__ import annotations

from typing import Any

from evaluator.harness.timing import ANNOTATION, stray_launches

CALLER, HELPER = 746, -173599040  # as torch 2.11 on the H200 named the two threads' records


def window(index: int, ts: float, dur: float) -> dict[str, Any]:
    return {"cat": "user_annotation", "name": f"{ANNOTATION}{index}", "ts": ts, "dur": dur, "tid": CALLER}


def launch(correlation: int, ts: float, tid: int, name: str = "cudaLaunchKernel") -> dict[str, Any]:
    return {"cat": "cuda_runtime", "name": name, "ts": ts, "dur": 3.0, "tid": tid,
            "args": {"correlation": correlation}}


def kernel(correlation: int, ts: float) -> dict[str, Any]:
    return {"cat": "kernel", "name": "k", "ts": ts, "dur": 5.0, "tid": 7,
            "args": {"correlation": correlation}}


def test_a_helper_launch_after_the_window_is_stray() -> None:
    events = [window(0, 100.0, 50.0), launch(1, 110.0, CALLER), kernel(1, 115.0),
              launch(2, 160.0, HELPER), kernel(2, 170.0),  # after the window, before the copy
              launch(3, 165.0, CALLER), kernel(3, 180.0)]  # the harness's copy of the outputs
    assert stray_launches(events) == 1


def test_the_running_threads_launches_between_windows_are_the_harness_s() -> None:
    events = [launch(1, 90.0, CALLER), kernel(1, 95.0), window(0, 100.0, 50.0),
              launch(2, 160.0, CALLER), kernel(2, 170.0), window(1, 200.0, 50.0)]
    assert stray_launches(events) == 0


def test_any_threads_launch_inside_a_window_is_the_calls() -> None:
    events = [window(0, 100.0, 50.0), launch(1, 120.0, HELPER), kernel(1, 130.0)]
    assert stray_launches(events) == 0


def test_a_helper_call_that_puts_no_work_on_the_gpu_is_not_counted() -> None:
    events = [window(0, 100.0, 50.0), launch(1, 160.0, HELPER, "cudaDeviceSynchronize")]
    assert stray_launches(events) == 0
