"""The GPU path of the harness: activity-record timing, the L2 flush, CUDA C++ solutions.
Runs only where a CUDA GPU is visible."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from evaluator.harness import status
from tests.conftest import SCALE_SHIFT_TRITON
from tests.gpu.support import evaluate_on_gpu

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]

TRITON = SCALE_SHIFT_TRITON

CUDA = r'''
import torch
from torch.utils.cpp_extension import load_inline

_SOURCE = """
__global__ void scale_shift_kernel(const float* x, const float* b, float* y, long n, long cols) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + b[i % cols];
}
torch::Tensor scale_shift(torch::Tensor x, torch::Tensor b) {
    auto y = torch::empty_like(x);
    long n = x.numel();
    scale_shift_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), b.data_ptr<float>(),
                                                 y.data_ptr<float>(), n, x.size(1));
    return y;
}
"""
_DECL = "torch::Tensor scale_shift(torch::Tensor x, torch::Tensor b);"
_ext = load_inline("scale_shift_ext", cpp_sources=_DECL, cuda_sources=_SOURCE, functions=["scale_shift"])

def run(x, bias):
    return _ext.scale_shift(x, bias)
'''

SIDE_STREAM = """
import torch

def run(x, bias):
    y = torch.empty_like(x)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        for _ in range(20):
            y.copy_(x * 2.0 + bias[None, :])
    return y
"""


@pytest.mark.parametrize("source", [TRITON, CUDA], ids=["triton", "cuda_cpp"])
def test_gpu_solution_passes_and_is_timed_from_activity_records(tmp_path: Path, source: str) -> None:
    for result in evaluate_on_gpu(tmp_path, source).values():
        assert result["status"] == status.PASSED, result["message"]
        timing = result["timing"]
        assert timing["clock"] == "gpu_activity"
        assert timing["iterations"] >= 20
        # activity time is kernel time: never above the reporter's clock around the same call;
        # host_ms is that clock less the harness's least fixed cost, a floor that may read 0
        assert 0 < result["latency_ms"] <= timing["outside"]["outside_ms"]
        assert 0 <= timing["host_ms"] <= timing["outside"]["outside_ms"]
        assert result["reference_latency_ms"] > 0 and result["baseline_latency_ms"] > 0


def test_work_on_a_side_stream_is_counted(tmp_path: Path) -> None:
    for result in evaluate_on_gpu(tmp_path, SIDE_STREAM).values():
        assert result["status"] == status.PASSED, result["message"]
        # twenty passes over the data: far slower than the single-pass baseline
        assert result["latency_ms"] > 5 * result["baseline_latency_ms"]


def test_uninitialised_output_never_inherits_a_correct_answer(tmp_path: Path) -> None:
    # The caching allocator recycles freed blocks: checked outputs are scrubbed before they are
    # freed, so an output that is never written cannot pick up an earlier correct answer.
    source = "import torch\n\ndef run(x, bias):\n    return torch.empty_like(x)\n"
    for result in evaluate_on_gpu(tmp_path, source).values():
        assert result["status"] != status.PASSED
