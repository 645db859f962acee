"""A solution whose language cannot run on a chosen hardware's evaluators is refused when it is
submitted, naming the missing part, and nothing is stored; the table of parts per hardware is the
deployment's (SOLARENA_TOOLCHAINS)."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from evaluator.models import Evaluation
from evaluator.toolchains import UnsupportedLanguage, check_runnable, languages_of, toolchains
from leaderboard.models import Hardware, Problem
from submissions.models import Submission
from tests.api.support import client_for, upload
from tests.platform import factories


def solution(languages: list[str], entry: str = "kernel.py::run") -> bytes:
    return json.dumps({"spec": {"languages": languages, "entry_point": entry},
                       "sources": [{"path": entry.split("::")[0], "content": factories.CORRECT}]}).encode()


def test_languages_come_from_the_spec_or_the_python_sources() -> None:
    spec = {"s.json": json.dumps({"spec": {"languages": ["CUTE_DSL"]}})}
    assert languages_of(spec, "s.json") == ["cute_dsl"]
    assert languages_of({"s.json": json.dumps({"spec": {"language": "cuda"}})}, "s.json") == ["cuda"]
    assert languages_of({"a.py": "import triton\n"}, "a.py") == ["triton"]
    assert languages_of({"a.py": "import torch\n"}, "a.py") == ["pytorch"]


def test_each_missing_part_is_named() -> None:
    table = toolchains(None)
    check_runnable(["triton"], "cpu", table)
    check_runnable(["cuda_cpp"], "h200", table)
    with pytest.raises(UnsupportedLanguage, match="cuda_cpp solutions cannot run on cpu: its evaluators "
                                                  "lack a CUDA GPU, the CUDA compiler"):
        check_runnable(["cuda_cpp"], "cpu", table)
    with pytest.raises(UnsupportedLanguage, match=r"lack the CuTe DSL Python package \(nvidia-cutlass-dsl\)"):
        check_runnable(["cute_dsl"], "h200", table)
    with pytest.raises(UnsupportedLanguage, match="unknown solution language 'fortran'"):
        check_runnable(["fortran"], "h200", table)


def test_the_deployment_table_is_read_and_unknown_parts_are_refused() -> None:
    table = toolchains('{"h200": ["torch", "triton", "cuda_gpu", "nvcc", "cutlass_dsl"]}')
    check_runnable(["cute_dsl"], "h200", table)
    with pytest.raises(UnsupportedLanguage, match="triton solutions cannot run on b200"):
        check_runnable(["triton"], "b200", table)  # no "*" row: nothing runs elsewhere
    with pytest.raises(ValueError, match="unknown part 'gcc'"):
        toolchains('{"*": ["gcc"]}')


@pytest.mark.django_db
def test_a_submission_that_cannot_run_is_refused_and_nothing_stored(problem: Problem, cpu: Hardware) -> None:
    factories.make_hardware("h200")
    response = upload(client_for(factories.make_user()), solution(["cuda_cpp"], "main.cpp::run"),
                      name="solution.json", hardware=["h200", "cpu"])
    assert response.status_code == 400
    assert "cuda_cpp solutions cannot run on cpu" in json.dumps(response.json())
    assert not Submission.objects.exists() and not Evaluation.objects.exists()


@pytest.mark.django_db
@override_settings(SOLARENA_TOOLCHAINS='{"*": ["torch", "triton", "cuda_gpu", "nvcc", "cutlass_dsl"]}')
def test_a_language_the_deployment_has_is_accepted(problem: Problem, cpu: Hardware) -> None:
    factories.make_hardware("h200")
    response = upload(client_for(factories.make_user()), solution(["cute_dsl"]), name="solution.json",
                      hardware=["h200"])
    assert response.status_code == 201, response.json()
