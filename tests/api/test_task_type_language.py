"""A problem's task type asks for a language: an optimize_triton problem takes only a solution with a
@triton.jit kernel (torch imported beside it is fine), an optimize_cuda one only C++/CUDA; a
mismatch is refused at intake saying what the task needs and what the file is, storing nothing."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from evaluator.solution_check import task_type_mismatch
from leaderboard.models import Hardware, Problem
from submissions.models import Submission
from tests.api.support import api_user, client_for, upload
from tests.platform import factories

pytestmark = pytest.mark.django_db
TRITON = """import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2.0, mask=offsets < n)


def run(x, bias):
    return x * 2.0 + bias[None, :]
"""
IMPORTS_ONLY = "import torch\nimport triton\n\n\ndef run(x, bias):\n    return x * 2.0 + bias[None, :]\n"


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evaluator.services.send", lambda *args, **kwargs: None)


@pytest.fixture
def triton_problem(problem: Problem) -> Problem:
    Problem.objects.filter(pk=problem.pk).update(task_type="optimize_triton")
    return problem


def test_a_pytorch_file_for_a_triton_task_is_refused(triton_problem: Problem, cpu: Hardware) -> None:
    response = upload(client_for(api_user()), factories.CORRECT.encode(), name="kernel.py", language="triton")
    assert response.status_code == 400, response.json()
    message = response.json()["file"][0]
    assert "optimize_triton" in message and "@triton.jit" in message
    assert "pytorch with no Triton kernel" in message
    assert not Submission.objects.exists()


def test_importing_triton_is_not_enough(triton_problem: Problem, cpu: Hardware) -> None:
    response = upload(client_for(api_user()), IMPORTS_ONLY.encode(), name="kernel.py")
    assert response.status_code == 400
    assert "imports triton but defines no @triton.jit kernel" in response.json()["file"][0]


def test_an_honest_triton_solution_passes_with_torch_beside(triton_problem: Problem, cpu: Hardware) -> None:
    response = upload(client_for(api_user()), TRITON.encode(), name="kernel.py", language="")
    assert response.status_code == 201, response.json()
    assert response.json()["language"] == "triton"


@pytest.mark.parametrize("source", [
    TRITON.replace("import triton\n", "from triton import jit\n").replace("@triton.jit", "@jit"),
    TRITON.replace("@triton.jit", "@triton.autotune(configs=[], key=['n'])\n@triton.jit(debug=False)"),
    TRITON.replace("import triton\n", "import triton as tr\n").replace("@triton.jit", "@tr.jit"),
])
def test_every_way_of_writing_the_kernel_counts(source: str) -> None:
    assert task_type_mismatch({"k.py": source}, "k.py", "optimize_triton") is None


def test_a_cuda_task_refuses_python_and_other_tasks_take_any(problem: Problem) -> None:
    message = task_type_mismatch({"k.py": TRITON}, "k.py", "optimize_cuda")
    assert message is not None and "C++ family" in message and "triton" in message
    assert task_type_mismatch({"k.py": factories.CORRECT}, "k.py", "from_reference") is None


def test_the_form_says_it_too(triton_problem: Problem, cpu: Hardware, client: Client) -> None:
    client.force_login(factories.make_user())
    response = client.post("/submit/", {"problem": triton_problem.slug, "hardware": ["cpu"], "language": "",
                                        "file": SimpleUploadedFile("k.py", factories.CORRECT.encode())})
    assert response.status_code == 400 and "optimize_triton" in response.content.decode()
    assert not Submission.objects.exists()
