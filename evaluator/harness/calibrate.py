"""Calibrating a GPU: the memory bandwidth and matrix throughput it actually reaches, per compute
class of evaluator.scoring.hardware (the keys of a Hardware row's `calibrated` peaks).

Bandwidth: a large device-to-device copy, bytes read plus bytes written. Throughput: a large
square matrix product per class (cuBLAS through torch; float8 through torch._scaled_mm, int8
through torch._int_mm). Each figure is the best of several timed repetitions (CUDA events), after
a warm-up: a peak is what the card can reach, not what it reaches on average.

    python -m evaluator.harness.calibrate [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

import torch

BANDWIDTH_KEY = "memory_bandwidth"
COPY_BYTES = 4 << 30
MATRIX_SIZE = 8192
REPETITIONS = 10


def best_seconds(fn: Callable[[], object], repetitions: int = REPETITIONS) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repetitions):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3)
    return best


def memory_bandwidth(device: torch.device) -> float:
    """Bytes per second of a device-to-device copy, counting the read and the write."""
    source = torch.empty(COPY_BYTES // 2, dtype=torch.uint8, device=device).random_()
    target = torch.empty_like(source)
    return 2 * source.numel() / best_seconds(lambda: target.copy_(source))


def matrix_rates(device: torch.device, n: int = MATRIX_SIZE) -> dict[str, float]:
    """FLOP/s (OP/s for int8) of an n x n x n product per compute class this GPU supports."""
    flops = 2.0 * n**3
    rates: dict[str, float] = {}
    for name, dtype in (("float64", torch.float64), ("bfloat16", torch.bfloat16), ("float16", torch.float16)):
        a, b = (torch.randn(n, n, device=device, dtype=dtype) for _ in range(2))
        rates[name] = flops / best_seconds(lambda a=a, b=b: torch.mm(a, b))
    a, b = (torch.randn(n, n, device=device) for _ in range(2))
    previous = torch.backends.cuda.matmul.allow_tf32
    try:
        for name, tf32 in (("float32", False), ("tf32", True)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            rates[name] = flops / best_seconds(lambda: torch.mm(a, b))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = previous
    rates.update(_low_precision_rates(device, n, flops))
    return rates


def _low_precision_rates(device: torch.device, n: int, flops: float) -> dict[str, float]:
    rates: dict[str, float] = {}
    try:
        a = torch.randn(n, n, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=device).to(torch.float8_e4m3fn).t()  # column-major, as required
        one = torch.ones((), device=device)
        rates["float8"] = flops / best_seconds(
            lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
    except (RuntimeError, AttributeError):
        pass  # no float8 matrix units here
    try:
        a8 = torch.randint(-8, 8, (n, n), device=device, dtype=torch.int8)
        b8 = torch.randint(-8, 8, (n, n), device=device, dtype=torch.int8)
        rates["int8"] = flops / best_seconds(lambda: torch._int_mm(a8, b8))
    except (RuntimeError, AttributeError):
        pass
    return rates


def calibrate(device: torch.device) -> dict[str, float]:
    if device.type != "cuda":
        raise RuntimeError("calibration needs a CUDA GPU")
    return {BANDWIDTH_KEY: memory_bandwidth(device), **matrix_rates(device)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluator.harness.calibrate")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("calibration needs a CUDA GPU", file=sys.stderr)
        return 2
    peaks = calibrate(torch.device("cuda", torch.cuda.current_device()))
    if args.json:
        print(json.dumps({"gpu": torch.cuda.get_device_name(), "peaks": peaks}, indent=1))
    else:
        for key, value in peaks.items():
            unit = "TB/s" if key == BANDWIDTH_KEY else "TFLOP/s"
            print(f"{key:18s} {value / 1e12:10.1f} {unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
