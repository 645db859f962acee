"""A workload that ran out of memory inside a memory-limited sandbox is named as that limit,
whichever way the limit showed itself: a container's cgroup answers a write into a memory file at
its limit with ENOMEM for the writer rather than a kill (class 25 under docker)."""

from __future__ import annotations

import pytest

from evaluator.harness import status
from evaluator.supervise import SuperviseOptions, attribute_out_of_memory

LIMITED = SuperviseOptions(memory_bytes=3 << 29)
ENOMEM = "round 1: OSError: [Errno 12] Cannot allocate memory (at solution.py:32)"


def test_enomem_under_a_memory_limit_is_the_limit_with_the_error_kept() -> None:
    failed = {"status": status.RUNTIME_ERROR, "message": ENOMEM, "score": 0}
    verdict = attribute_out_of_memory(failed, LIMITED)
    assert verdict["status"] == status.RUNTIME_ERROR and verdict["score"] == 0
    assert verdict["message"] == f"the memory limit of 1.5 GiB was reached ({ENOMEM})"


def test_a_python_memory_error_is_the_limit_too() -> None:
    verdict = attribute_out_of_memory({"status": status.RUNTIME_ERROR, "message": "MemoryError"}, LIMITED)
    assert verdict["message"].startswith("the memory limit of 1.5 GiB was reached")


def test_gpu_memory_and_other_errors_are_left_as_they_are() -> None:
    for message in ("CUDA out of memory. Tried to allocate 2.00 GiB", "ValueError: shapes differ"):
        verdict = {"status": status.RUNTIME_ERROR, "message": message}
        assert attribute_out_of_memory(verdict, LIMITED) == verdict


def test_without_a_memory_limit_or_for_another_status_nothing_changes() -> None:
    failed = {"status": status.RUNTIME_ERROR, "message": ENOMEM}
    assert attribute_out_of_memory(failed, SuperviseOptions(memory_bytes=0)) == failed
    hacked = {"status": status.REWARD_HACK, "message": ENOMEM}
    assert attribute_out_of_memory(hacked, LIMITED) == hacked


@pytest.fixture
def sandbox_backend() -> str:
    return "none"  # no sandbox runs here
