"""Which GPU activities a timed call is charged with (evaluator/harness/timing.py trace_spans):
those it launched, matched to their runtime or driver call by correlation id, as SOL-ExecBench
does; the harness's own work launched before the window is not, even while it still runs on the
GPU once the window is open."""

from __future__ import annotations

from typing import Any

from evaluator.harness.timing import ANNOTATION, trace_spans


def window(index: int, ts: float, dur: float) -> dict[str, Any]:
    return {"cat": "user_annotation", "name": f"{ANNOTATION}{index}", "ts": ts, "dur": dur}


def launch(correlation: int, ts: float, cat: str = "cuda_runtime") -> dict[str, Any]:
    return {"cat": cat, "name": "cudaLaunchKernel", "ts": ts, "dur": 3.0,
            "args": {"correlation": correlation}}


def kernel(correlation: int | None, ts: float, dur: float, cat: str = "kernel") -> dict[str, Any]:
    args = {} if correlation is None else {"correlation": correlation}
    return {"cat": cat, "name": "k", "ts": ts, "dur": dur, "args": args}


def test_the_flush_launched_before_the_window_is_not_charged_to_the_call() -> None:
    events = [
        launch(1, 90.0), kernel(1, 95.0, 40.0),  # the L2 flush: still running at 100
        window(0, 100.0, 200.0),
        launch(2, 105.0, "cuda_driver"), kernel(2, 135.0, 10.0),  # queued behind the flush
        launch(3, 110.0), kernel(3, 145.0, 5.0, "gpu_memcpy"),
    ]
    assert trace_spans(events, 1) == [(150.0 - 135.0) / 1e3]


def test_each_call_gets_what_it_launched_and_a_call_that_launched_nothing_gets_none() -> None:
    events = [
        window(0, 0.0, 100.0), launch(1, 10.0), kernel(1, 20.0, 30.0),
        window(1, 200.0, 100.0),
        window(2, 400.0, 100.0), launch(2, 410.0), kernel(2, 420.0, 5.0), launch(3, 430.0),
        kernel(3, 440.0, 10.0, "gpu_memset"),
    ]
    assert trace_spans(events, 3) == [0.03, None, 0.03]


def test_without_correlation_ids_the_activities_inside_the_window_count() -> None:
    events = [window(0, 100.0, 200.0), kernel(None, 95.0, 10.0), kernel(None, 120.0, 30.0),
              kernel(None, 160.0, 20.0)]
    assert trace_spans(events, 1) == [(180.0 - 120.0) / 1e3]


def test_an_activity_whose_launch_is_not_on_record_counts_where_it_ran() -> None:
    events = [window(0, 100.0, 200.0), launch(1, 105.0), kernel(1, 110.0, 10.0),
              kernel(9, 150.0, 40.0),  # correlation 9 was never launched on record
              kernel(None, 200.0, 50.0)]
    assert trace_spans(events, 1) == [(250.0 - 110.0) / 1e3]
