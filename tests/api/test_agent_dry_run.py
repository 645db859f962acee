"""POST /api/v1/agent-submissions/?validate=1 checks a bundle as an upload would (problems,
languages, hardware) and compiles its Python, storing and evaluating nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for
from tests.api.test_agent_submissions_api import AGENTS, good_files, send_bundle, zipped
from tests.platform import factories

pytestmark = pytest.mark.django_db


def check(files: dict[str, str], validate: str = "1") -> dict[str, Any]:
    response = client_for(factories.make_user()).post(
        f"{AGENTS}?validate={validate}", {"file": SimpleUploadedFile("agent.zip", zipped(files)),
                                          "hardware": ["cpu"]}, format="multipart")
    return {"status": response.status_code, **response.json()}


def one_solution() -> dict[str, str]:
    """good_files() less the solutions for problems that do not exist here."""
    return {k: v for k, v in good_files().items() if not k.startswith(("scale_shift_v2", "scale_shift_json"))}


def test_a_good_bundle_is_described_and_nothing_is_stored(problem: Problem, cpu: Hardware) -> None:
    report = check(one_solution())
    assert report["status"] == 200 and report["valid"] is True and report["errors"] == []
    assert [(s["name"], s["problem"], s["language"]) for s in report["solutions"]] == [
        ("scale_shift", "scale_shift", "python")]
    assert report["name"] == "kernel-agent" and report["version"] == "1.2.0"
    assert not AgentSubmission.objects.exists() and not Submission.objects.exists()


def test_python_that_does_not_compile_is_named_with_its_line(problem: Problem, cpu: Hardware) -> None:
    files = one_solution()
    files["scale_shift.py"] = "def run(x, bias):\n    return x *\n"
    report = check(files)
    assert report["status"] == 200 and report["valid"] is False
    assert report["errors"] == ["scale_shift: scale_shift.py:2: invalid syntax"]
    assert not AgentSubmission.objects.exists()


def test_what_an_upload_refuses_the_check_refuses(problem: Problem, cpu: Hardware) -> None:
    unknown = check(good_files())  # scale_shift_v2 and scale_shift_json are no problems here
    assert unknown["status"] == 400
    assert "unknown problem(s) 'scale_shift_json', 'scale_shift_v2'" in unknown["file"][0]
    bad_flag = check(good_files(), validate="maybe")
    assert bad_flag["status"] == 400 and bad_flag["validate"] == ["1 or 0 (true or false), not 'maybe'"]
    assert send_bundle(client_for(factories.make_user()), zipped(good_files())).status_code == 400
    assert not AgentSubmission.objects.exists()


KERNEL_CU = r'''#include "kernel.h"
#include <cuda_bf16.h>

// brackets in comments and literals do not count: ( [ {
/* nor here: } ] ) */
template <int kThreads>
__global__ void __launch_bounds__(kThreads) scale_shift_kernel(const float* __restrict__ x,
                                                               const float* b, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    constexpr long kBig = 1'000'000;  // a digit separator, not a character literal
    if (i < n && i < kBig) y[i] = 2.0f * x[i] + b[i % 7];
}

void launch(const float* x, const float* b, float* y, long n, cudaStream_t stream) {
#ifdef SOLARENA_DEBUG
    const char* what = R"(launching {scale_shift_kernel)";
    if (n < 0) {
#else
    if (n <= 0) {
#endif
        return;
    }
    scale_shift_kernel<256><<<(n + 255) / 256, 256, 0, stream>>>(x, b, y, n);
    char close = '}';
    (void)close;
}
'''

MAIN_CPP = r'''#include <torch/extension.h>
#include "kernel.h"

torch::Tensor run(torch::Tensor x, torch::Tensor bias) {
    auto y = torch::empty_like(x);
    launch(x.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(), x.numel(),
           at::cuda::getCurrentCUDAStream());
    return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("run", &run, "scale and shift (CUDA)"); }
'''

KERNEL_H = """#pragma once
#include <cuda_runtime.h>
void launch(const float* x, const float* b, float* y, long n, cudaStream_t stream);
"""


def cuda_bundle(**replace: str) -> dict[str, str]:
    """A C++/CUDA solution.json (SOL-ExecBench's shape) for scale_shift, with sources replaced."""
    sources = {"kernel.h": KERNEL_H, "kernel.cu": KERNEL_CU, "main.cpp": MAIN_CPP, **replace}
    solution = {"spec": {"languages": ["cuda_cpp"], "entry_point": "main.cpp::run", "binding": "torch"},
                "sources": [{"path": path, "content": text} for path, text in sources.items()]}
    return {**{k: v for k, v in one_solution().items() if k != "scale_shift.py"},
            "scale_shift/solution.json": json.dumps(solution)}


def check_on_gpu(files: dict[str, str]) -> dict[str, Any]:
    factories.make_hardware("h200")
    response = client_for(factories.make_user()).post(
        f"{AGENTS}?validate=1", {"file": SimpleUploadedFile("agent.zip", zipped(files)),
                                 "hardware": ["h200"]}, format="multipart")
    return {"status": response.status_code, **response.json()}


def test_valid_cuda_sources_pass_the_lexical_check(problem: Problem) -> None:
    report = check_on_gpu(cuda_bundle())
    assert report["status"] == 200, report
    assert report["valid"] is True and report["errors"] == []
    assert [(s["name"], s["language"], s["files"]) for s in report["solutions"]] == [
        ("scale_shift", "cuda", 4)]
    assert not AgentSubmission.objects.exists() and not Submission.objects.exists()


@pytest.mark.parametrize(("path", "source", "error"), [
    ("kernel.cu", KERNEL_CU.replace("y[i] = 2.0f * x[i] + b[i % 7];", "y[i] = 2.0f * x[i] + b[i % 7;"),
     "kernel.cu:12: '}' does not close the '[' opened on line 11"),
    ("kernel.cu", KERNEL_CU.replace("    (void)close;\n}\n", "    (void)close;\n"),
     "kernel.cu:14: '{' is never closed"),
    ("main.cpp", MAIN_CPP.replace('"scale and shift (CUDA)"', '"scale and shift (CUDA)'),
     "main.cpp:11: missing terminating \" character"),
    ("kernel.h", KERNEL_H + "/* launch's stream\n", "kernel.h:4: unterminated /* comment"),
    ("kernel.cu", "#ifndef KERNEL\n" + KERNEL_CU, "kernel.cu:1: #ifndef without #endif"),
])
def test_cuda_sources_with_a_lexical_error_are_named_with_their_line(problem: Problem, path: str, source: str,
                                                                     error: str) -> None:
    report = check_on_gpu(cuda_bundle(**{path: source}))
    assert report["status"] == 200 and report["valid"] is False
    assert report["errors"] == [f"scale_shift: {error}"]
    assert not AgentSubmission.objects.exists()


def test_a_macro_that_opens_a_bracket_turns_the_bracket_check_off(problem: Problem) -> None:
    header = KERNEL_H + "#define BEGIN_NAMESPACE namespace solution {\n#define END_NAMESPACE }\n"
    kernel = "BEGIN_NAMESPACE\nvoid helper() {}\n}\n"  # the } closes what the macro opened
    report = check_on_gpu(cuda_bundle(**{"kernel.h": header, "helper.cu": kernel}))
    assert report["valid"] is True and report["errors"] == []
