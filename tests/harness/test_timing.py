"""The timing loop on the host clock: fresh inputs every call, every result verified, the
stopping rule and the iteration bounds."""

from __future__ import annotations

import time

import pytest
import torch

from evaluator.harness.timing import TimingOptions, time_callable

CPU = torch.device("cpu")


def test_every_timed_call_gets_fresh_inputs_and_is_verified() -> None:
    prepared, verified = [], []

    def prepare(i: int) -> list[torch.Tensor]:
        t = torch.full((4,), float(i))
        prepared.append(t.data_ptr())
        return [t]

    def verify(i: int, result: torch.Tensor) -> None:
        verified.append((i, float(result[0])))

    options = TimingOptions(warmup=2, min_iterations=5, max_iterations=5, budget_seconds=10)
    timing = time_callable(prepare, lambda args: args[0] * 1, verify, CPU, options)
    assert timing.iterations == 5
    assert timing.clock == "host"
    assert len(timing.samples_ms) == 5
    # two warm-up calls, then five timed ones, each on inputs of its own and verified against them
    assert [i for i, _ in verified] == [0, 1, 2, 3, 4, 5, 6]
    assert len(set(prepared)) == len(prepared) or len(prepared) == 7
    assert all(i == value for i, value in verified)


def test_a_failing_verification_stops_the_loop() -> None:
    class Wrong(Exception):
        pass

    def verify(i: int, result: object) -> None:
        if i == 2:
            raise Wrong

    options = TimingOptions(warmup=0, min_iterations=5, max_iterations=5, budget_seconds=10)
    with pytest.raises(Wrong):
        time_callable(lambda i: [i], lambda args: args, verify, CPU, options)


def test_stops_at_max_iterations_when_noise_stays_high() -> None:
    delays = iter([0.001, 0.004] * 50)

    def invoke(args: list[int]) -> None:
        time.sleep(next(delays))

    options = TimingOptions(warmup=0, min_iterations=3, max_iterations=8, target_rse=1e-9,
                            budget_seconds=30)
    timing = time_callable(lambda i: [i], invoke, lambda i, r: None, CPU, options)
    assert timing.iterations == 8


def test_stops_early_once_steady() -> None:
    options = TimingOptions(warmup=0, min_iterations=3, max_iterations=500, target_rse=0.5,
                            budget_seconds=30)
    timing = time_callable(lambda i: [i], lambda args: time.sleep(0.002), lambda i, r: None, CPU,
                           options)
    assert 3 <= timing.iterations < 500
    assert timing.latency_ms >= 2.0
    assert timing.rse <= 0.5


def test_time_budget_bounds_a_slow_callable() -> None:
    options = TimingOptions(warmup=0, min_iterations=2, max_iterations=1000, target_rse=0.0,
                            budget_seconds=0.2)
    started = time.perf_counter()
    timing = time_callable(lambda i: [i], lambda args: time.sleep(0.05), lambda i, r: None, CPU,
                           options)
    assert time.perf_counter() - started < 1.0
    assert 2 <= timing.iterations < 20


def test_cpu_defaults_are_short_and_gpu_defaults_thorough() -> None:
    cpu = TimingOptions.for_device(CPU)
    gpu = TimingOptions.for_device(torch.device("cuda"))
    assert cpu.max_iterations <= 10 < gpu.min_iterations
    assert TimingOptions.for_device(CPU, {"warmup": 7}).warmup == 7
